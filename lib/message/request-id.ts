// Request ids and W3C trace context. The id a client sends in `X-Request-Id` is kept when it is short and
// plain, else one is made; it goes back on the response, into problem bodies (`instance`), log lines, and
// onto the exchange's headers, so routes read it as a header and `to: http` forwards it with `traceparent`.
// The request itself is left as the client sent it: validation judges what the client sent.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Headers } from './exchange.js';
import { newUuid } from './uuid.js';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * At most 128 characters a URI reference may hold unescaped: the id is then a valid problem `instance`, and
 * safe in a log line and a header.
 */
const ACCEPTED_ID = /^[A-Za-z0-9._~:@+=/-]{1,128}$/;

/** W3C Trace Context `traceparent`: version, trace id, parent id, flags (later versions may append fields). */
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_PARENT = '0'.repeat(16);

/**
 * Where the id rides on the response until it is written. Not `setHeader`: once a response has a header set
 * that way, node's writeHead validates and stores every header of its object one by one (its slow path);
 * each writer puts the id into the one object it passes to writeHead instead (see `withRequestId`).
 */
const REQUEST_ID = Symbol('svc.requestId');
type IdentifiedResponse = ServerResponse & { [REQUEST_ID]?: string };

/** Gives the request its id (the client's or a new one) for its response; returns it. */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const given = req.headers[REQUEST_ID_HEADER];
  const id = typeof given === 'string' && ACCEPTED_ID.test(given) ? given : newUuid();
  (res as IdentifiedResponse)[REQUEST_ID] = id;
  return id;
}

/** The headers a writer passes to writeHead, with the request id (when the request has one) put first. */
export function withRequestId<T extends Record<string, unknown>>(res: ServerResponse, headers: T): T {
  const id = (res as IdentifiedResponse)[REQUEST_ID];
  return id === undefined ? headers : { [REQUEST_ID_HEADER]: id, ...headers };
}

/** The exchange header names tagExchange sets. */
export const TAGGED_NAMES: ReadonlySet<string> = new Set([REQUEST_ID_HEADER, 'traceparent', 'tracestate']);

/** The exchange gets the request id the response carries, and only a trace context that parses. */
export function tagExchange(req: IncomingMessage, res: ServerResponse, headers: Headers): void {
  const id = requestIdOf(res);
  if (id !== undefined) headers.setIncoming(REQUEST_ID_HEADER, id);
  const traceparent = req.headers.traceparent;
  if (traceparent !== undefined && !(typeof traceparent === 'string' && validTraceparent(traceparent))) {
    headers.setIncoming('traceparent', undefined);
    headers.setIncoming('tracestate', undefined);
  }
}

/** The id of the request this response answers, if it has one. */
export function requestIdOf(res: ServerResponse): string | undefined {
  return (res as IdentifiedResponse)[REQUEST_ID];
}

/**
 * A `traceparent` that does not parse is not passed on, and neither is its `tracestate` (which means
 * nothing without it, W3C Trace Context §3.3): a backend then starts a trace of its own.
 */
function validTraceparent(value: string): boolean {
  const m = TRACEPARENT.exec(value);
  return m !== null && m[1] !== 'ff' && m[2] !== ZERO_TRACE && m[3] !== ZERO_PARENT && (m[1] !== '00' || m[4] === undefined);
}
