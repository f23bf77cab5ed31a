// The exchange a route works on: a message (case-insensitive headers and a body) plus properties.
import type { IncomingMessage } from 'node:http';

/**
 * Case-insensitive headers. Names are stored lower-cased. Headers set by routes are remembered so that only
 * those go back to the client (request headers are not echoed, unlike Camel's platform-http).
 */
export class Headers {
  private readonly map: Record<string, unknown>;
  private written: Set<string> | undefined;

  constructor(initial?: Record<string, unknown>) {
    this.map = Object.assign(Object.create(null) as Record<string, unknown>, initial);
  }

  get(name: string): unknown {
    return this.map[name.toLowerCase()];
  }

  has(name: string): boolean {
    return this.map[name.toLowerCase()] !== undefined;
  }

  set(name: string, value: unknown): void {
    const key = name.toLowerCase();
    this.map[key] = value;
    (this.written ??= new Set()).add(key);
  }

  /** Sets a header that arrived with the request (not sent back). */
  setIncoming(name: string, value: unknown): void {
    this.map[name.toLowerCase()] = value;
  }

  delete(name: string): void {
    const key = name.toLowerCase();
    delete this.map[key];
    this.written?.delete(key);
  }

  /** A plain snapshot of all headers. */
  toObject(): Record<string, unknown> {
    return { ...this.map };
  }

  /** Names set by routes since the exchange was created, lower-cased. */
  writtenNames(): Iterable<string> {
    return this.written ?? EMPTY;
  }
}

const EMPTY: readonly string[] = [];

export interface Message {
  headers: Headers;
  body: unknown;
}

export class Exchange {
  readonly message: Message;
  readonly properties: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  /** Set when a step fails; the response becomes a 500 problem. */
  exception: Error | undefined;

  constructor(
    headers: Headers,
    body: unknown,
    /** The HTTP request this exchange came from (undefined for exchanges made by hand). */
    readonly request?: IncomingMessage,
  ) {
    this.message = { headers, body };
  }

  /** Convenience for routes: `ex.header('petId')`. */
  header(name: string): unknown {
    return this.message.headers.get(name);
  }

  get body(): unknown {
    return this.message.body;
  }

  set body(value: unknown) {
    this.message.body = value;
  }
}

export const HeaderNames = {
  RESPONSE_CODE: 'SvcHttpResponseCode',
  METHOD: 'SvcHttpMethod',
  PATH: 'SvcHttpPath',
  URI: 'SvcHttpUri',
  QUERY: 'SvcHttpQuery',
} as const;

export const PropertyNames = {
  OPENAPI: 'SvcRestOpenApi',
  OPERATION_ID: 'SvcOperationId',
  TOKEN: 'SvcOAuthTokenValidationResult',
} as const;
