// One forwarded request: sent on the endpoint's keep-alive pool (undici, see context.ts), the client's body
// streamed or sent whole, the answer streamed back or read whole; every failure mapped to one catalogue error
// (the origin in the log). undici writes the framing of what is sent itself, from the body it is handed and
// the Content-Length given (a body that does not match it is an error, never sent as is), chunked otherwise.
import { performance } from 'node:perf_hooks';
import type { Socket } from 'node:net';
import { PassThrough, Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { Errors, SvcError, svcError } from '../../util/errors.js';
import { hasBody } from '../../http/body.js';
import { HeaderNames, PropertyNames, type Exchange } from '../../message/exchange.js';
import { StreamedBody, takeArrived } from '../../message/streamed-body.js';
import { readBackendBody } from './body.js';
import { QueueTimeout, type BackendContext, type BackendPool } from './context.js';
import type { BackendEndpoint } from './endpoint.js';
import { backendError, shownOrigin } from './failure.js';
import { applyBackendResponse, backendRequestHeaders } from './headers.js';
import { forwardablePath } from './path.js';
import { checkedHop } from './redirect-guard.js';
import { redirectTarget, type Hop } from './redirects.js';
import { REQUEST_ID_HEADER } from '../../message/request-id.js';
import { BackendAnswer, responseHeaders } from './response.js';
import { KeptBody } from './kept-body.js';
import { countRelayed } from './relayed-garbage.js';
import type { OriginStats } from './origin-stats.js';
import { CallRetries, failureKind, type FailureKind } from './retry.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_METHODS, maySendAgain, RETRIED_STATUSES, type RetrySafety } from './retry-safety.js';

const METHOD = HeaderNames.METHOD;
const PATH = HeaderNames.PATH;
const QUERY = HeaderNames.QUERY;

/** Why a call was cut short by the facade itself (otherwise the backend failed it: 502); `deadline`: requestTimeout spent. */
type Cut = 'timeout' | 'client' | 'tooLarge' | 'deadline';

/**
 * Forwards the exchange and makes the backend's answer the exchange's. With `streamResponse` the body stays a
 * StreamedBody for the client; otherwise it is read whole (as a later step or response validation needs).
 */
export function forwardToBackend(endpoint: BackendEndpoint, ctx: BackendContext, ex: Exchange, streamResponse: boolean, stats: OriginStats): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = new BackendCall(endpoint, ctx, ex, streamResponse, resolve, reject, stats);
    const request = ex.request;
    if (request === undefined || ex.message.body !== request || request.complete) return call.run();
    // The client's body, still to stream: what came in the packets of its head is parsed once this turn of
    // the event loop has read them (a microtask would run between the parser's callbacks, too early), and a
    // body that has arrived whole by then is sent whole (no pipe to set up).
    setImmediate(() => {
      try {
        call.run();
      } catch (err) {
        reject(err);
      }
    });
  });
}

/**
 * The calls under way for one client connection, all aborted when it closes (one listener per connection, not
 * per call). Over HTTP/2 a session carries many requests: each request's own stream is watched instead.
 */
const CALLS = Symbol('svc.backendCalls');
type ClientEnd = Pick<Socket, 'destroyed' | 'once'> & { [CALLS]?: Set<BackendCall> };

function clientEnd(req: Exchange['request']): ClientEnd | undefined {
  if (req === undefined) return undefined;
  return req.httpVersionMajor === 2 ? ((req as { stream?: ClientEnd }).stream ?? req.socket) : req.socket;
}

class BackendCall {
  private cut: Cut | undefined;
  private settled = false;
  /** The request sent (or about to be), one per hop. */
  private current: Attempt | undefined;
  /** Set while the call waits for a pooled connection. */
  private leaveQueue: (() => void) | undefined;
  /** A streamed upload's inactivity timer (undici's own headers timer would not see the upload's bytes). */
  private idle: NodeJS.Timeout | undefined;
  private readonly client: ClientEnd | undefined;
  private readonly onTimeout = (): void => this.abort('timeout');
  /** Retries (retry.ts): only for an endpoint with retries above 0. */
  private retries: CallRetries | undefined;
  private safety: RetrySafety | undefined;
  /** A streamed upload's copy for a retry (kept-body.ts), and the stream undici reads it from. */
  private kept: KeptBody | undefined;
  private upload: Readable | undefined;
  private sent: PassThrough | undefined;
  /** The wait before a retry, and the whole request's time limit (armed once a retry is made, or when shorter than timeout). */
  private backoff: NodeJS.Timeout | undefined;
  private deadline: NodeJS.Timeout | undefined;
  /** Between a failed attempt and its retry's send (the backoff, and the wait for the rest of a kept body). */
  private between = false;

  constructor(
    private readonly endpoint: BackendEndpoint,
    private readonly ctx: BackendContext,
    private readonly ex: Exchange,
    /** The body stays a StreamedBody for the client; false: it is read whole. */
    private readonly streamResponse: boolean,
    private readonly resolve: () => void,
    private readonly reject: (err: unknown) => void,
    private readonly stats: OriginStats,
  ) {
    this.client = clientEnd(ex.request);
  }

  /** Throws (so rejects) before anything is sent when the request cannot be forwarded. */
  run(): void {
    const { ex, ctx, endpoint } = this;
    const client = ex.request;
    // A GET or HEAD body has no meaning (RFC 9110 §9.3.1, §9.3.2) and many backends answer without reading
    // it, leaving it on the pooled connection as the start of the next request: refused, and the client's
    // connection closed rather than read through.
    if (client !== undefined && (client.method === 'GET' || client.method === 'HEAD') && hasBody(client)) {
      throw new SvcError(Errors.BODY_NOT_FORWARDED, [client.method], undefined, CLOSE);
    }
    const headers = ex.message.headers;
    const method = String(headers.get(METHOD) ?? (ex.message.body == null ? 'GET' : 'POST')).toUpperCase();
    const sendsBody = method !== 'GET' && method !== 'HEAD';
    let source = ex.message.body;
    if (source instanceof Readable && sendsBody && source.readableLength <= ctx.maxBodySize) {
      const whole = takeArrived(source);
      if (whole !== undefined) source = whole ?? undefined;
    }
    const upload = source instanceof Readable && sendsBody ? source : undefined;
    if (endpoint.options.retries > 0) this.prepareRetries(method, upload);
    // The Content-Length given to undici, which frames the body by it (or chunked without one): a body sent
    // whole has its length; a streamed one keeps the client's Content-Length only when it is the client's own
    // body (node's parser delivers exactly that many bytes, and stream() checks).
    let length: string | undefined;
    const payload = upload !== undefined || !sendsBody ? undefined : toPayload(source);
    if (upload !== undefined) {
      const declared = upload === client ? client.headers['content-length'] : undefined;
      // As a number: node's parser allows leading zeros (`05`), which some backends read otherwise.
      if (declared !== undefined) length = String(Number(declared));
      if (Number(length) > ctx.maxBodySize) throw svcError(Errors.BODY_TOO_LARGE, ctx.maxBodySize);
    } else if (payload !== undefined) length = String(Buffer.byteLength(payload));
    else if (!BODILESS.has(method)) length = '0';
    const path = targetPath(endpoint, headers.get(PATH), headers.get(QUERY));
    const sent = backendRequestHeaders(ex, endpoint.host, ctx.trusted, length, ctx.principalHeader, ctx.forwardClientCert);
    const hop: Hop = { endpoint, path, method, headers: sent, payload };
    this.watchClient();
    this.send(hop, upload === undefined ? undefined : this.stream(upload, length === undefined ? undefined : Number(length)), 0, false);
  }

  /** Sends one request once its pool has a connection for it; follows redirects when the endpoint says so (bodies sent whole only: a stream cannot be replayed). */
  private send(hop: Hop, upload: Readable | undefined, redirects: number, retried: boolean): void {
    // The client is gone already (its request failed to parse after its head): no backend connection is opened.
    if (this.cut !== undefined) return this.fail(new Error('the client closed its connection before the call was sent'));
    const pool = this.ctx.pool(hop.endpoint);
    this.leaveQueue = pool.take(
      () => this.dispatch(pool, hop, upload, redirects, retried),
      (err) => {
        this.leaveQueue = undefined;
        this.fail(err);
      },
    );
  }

  private dispatch(pool: BackendPool, hop: Hop, upload: Readable | undefined, redirects: number, retried: boolean): void {
    this.leaveQueue = undefined;
    if (this.cut !== undefined) {
      pool.release();
      return this.fail(new Error('the client closed its connection before the call was sent'));
    }
    const timeout = this.retries === undefined ? this.endpoint.options.timeout : this.attemptTimeout();
    const attempt = new Attempt(this, pool, hop, upload, redirects, retried);
    this.current = attempt;
    this.stats.attempts++;
    // `timeout`: no byte of the answer's head or body for that long. A streamed upload's time goes to the
    // call's own timer instead (armed on connect, refreshed by each chunk sent, ended by the answer's head).
    let dispatcher: Dispatcher;
    try {
      dispatcher = pool.dispatcher;
    } catch (err) {
      // undici refused the pool's settings (made on first use): this call fails, the facade goes on.
      pool.release();
      return this.fail(err);
    }
    const body = upload ?? hop.payload ?? null;
    // reset: false keeps the connection after a DELETE, OPTIONS or TRACE body, which undici would otherwise
    // close as a body some servers do not read: framed by its length or chunked, it is read like any other.
    dispatcher.dispatch({ origin: hop.endpoint.connectOrigin ?? hop.endpoint.origin, path: hop.path, method: hop.method as Dispatcher.HttpMethod, headers: hop.headers, body, headersTimeout: upload === undefined ? timeout : 0, bodyTimeout: timeout, ...(body !== null && KEEP) }, attempt);
  }

  /** undici took the request to a connection (Attempt.onConnect). */
  connected(attempt: Attempt): void {
    if (attempt.upload !== undefined) this.idle = setTimeout(this.onTimeout, this.endpoint.options.timeout);
  }

  /** The answer's head arrived: it becomes the exchange's, or leads to the next hop (a redirect). Returns whether its body is wanted. */
  answered(attempt: Attempt, res: BackendAnswer): boolean {
    clearTimeout(this.idle);
    if (this.settled) return false;
    // An undeclared 502/503/504 is a fault of the backend (or of a proxy before it): sent again when the call may be.
    if (this.retries !== undefined && RETRIED_STATUSES.has(res.statusCode) && this.safety?.declares(res.statusCode) !== true && this.retry(attempt, 'status', res.headers['retry-after'])) return false;
    const { hop } = attempt;
    const target = attempt.upload === undefined && this.endpoint.options.followRedirects && attempt.redirects < MAX_REDIRECTS ? redirectTarget(hop, res, this.endpoint) : undefined;
    // Another origin than the hop's and the route's: its address is checked first (a host name is resolved).
    const next = target === undefined || typeof target === 'string' || target.endpoint === hop.endpoint || target.endpoint.origin === this.endpoint.origin ? target : checkedHop(target);
    if (next === undefined) {
      this.answer(res);
      return true;
    }
    if (next instanceof Promise) {
      // The answer is held (its parser pauses once HELD bytes wait) until the name is resolved.
      void next.then((checked) => this.redirected(attempt, res, checked));
      return true;
    }
    if (typeof next === 'string') {
      this.refusedRedirect(res, next);
      this.answer(res);
      return true;
    }
    this.send(next, undefined, attempt.redirects + 1, false);
    return false;
  }

  /** A redirect whose host name was resolved: followed (the held answer dropped), or the answer passed on. */
  private redirected(attempt: Attempt, res: BackendAnswer, next: Hop | string): void {
    if (this.settled) return;
    if (this.cut !== undefined) return this.fail(new Error('the client closed its connection while a redirect\'s address was looked up'));
    if (typeof next === 'string') {
      this.refusedRedirect(res, next);
      return this.answer(res);
    }
    attempt.drop();
    this.send(next, undefined, attempt.redirects + 1, false);
  }

  /** One WARN line per redirect not followed; the client gets the 3xx as it was. */
  private refusedRedirect(res: BackendAnswer, why: string): void {
    const id = this.ex.message.headers.get(REQUEST_ID_HEADER);
    this.ctx.logger.warn(`redirect not followed: ${res.statusCode} from ${this.endpoint.origin} to ${String(res.headers.location)}: ${why}`, typeof id === 'string' ? { requestId: id } : undefined);
  }

  /** The request failed before an answer came. */
  failed(attempt: Attempt, err: Error): void {
    clearTimeout(this.idle);
    if (this.settled || attempt !== this.current) return;
    // A pooled connection the backend closed while this request was on its way (the keep-alive race: it had
    // carried answers before, and closed without one for this request): an idempotent request whose body is
    // at hand is sent once more, on a new connection.
    const { hop } = attempt;
    if (!attempt.retried && this.cut === undefined && attempt.upload === undefined && IDEMPOTENT_METHODS.has(hop.method) && onStaleConnection(err)) {
      return this.send(hop, undefined, attempt.redirects, true);
    }
    const kind = this.retries === undefined ? undefined : failureKind(err);
    if (kind !== undefined && this.retry(attempt, kind)) return;
    this.fail(err);
  }

  /** Sets up the call's retries: whether the contract lets it be sent again, its upload's copy, its time limit. */
  private prepareRetries(method: string, upload: Readable | undefined): void {
    const { ex, ctx, endpoint } = this;
    const safety = (this.safety = ctx.retrySafety(ex.properties[PropertyNames.OPERATION_ID]));
    const key = method === 'POST' || method === 'PATCH' ? ex.message.headers.get(IDEMPOTENCY_KEY_HEADER) : undefined;
    const now = performance.now();
    const { options } = endpoint;
    this.retries = new CallRetries(options, this.stats, maySendAgain(method, safety, key), now);
    if (upload !== undefined) this.kept = new KeptBody(ctx.options.maxRetryBodySize);
    // A limit shorter than timeout binds the first attempt too (its connection included); otherwise it is armed with the first retry.
    if (options.requestTimeout < options.timeout) this.armDeadline(now);
  }

  /** The answer-head timeout of an attempt: timeout, or what is left of requestTimeout when less. */
  private attemptTimeout(): number {
    const left = Math.ceil(this.retries!.deadline - performance.now());
    return Math.max(1, Math.min(this.endpoint.options.timeout, left));
  }

  private armDeadline(now: number): void {
    if (this.deadline !== undefined) return;
    this.deadline = setTimeout(() => this.abort('deadline'), Math.max(1, this.retries!.deadline - now));
  }

  /** Sends the attempt's request again after a backoff when its body can be and the retry policy allows; false otherwise. */
  private retry(attempt: Attempt, kind: FailureKind, retryAfter?: string | string[]): boolean {
    if (this.cut !== undefined) return false;
    const kept = this.kept;
    if (kept?.dropped === true) {
      this.ctx.logger?.warn(`${this.endpoint.origin}: not retried: the request body was streamed and is larger than svc.backend.maxRetryBodySize (${kept.limit} bytes)`);
      return false;
    }
    const now = performance.now();
    const delay = this.retries!.next(kind, now, retryAfter);
    if (delay === undefined) return false;
    this.armDeadline(now);
    const { hop, redirects, retried } = attempt;
    if (kept !== undefined && !kept.complete) this.drainUpload();
    this.between = true;
    this.backoff = setTimeout(() => {
      if (kept === undefined) return this.resend(hop, redirects, retried);
      kept.whenWhole((body) => {
        if (body === undefined) return this.fail(new Error(`the request body was streamed and is larger than svc.backend.maxRetryBodySize (${kept.limit} bytes): not sent again`));
        this.resend({ ...hop, payload: body }, redirects, retried);
      });
    }, delay);
    return true;
  }

  private resend(hop: Hop, redirects: number, retried: boolean): void {
    if (this.settled) return;
    this.between = false;
    this.send(hop, undefined, redirects, retried);
  }

  /** The failed attempt no longer reads the client's body: the rest of it is read into the copy for the retry. */
  private drainUpload(): void {
    const { upload, sent } = this;
    if (upload === undefined || sent === undefined) return;
    upload.unpipe(sent);
    sent.destroy();
    upload.resume();
  }

  /** The backend's answer becomes the exchange's; its body stays a stream, or is read whole first. */
  private answer(res: BackendAnswer): void {
    const { ex, ctx, endpoint } = this;
    clearTimeout(this.deadline);
    applyBackendResponse(ex, res, HeaderNames.RESPONSE_CODE);
    const announced = res.headers['content-length'];
    const length = announced === undefined ? undefined : Number(announced);
    const body = new StreamedBody(res, length, (target) => readBackendBody(res, target, ctx.options, endpoint.origin).catch((err: unknown) => Promise.reject(this.failure(err))));
    ex.message.body = body;
    this.settled = true;
    if (this.streamResponse) {
      this.unwatchClient();
      return this.resolve();
    }
    body.read(ex).then(
      (value) => {
        ex.message.body = value;
        this.unwatchClient();
        this.resolve();
      },
      (err: unknown) => {
        this.unwatchClient();
        this.reject(err);
      },
    );
  }

  private fail(cause: unknown): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.idle);
    clearTimeout(this.deadline);
    clearTimeout(this.backoff);
    this.unwatchClient();
    this.reject(this.failure(cause));
  }

  private watchClient(): void {
    const client = this.client;
    if (client === undefined) return;
    // Gone already (while its body was being looked at): the call is cut before it starts.
    if (client.destroyed) return void (this.cut ??= 'client');
    let calls = client[CALLS];
    if (calls === undefined) {
      const open = (calls = client[CALLS] = new Set());
      client.once('close', () => {
        for (const call of open) call.abort('client');
      });
    }
    calls.add(this);
  }

  private unwatchClient(): void {
    this.client?.[CALLS]?.delete(this);
  }

  /**
   * The client's body as undici reads it, bounded by maxBodySize; a client that stops sending aborts the call.
   * With a Content-Length sent, a body that would not match it in size is cut instead of sent (the listeners
   * run before the pipe's: undici never gets a byte past the announced length). undici reads a stream of its
   * own: aborting a call destroys that one, never the client's request (a 413 must still reach the client).
   */
  private stream(upload: Readable, announced: number | undefined): Readable {
    const limit = this.ctx.maxBodySize;
    const sent = new PassThrough();
    const kept = this.kept;
    if (kept !== undefined) {
      this.upload = upload;
      this.sent = sent;
      upload.once('end', () => kept.end());
    }
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      countRelayed(chunk.length);
      kept?.add(chunk);
      this.idle?.refresh();
      if (announced !== undefined && size > announced) return this.abort('client');
      if (size <= limit) return;
      upload.off('data', onData);
      upload.unpipe(sent);
      // Read and drop the rest, so the 413 reaches a client still sending.
      upload.resume();
      this.abort('tooLarge');
    };
    upload.on('data', onData);
    if (announced !== undefined) upload.once('end', () => size !== announced && this.abort('client'));
    upload.once('aborted', () => this.abort('client'));
    upload.once('error', () => this.abort('client'));
    upload.pipe(sent);
    return sent;
  }

  abort(cut: Cut): void {
    this.cut ??= cut;
    if (this.between) return this.fail(new Error('the call was given up while it waited to be sent again'));
    if (this.leaveQueue !== undefined) {
      this.leaveQueue();
      this.leaveQueue = undefined;
      return this.fail(new Error('the client closed its connection while the call waited for a connection'));
    }
    const attempt = this.current;
    if (attempt === undefined) return;
    // Not on a connection yet (one is being made): the call fails now, the request is dropped when undici starts it.
    if (!attempt.abort()) this.fail(new Error('the call was given up before it was sent'));
  }

  private failure(cause: unknown): SvcError {
    if (cause instanceof SvcError) return cause;
    const { options } = this.ctx;
    const { origin } = this.endpoint;
    if (cause instanceof QueueTimeout) {
      const retryAfter = String(Math.max(1, Math.ceil(options.queueTimeout / 1000)));
      return backendError(Errors.BACKEND_BUSY, [options.queueTimeout], origin, cause, { 'retry-after': retryAfter });
    }
    const code = (cause as { code?: unknown } | null)?.code;
    const cut = code === CONNECT_TIMEOUT || code === HEADERS_TIMEOUT || code === BODY_TIMEOUT ? 'timeout' : this.cut;
    if (cut === 'tooLarge') return svcError(Errors.BODY_TOO_LARGE, this.ctx.maxBodySize);
    if (cut === 'client') return svcError(Errors.BODY_ABORTED);
    const shown = shownOrigin(origin, options.exposeOrigin);
    const { timeout, connectTimeout } = this.endpoint.options;
    // The operator's log (never the client, unless exposeOrigin) learns the origin and the cause.
    if (cut === 'deadline') return backendError(Errors.BACKEND_TIMEOUT, [shown], origin, `requestTimeout of ${this.endpoint.options.requestTimeout} ms spent after ${(this.retries?.made ?? 0) + 1} attempt(s)`);
    if (cut === 'timeout') return backendError(Errors.BACKEND_TIMEOUT, [shown], origin, code === CONNECT_TIMEOUT ? `no connection within ${connectTimeout} ms` : `no byte within ${timeout} ms`);
    // undici's "other side closed" is node's ECONNRESET ("socket hang up"): said as before, for the operator's searches.
    if (code === SOCKET_CLOSED) return backendError(Errors.BACKEND_FAILED, [shown], origin, `ECONNRESET the backend closed the connection (${(cause as Error).message})`);
    return backendError(Errors.BACKEND_FAILED, [shown], origin, cause);
  }
}

/**
 * One request of a call, as undici reports on it (its legacy handler interface, which it calls directly:
 * no adapter object per request). Holds the connection's slot in its pool until undici is done with it.
 */
class Attempt implements Dispatcher.DispatchHandler {
  private abortRequest: ((err: Error) => void) | undefined;
  private resumeParser: (() => void) | undefined;
  private response: BackendAnswer | undefined;
  /** The call gave up on it before undici put it on a connection. */
  private dropped = false;
  private done = false;
  /** A redirect's body: read and dropped. */
  private discard = false;
  /** A 204 or 304: the answer ended with its head. */
  private bodiless = false;

  constructor(
    private readonly call: BackendCall,
    private readonly pool: BackendPool,
    readonly hop: Hop,
    readonly upload: Readable | undefined,
    readonly redirects: number,
    readonly retried: boolean,
  ) {}

  /** Aborts the request; false when it is not on a connection yet (it is dropped when undici starts it). */
  abort(err: Error = new Error('aborted')): boolean {
    if (this.done) return true;
    if (this.abortRequest === undefined) {
      this.dropped = true;
      return false;
    }
    this.abortRequest(err);
    return true;
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortRequest = abort;
    if (this.dropped) return abort(new Error('the call was given up before it was sent'));
    this.call.connected(this);
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (statusCode < 200) return true;
    // No HTTP status is three digits above 599 (RFC 9110 §15): the backend's fault, said in the log line.
    if (statusCode > 599) {
      this.abort(new Error(`the backend answered with status ${statusCode}, outside 100–599`));
      return true;
    }
    this.resumeParser = resume;
    const headers = responseHeaders(rawHeaders);
    const res = new BackendAnswer(statusCode, headers, (err) => void this.abort(err));
    this.response = res;
    this.discard = !this.call.answered(this, res);
    // RFC 9110 §6.4.1: 204 and 304 never have a body, whatever Content-Length says (a 304's is the length
    // of the representation it does not carry; a 204 must not have one). The answer ends with its head, and
    // what undici says next (it takes the missing bytes for a short body and closes the connection) is not
    // this call's concern. After HEAD undici itself expects no body.
    if (statusCode === 204 || statusCode === 304) {
      if (statusCode === 204) delete headers['content-length'];
      this.bodiless = true;
      if (!this.discard) res.end();
    }
    return true;
  }

  /** The answer's head led to another hop after all (a redirect resolved late): what is held of its body is dropped, the rest read and dropped. */
  drop(): void {
    this.discard = true;
    this.response?.drop();
  }

  onData(chunk: Buffer): boolean {
    const res = this.response;
    if (res === undefined || this.discard || this.bodiless) return true;
    countRelayed(chunk.length);
    return res.data(chunk, this.resumeParser!);
  }

  onComplete(): void {
    this.finish();
    const res = this.response;
    if (res === undefined || this.discard || this.bodiless) return;
    res.end();
  }

  onError(err: Error): void {
    this.finish();
    const res = this.response;
    if (res === undefined) return this.call.failed(this, err);
    if (!this.discard && !this.bodiless) res.fail(err);
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.pool.release();
  }
}

const KEEP = { reset: false } as const;

/** undici's error codes the failure mapping reads. */
const CONNECT_TIMEOUT = 'UND_ERR_CONNECT_TIMEOUT';
const HEADERS_TIMEOUT = 'UND_ERR_HEADERS_TIMEOUT';
const BODY_TIMEOUT = 'UND_ERR_BODY_TIMEOUT';
const SOCKET_CLOSED = 'UND_ERR_SOCKET';

/** The backend closed a connection that had carried earlier answers, before answering this request. */
function onStaleConnection(err: Error): boolean {
  const { code, socket } = err as Error & { code?: string; socket?: { bytesRead?: number } };
  // "bad response": the backend sent an answer undici will not read (a 100 cut across reads): not a race.
  return code === SOCKET_CLOSED && (socket?.bytesRead ?? 0) > 0 && err.message !== 'bad response';
}

const MAX_REDIRECTS = 20;
/** A refused request whose body is left unread: the client's connection is not kept for another. */
const CLOSE = { connection: 'close' };
/** Methods sent without framing when they carry no body (the others get Content-Length: 0). */
const BODILESS = new Set(['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE']);

/** The path and query sent: the endpoint's path (plus the request path with forwardPath), its own query, else the client's. */
function targetPath(endpoint: BackendEndpoint, path: unknown, query: unknown): string {
  const base = endpoint.options.forwardPath && typeof path === 'string' ? endpoint.path + forwardablePath(path) : endpoint.path;
  if (endpoint.search !== '') return base + endpoint.search;
  return typeof query === 'string' && query !== '' ? `${base}?${query}` : base;
}

function toPayload(body: unknown): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body);
  return JSON.stringify(body);
}
