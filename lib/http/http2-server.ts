// The HTTP/2 server behind svc.server.http2 (docs/production.md#http2), loaded by lib/http/http2.ts on the first
// connection that speaks HTTP/2: node's HTTP/2 module costs a process about 2 MiB of RSS, which a facade whose
// clients all speak HTTP/1.1 does not pay. Requests reach the same listener as HTTP/1.1's, as a request of the
// facade's own (Http2Request, shaped as IncomingMessage) and node's compatibility response, so every stage
// sees a request and a response of the shape it knows.
import http2 from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import type { ServerOptions } from '../config/model.js';
import type { RequestListener } from './server.js';
import { limitRequestTime } from './http2-request-timeout.js';

/** As an edge proxy sets them: streams one connection may have open at once, and the header list's size. */
export const HTTP2_LIMITS = {
  maxConcurrentStreams: 100,
  /** Bytes of decoded header fields (names, values, 32 per field), about HTTP/1.1's 16 KiB of header text. */
  maxHeaderListSize: 16 * 1024 + 100 * 32,
} as const;

/**
 * Fields that only mean something to one HTTP/1.1 connection (RFC 9113 §8.2.2). Node's HTTP/2 stream throws
 * on them, so a response that copied one (a backend's `Connection: close`, a route's `Keep-Alive`) would fail
 * instead of being sent: they are left out of HTTP/2 answers.
 */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'http2-settings', 'te']);

type HeaderMap = Record<string, number | string | readonly string[] | undefined>;

/**
 * Node's compatibility response asks for every answer's trailers (`waitForTrailers`), so each body is
 * followed by a 'wantTrailers' round and a frame of empty trailers: about 2.5 of a bare server's 18 µs a
 * request. No stage sets trailers, so the head goes out without that wait. The method and fields are the
 * compatibility module's own, found by their symbols' descriptions; where they are not (another node), its
 * own method runs.
 */
const BEGIN_SEND = Object.getOwnPropertySymbols(http2.Http2ServerResponse.prototype).find((s) => s.description === 'begin-send');
interface Internals {
  state: symbol;
  headers: symbol;
  stream: symbol;
}
let internals: Internals | null | undefined;

function internalsOf(res: object): Internals | null {
  if (internals !== undefined) return internals;
  const by = new Map(Object.getOwnPropertySymbols(res).map((s) => [s.description, s]));
  const [state, headers, stream] = [by.get('state'), by.get('headers'), by.get('stream')];
  return (internals = state && headers && stream ? { state, headers, stream } : null);
}

type Internal = Record<symbol, unknown>;

/** The compatibility response, minus connection-specific fields and trailers. */
class Http2Response extends http2.Http2ServerResponse {
  static {
    const nodeBeginSend = BEGIN_SEND === undefined ? undefined : (http2.Http2ServerResponse.prototype as unknown as Internal)[BEGIN_SEND];
    if (BEGIN_SEND !== undefined && typeof nodeBeginSend === 'function') {
      (Http2Response.prototype as unknown as Internal)[BEGIN_SEND] = function beginSend(this: Http2Response): void {
        const k = internalsOf(this);
        if (k === null) return void nodeBeginSend.call(this);
        const self = this as unknown as Internal;
        const state = self[k.state] as { statusCode: number; ending: boolean; sendDate: boolean };
        const headers = self[k.headers] as http2.OutgoingHttpHeaders;
        headers[':status'] = state.statusCode;
        (self[k.stream] as http2.ServerHttp2Stream).respond(headers, { endStream: state.ending, sendDate: state.sendDate } as http2.ServerStreamResponseOptions);
      };
    }
  }

  /** Never sent (the answer does not wait for trailers): refused rather than dropped. */
  setTrailer(): void {
    throw new Error('svc-facade does not send HTTP/2 trailers');
  }

  override addTrailers(): void {
    throw new Error('svc-facade does not send HTTP/2 trailers');
  }

  override setHeader(name: string, value: number | string | readonly string[]): this {
    if (!CONNECTION_SPECIFIC.has(name.toLowerCase())) super.setHeader(name, value);
    return this;
  }

  override appendHeader(name: string, value: string | string[]): this {
    if (!CONNECTION_SPECIFIC.has(name.toLowerCase())) super.appendHeader(name, value);
    return this;
  }

  override writeHead(statusCode: number, ...rest: unknown[]): this {
    // HTTP/2 has no reason phrase (node warns when given one).
    if (typeof rest[0] === 'string') rest.shift();
    // Fields set before (setHeader, appendHeader) were filtered there; these are the ones given here.
    const headers = rest[rest.length - 1];
    if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
      // Copied only when there is something to leave out (a forwarded answer's `Connection`, say).
      let kept: HeaderMap | undefined;
      for (const name in headers as HeaderMap) {
        if (!CONNECTION_SPECIFIC.has(name.toLowerCase())) continue;
        kept ??= { ...(headers as HeaderMap) };
        delete kept[name];
      }
      if (kept !== undefined) rest[rest.length - 1] = kept;
    }
    return (super.writeHead as (status: number, ...args: unknown[]) => this)(statusCode, ...rest);
  }
}

const REQUEST = Symbol('svc.http2.request');
const NO_TRAILERS: Readonly<Record<string, string>> = Object.freeze({});
const NO_RAW_TRAILERS: readonly string[] = Object.freeze([]);
type RequestStream = http2.ServerHttp2Stream & { [REQUEST]?: Http2Request };

/**
 * The request of one stream, as IncomingMessage shows one: its headers, method, url and version, its body
 * as a Readable, `socket` (node's stand-in: the stream's lifecycle, the connection's addresses and
 * certificate), 'aborted' and 'close'. Node's compatibility request puts six listeners on every stream and
 * two on itself before anything reads it (docs/performance.md, Protocols figures). This one listens for the
 * stream's close and errors; its body starts flowing when something reads it. `host` comes from
 * `:authority` when the client sent no Host (RFC 9113 §8.3.1), so forwarding, the spec endpoint's server URLs
 * and the access log read it where they always did.
 */
export class Http2Request extends Readable {
  readonly stream: http2.ServerHttp2Stream;
  readonly headers: http2.IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly method: string;
  url: string;
  readonly httpVersionMajor = 2;
  readonly httpVersionMinor = 0;
  readonly httpVersion = '2.0';
  /** The client reset the stream before its body's end. */
  aborted = false;
  /** The body's end arrived (at once for a request whose HEADERS ended the stream). */
  private ended: boolean;
  private reading = false;
  private proxy: object | undefined;
  private readonly response: http2.Http2ServerResponse;

  constructor(stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, rawHeaders: string[], response: http2.Http2ServerResponse) {
    super({ autoDestroy: false });
    this.stream = stream;
    this.headers = headers;
    this.rawHeaders = rawHeaders;
    this.method = headers[':method']!;
    this.url = headers[':path'] ?? '';
    this.response = response;
    const authority = headers[':authority'];
    if (headers.host === undefined && typeof authority === 'string') headers.host = authority;
    (stream as RequestStream)[REQUEST] = this;
    // A stream's errors are the client's (a reset, a protocol error); what they mean reaches 'close'.
    stream.on('error', ignore);
    stream.on('close', onStreamClose);
    this.ended = stream.endAfterHeaders;
    if (this.ended) this.push(null);
  }

  /** Request trailers are not read: always none (one shared, frozen value, not two objects a request). */
  get trailers(): Readonly<Record<string, string>> {
    return NO_TRAILERS;
  }

  get rawTrailers(): readonly string[] {
    return NO_RAW_TRAILERS;
  }

  get complete(): boolean {
    return this.ended;
  }

  /** Node's stand-in socket for the stream (the response's), kept for after the answer. */
  get socket(): Socket {
    return (this.proxy ??= this.response.socket ?? this.stream.session?.socket) as Socket;
  }

  get connection(): Socket {
    return this.socket;
  }

  setTimeout(ms: number, callback?: () => void): this {
    if (!this.stream.closed) this.stream.setTimeout(ms, callback);
    return this;
  }

  override _read(): void {
    if (this.reading) return void this.stream.resume();
    this.reading = true;
    this.stream.on('data', onStreamData);
    this.stream.on('end', onStreamEnd);
  }

  /** Called once, when the stream closes: a body whose end had not arrived by then never will, and is cut off. */
  streamClosed(): void {
    if (this.ended) return void this.emit('close');
    this.aborted = true;
    this.emit('aborted');
    // As IncomingMessage: an error only for someone who listens for one, 'close' either way.
    this.destroy(this.listenerCount('error') > 0 ? Object.assign(new Error('aborted'), { code: 'ECONNRESET' }) : undefined);
  }

  bodyEnded(): void {
    this.ended = true;
    this.push(null);
  }
}

function ignore(): void {}

function answerEmpty(res: http2.Http2ServerResponse, status: number): void {
  res.statusCode = status;
  res.end();
}

function onStreamData(this: RequestStream, chunk: Buffer): void {
  if (this[REQUEST]?.push(chunk) === false) this.pause();
}

function onStreamEnd(this: RequestStream): void {
  // Node also ends a stream's readable side when the stream closes: a client's RST_STREAM, or the facade's
  // own close after a 408 (http2-request-timeout.ts). A body is whole only when its END_STREAM arrived on an
  // open stream; otherwise the close that follows cuts it off.
  if (!this.closed) this[REQUEST]?.bodyEnded();
}

function onStreamClose(this: RequestStream): void {
  const req = this[REQUEST];
  this[REQUEST] = undefined;
  req?.streamClosed();
}

/**
 * The HTTP/2 server `listener` is served by. Its sessions are kept in `sessions` while open, so that the
 * HTTP/1.1 server's closeIdleConnections and closeAllConnections close them too (lib/http/http2.ts).
 */
export function createHttp2Server(listener: RequestListener, options: ServerOptions, sessions: Set<http2.ServerHttp2Session>): http2.Http2Server {
  const idle = Math.max(options.keepAliveTimeout, options.headersTimeout);
  const h2 = http2.createServer(
    {
      settings: { maxConcurrentStreams: HTTP2_LIMITS.maxConcurrentStreams, maxHeaderListSize: HTTP2_LIMITS.maxHeaderListSize },
      maxHeaderListPairs: 128,
      // Streams over the limit refused in a row before the session is dropped (a client ignoring SETTINGS).
      maxSessionRejectedStreams: 100,
      maxSessionInvalidFrames: 100,
    },
  );
  // One turn of the event loop later: a stream the client reset in the same packet as its HEADERS (the
  // rapid-reset pattern) is closed by then, and costs no routing, no exchange, no answer. The streams that
  // opened in one turn are served together, by one setImmediate.
  h2.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
    const res = new Http2Response(stream);
    const req = new Http2Request(stream, headers, rawHeaders, res);
    (res as { req?: unknown }).req = req;
    // What node's compatibility layer answers itself: CONNECT (no tunnels here) and an expectation other than 100-continue.
    if (req.method === 'CONNECT') return void answerEmpty(res, 405);
    const expect = headers.expect;
    if (expect !== undefined) {
      if (expect !== '100-continue') return void answerEmpty(res, 417);
      res.writeContinue();
    }
    limitRequestTime(req, res, options.requestTimeout);
    if (opened.push(req, res) === 2) setImmediate(serveOpened);
  });
  /** Requests and responses, alternating, of the streams opened since the last serveOpened. */
  let opened: (Http2Request | Http2Response)[] = [];
  const serveOpened = (): void => {
    const batch = opened;
    opened = [];
    for (let i = 0; i < batch.length; i += 2) {
      const req = batch[i] as Http2Request;
      if (!req.stream.destroyed) listener(req as unknown as IncomingMessage, batch[i + 1] as unknown as ServerResponse);
    }
  };
  h2.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
    // A session that is lost midway (a reset, a protocol error) is closed; never an uncaught exception.
    session.on('error', () => session.destroy());
    // No frame either way for this long: closed as HTTP/1.1 closes an idle kept-alive connection.
    if (idle > 0) session.setTimeout(idle, () => session.close());
    watchResets(session);
  });
  h2.on('sessionError', () => undefined);
  // Node answers a stream whose request listener threw with a reset; a stream error is the client's doing.
  h2.on('streamError', () => undefined);
  return h2;
}

/**
 * Rapid reset (CVE-2023-44487): a client opening streams and cancelling them at once makes the server start
 * work for each while never being limited by maxConcurrentStreams. nghttp2 rate-limits resets per session;
 * on top, a session whose client cancelled more than RESET_ALLOWANCE streams before their answer, and more
 * than it let finish, is ended with GOAWAY ENHANCE_YOUR_CALM (as nginx and Envoy do). A browser cancelling
 * the odd stream is far from it.
 */
const RESET_ALLOWANCE = 100;

function watchResets(session: http2.ServerHttp2Session): void {
  let cancelled = 0;
  let answered = 0;
  session.on('stream', (stream) => {
    stream.once('close', () => {
      if (stream.rstCode === http2.constants.NGHTTP2_NO_ERROR && stream.headersSent) answered++;
      else if (!stream.headersSent && ++cancelled > RESET_ALLOWANCE && cancelled > answered && !session.destroyed) {
        session.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM);
        session.destroy();
      }
    });
  });
}
