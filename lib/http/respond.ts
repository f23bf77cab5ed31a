// Writes the exchange back as the HTTP response (docs/routes.md): status from SvcHttpResponseCode, else 200/204;
// Content-Type from the header, the binding, or the body's kind; only headers set by routes, never Svc*.
import type { ServerResponse } from 'node:http';
import { Errors, svcError } from '../util/errors.js';
import { HeaderNames, isInternalName, type Exchange } from '../message/exchange.js';
import { StreamedBody } from '../message/streamed-body.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../message/request-id.js';
import { Readable } from 'node:stream';
import { noteBodyLength } from './body-length.js';
import { encodedStream, endWithBody } from './compression.js';
import { TOKEN, isUnsendableValue } from './fields.js';

const NEVER_SENT = new Set(['content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'trailer', 'te', 'host']);
const RESPONSE_CODE = HeaderNames.RESPONSE_CODE.toLowerCase();
const UNDECLARED_STREAM = 'the route answered with an async iterable, but no response of the operation declares a sequential media type (application/jsonl, application/x-ndjson, application/json-seq, text/event-stream, multipart/mixed) to stream it as';

/** Turns a non-text body into bytes and a media type (binding, or JSON by default). */
export type BodySerializer = (body: unknown, ex: Exchange) => { payload: string | Buffer; type: string };

export const jsonSerializer: BodySerializer = (body) => ({ payload: JSON.stringify(body), type: 'application/json' });

/**
 * Told of a header a route set that no response can carry (a name that is not a token; a value with CR, LF,
 * NUL or another control character, or a character above U+00FF, often client input copied by `${header.x}`).
 * Such a header is left out of the answer rather than failing it.
 */
export type UnsendableHeader = (res: ServerResponse, name: string) => void;

export function writeExchange(res: ServerResponse, ex: Exchange, serialize: BodySerializer = jsonSerializer, unsendable?: UnsendableHeader): void {
  const headers = ex.message.headers;
  const body = ex.message.body;
  // Only a Content-Type the route (or a stage) wrote counts: the request's own must not label the response.
  let type = headers.writtenValue('content-type') as string | undefined;
  if (type !== undefined && type !== null && isUnsendableValue(String(type))) {
    unsendable?.(res, 'content-type');
    type = undefined;
  }
  if (body instanceof StreamedBody) return writeStreamed(res, ex, body, type, unsendable);
  let payload: string | Buffer | undefined;
  if (body === undefined || body === null || body === '') payload = undefined;
  else if (typeof body === 'string') {
    payload = body;
    type ??= 'text/plain; charset=utf-8';
  } else if (Buffer.isBuffer(body) || body instanceof Uint8Array) {
    // No bytes is an empty body (204), like an empty string.
    payload = body.length === 0 ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body);
    type ??= 'application/octet-stream';
  } else {
    // JSON.stringify would answer an async iterable with '{}': only operations that declare a sequential
    // media type stream one (lib/sequences/), so here it is the route's mistake, said plainly in the log.
    if (typeof (body as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function') throw new Error(UNDECLARED_STREAM);
    const out = serialize(body, ex);
    payload = out.payload;
    type ??= out.type;
  }
  const status = responseStatus(headers.internalValue(RESPONSE_CODE), payload !== undefined);
  const out = writtenHeaders(res, ex, unsendable);
  if (status === 204 || status === 304 || payload === undefined) {
    res.writeHead(status, out);
    res.end();
    return;
  }
  out['content-type'] = type!;
  endWithBody(res, status, out, type, payload);
}

type OutgoingHeaders = Record<string, string | string[] | number>;

/** The response's headers, all in the one object given to writeHead (its fast path): the request id first. */
function writtenHeaders(res: ServerResponse, ex: Exchange, unsendable: UnsendableHeader | undefined): OutgoingHeaders {
  const headers = ex.message.headers;
  const out: OutgoingHeaders = {};
  const id = requestIdOf(res);
  if (id !== undefined) out[REQUEST_ID_HEADER] = id;
  for (const name of headers.writtenNames()) {
    if (isInternalName(name) || NEVER_SENT.has(name)) continue;
    const value = headers.writtenValue(name);
    if (value === undefined || value === null) continue;
    const text = Array.isArray(value) ? value.map(String) : String(value);
    if (!TOKEN.test(name) || (typeof text === 'string' ? isUnsendableValue(text) : text.some(isUnsendableValue))) {
      unsendable?.(res, name);
      continue;
    }
    out[name] = text;
  }
  return out;
}

/** A body still arriving (a backend's answer) is piped through; a failure half-way can only cut the connection. */
function writeStreamed(res: ServerResponse, ex: Exchange, body: StreamedBody, type: string | undefined, unsendable: UnsendableHeader | undefined): void {
  const status = responseStatus(ex.message.headers.internalValue(RESPONSE_CODE), true);
  const out = writtenHeaders(res, ex, unsendable);
  if (type !== undefined) out['content-type'] = type;
  const bodiless = status === 204 || status === 304;
  const whole = body.arrived();
  // Arrived whole and not coded: written as any whole body (compressed when it may be).
  if (!bodiless && whole !== undefined && whole !== null && out['content-encoding'] === undefined) return endWithBody(res, status, out, type, whole);
  if (body.length !== undefined && !bodiless) {
    out['content-length'] = body.length;
    noteBodyLength(res, body.length);
  }
  let source = whole === undefined ? body.stream : undefined;
  if (!bodiless && whole !== null) {
    // Compressed as it passes, or decoded for a client that does not take the backend's coding (fields fixed to match).
    const arriving = source ?? Readable.from([whole!]);
    const sent = encodedStream(res, out, type, arriving, body.length);
    if (sent !== arriving || whole === undefined) source = sent;
  }
  res.writeHead(status, out);
  if (source === undefined) {
    if (whole === null || whole === undefined) res.end();
    else res.end(whole);
    return;
  }
  // pipe() and two listeners rather than stream.pipeline, which allocates an AbortController per response.
  source.once('error', () => res.destroy());
  res.once('close', () => {
    if (!res.writableFinished) source.destroy();
  });
  source.pipe(res);
}

function responseStatus(code: unknown, hasPayload: boolean): number {
  if (code === undefined || code === null || code === '') return hasPayload ? 200 : 204;
  const n = typeof code === 'number' ? code : Number(code);
  // 1xx codes are informational, never a final answer: the client would keep waiting for one.
  if (!Number.isInteger(n) || n < 200 || n > 599) throw svcError(Errors.ROUTE_FAILED);
  return n;
}
