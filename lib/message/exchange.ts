// The exchange a route works on: a message (case-insensitive headers and a body) plus properties.
import type { IncomingMessage } from 'node:http';
import { setOwn } from '../util/objects.js';
import type { RequestFacts } from './request-facts.js';
import { clientCertificateOf, type ClientCertificate } from '../http/client-certificate.js';

/**
 * Case-insensitive headers. Request headers are read in place (node already lower-cases them); values set
 * afterwards live in a small overlay, so building an exchange copies nothing. Headers set by routes are
 * remembered so that only those go back to the client (request headers are not echoed, unlike Camel).
 */
export class Headers {
  private incoming: Readonly<Record<string, unknown>>;
  private overlay = new Map<string, unknown>();
  private written: string[] | undefined;
  private pending: LazyRequestHeaders | undefined;
  /**
   * Request values as validation typed them (parameters the contract says are integers, booleans, arrays,
   * objects): what `get` and `toObject` answer until something writes the name. `forEach` (what is forwarded
   * to a backend) still visits the text as received.
   */
  private typed: Map<string, unknown> | undefined;

  constructor(incoming?: Readonly<Record<string, unknown>>) {
    this.incoming = incoming ?? NO_HEADERS;
  }

  /** Headers of an HTTP request. Clients cannot set `Svc*` headers: those are the facade's own. */
  static fromRequest(incoming: Readonly<Record<string, unknown>>): Headers {
    return new Headers(incoming);
  }

  /**
   * Headers filled from the request only when first read: a route that only writes headers (and the
   * response writer, which reads only those) never pays for the request's (SvcHttp*, query parameters...).
   * @internal
   */
  static lazy(source: LazyRequestHeaders): Headers {
    const headers = new Headers();
    headers.pending = source;
    return headers;
  }

  get(name: string): unknown {
    const key = name.toLowerCase();
    if (this.typed !== undefined && this.typed.has(key)) return this.typed.get(key);
    const own = this.overlay.get(key);
    if (own !== undefined || this.overlay.has(key)) return own;
    if (this.pending !== undefined && (!isInternalName(key) || REQUEST_NAMES.has(key))) {
      // What the request alone decides (the mock's SvcHttpPath, the echo's Content-Type) is read without
      // filling in every header and query parameter.
      const known = this.pending.peek(key);
      return known === NEEDS_FILL ? this.fill().get(key) : known;
    }
    return this.incomingValue(key);
  }

  /**
   * Fills in the request's headers as they were before anything was written: what was set or deleted
   * since (by routes) stays on top, in place, as if the request's had been there from the start.
   */
  private fill(): this {
    const source = this.pending!;
    this.pending = undefined;
    const written = this.overlay;
    this.overlay = new Map();
    this.incoming = source.incoming;
    source.fill(this);
    for (const [key, value] of written) {
      this.typed?.delete(key);
      this.overlay.set(key, value);
    }
    return this;
  }

  private incomingValue(key: string): unknown {
    // Own properties only (`constructor` must not resolve to Object.prototype), and never an internal name.
    return Object.hasOwn(this.incoming, key) && !isInternalName(key) ? this.incoming[key] : undefined;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  set(name: string, value: unknown): void {
    const key = name.toLowerCase();
    this.typed?.delete(key);
    this.overlay.set(key, value);
    if (this.written === undefined) this.written = [key];
    else if (!this.written.includes(key)) this.written.push(key);
  }

  /** Sets a header that arrived with the request (not sent back). */
  setIncoming(name: string, value: unknown): void {
    if (this.pending !== undefined) this.fill();
    const key = name.toLowerCase();
    this.typed?.delete(key);
    this.overlay.set(key, value);
  }

  /** Sets the typed value of a request value (see `typed`); the text as received stays what is forwarded. */
  setTyped(name: string, value: unknown): void {
    if (this.pending !== undefined) this.fill();
    (this.typed ??= new Map()).set(name.toLowerCase(), value);
  }

  delete(name: string): void {
    if (this.pending !== undefined) this.fill();
    const key = name.toLowerCase();
    this.typed?.delete(key);
    this.overlay.set(key, undefined);
    if (this.written !== undefined) this.written = this.written.filter((k) => k !== key);
  }

  /** A plain snapshot of all headers. */
  toObject(): Record<string, unknown> {
    if (this.pending !== undefined) this.fill();
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(this.incoming)) if (!isInternalName(key)) setOwn(out, key, this.incoming[key]);
    for (const [key, value] of this.overlay) {
      if (value === undefined) delete out[key];
      else setOwn(out, key, value);
    }
    if (this.typed !== undefined) for (const [key, value] of this.typed) setOwn(out, key, value);
    return out;
  }

  /**
   * Visits what toObject() would hold (names lower-cased) without building it, request values as the text
   * received rather than typed: the forwarding hot path.
   */
  forEach(visit: (value: unknown, name: string) => void): void {
    if (this.pending !== undefined) this.fill();
    const { incoming, overlay } = this;
    for (const key of Object.keys(incoming)) if (!overlay.has(key) && !isInternalName(key)) visit(incoming[key], key);
    for (const [key, value] of overlay) if (value !== undefined) visit(value, key);
  }

  /** Names set by routes since the exchange was created, lower-cased. */
  writtenNames(): readonly string[] {
    return this.written ?? EMPTY;
  }

  /**
   * The value a route (or stage) set for a lower-cased name, never the request's; undefined when none did.
   * For the response writer, which needs no request header filled in for that.
   */
  writtenValue(key: string): unknown {
    return this.written !== undefined && this.written.includes(key) ? this.overlay.get(key) : undefined;
  }

  /**
   * `get` for a lower-cased internal name the request does not give (SvcHttpResponseCode): such a name only
   * ever has a value set on the exchange, so this is one lookup.
   */
  internalValue(key: string): unknown {
    return this.overlay.get(key);
  }
}

/** The request's side of lazily filled headers. @internal */
export interface LazyRequestHeaders {
  /** The request's header fields, read in place. */
  readonly incoming: Readonly<Record<string, unknown>>;
  /**
   * Sets the values derived from the request with `setIncoming`. Of the internal names it sets only the
   * four SvcHttp* request names (so reading others, like the response code, need not fill).
   */
  fill(headers: Headers): void;
  /**
   * The value a lower-cased name would have after `fill`, when it can be told without filling (the SvcHttp*
   * request names, request fields no parameter may pose as); NEEDS_FILL otherwise.
   */
  peek(key: string): unknown;
}

/** What `LazyRequestHeaders.peek` answers when only filling can tell a name's value. @internal */
export const NEEDS_FILL: unique symbol = Symbol('needs fill');

/** `Svc*` names (any case) belong to the facade; they never come from clients and are never sent to them. */
export function isInternalName(name: string): boolean {
  return name.length >= 3 && (name.charCodeAt(0) | 0x20) === 0x73 && (name.charCodeAt(1) | 0x20) === 0x76 && (name.charCodeAt(2) | 0x20) === 0x63;
}

const NO_HEADERS: Readonly<Record<string, unknown>> = Object.freeze(Object.create(null) as Record<string, unknown>);
const EMPTY: readonly string[] = [];

export interface Message {
  headers: Headers;
  body: unknown;
}

export class Exchange {
  readonly message: Message;
  private ownProperties: Record<string, unknown> | undefined;
  private readonly shared: Record<string, unknown> | null;

  constructor(
    headers: Headers,
    body: unknown,
    /** The HTTP request this exchange came from (undefined for exchanges made by hand). */
    readonly request?: IncomingMessage,
    /** Properties every exchange of an operation shares (read through the prototype, so not copied per request). */
    shared?: Record<string, unknown>,
    /**
     * What the pipeline read from the request (path parameters, query pairs, the parameters validation typed),
     * when a stage needed it: a typed route reads its parameters from it. @internal
     */
    readonly facts?: RequestFacts,
  ) {
    this.message = { headers, body };
    this.ownProperties = undefined;
    this.shared = shared ?? null;
  }

  /** Made when first read: most requests' routes never touch them, and an object on a prototype is a builtin call. */
  get properties(): Record<string, unknown> {
    return (this.ownProperties ??= Object.create(this.shared) as Record<string, unknown>);
  }

  /** The certificate the client presented over TLS (svc.server.tls.clientAuth); undefined when none. */
  get clientCertificate(): ClientCertificate | undefined {
    return clientCertificateOf(this.request);
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

/** The internal names a request sets (lower-cased): reading any other internal name never needs the request's. */
const REQUEST_NAMES: ReadonlySet<string> = new Set([HeaderNames.METHOD, HeaderNames.PATH, HeaderNames.URI, HeaderNames.QUERY].map((n) => n.toLowerCase()));

export const PropertyNames = {
  OPENAPI: 'SvcRestOpenApi',
  OPERATION_ID: 'SvcOperationId',
  TOKEN: 'SvcOAuthTokenValidationResult',
  /** Who the contract's security admitted the request as (clientSecurityValidation). */
  PRINCIPAL: 'SvcPrincipal',
} as const;
