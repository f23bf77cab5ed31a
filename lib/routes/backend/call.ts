// One forwarded request: sent on the endpoint's keep-alive pool, the client's body streamed or sent whole,
// the answer streamed back or read whole; every failure mapped to one catalogue error (the origin in the log).
// The framing of what is sent is written here, never left to node: node frames a streamed DELETE, OPTIONS
// or TRACE body not at all, so a backend would read it as a request of its own (issue 21).
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { Readable } from 'node:stream';
import { Errors, SvcError, svcError } from '../../errors.js';
import { hasBody } from '../../http/body.js';
import { HeaderNames, type Exchange } from '../exchange.js';
import { StreamedBody, takeArrived } from '../streamed-body.js';
import { readBackendBody } from './body.js';
import { ConnectTimeout, QueueTimeout, type BackendContext } from './context.js';
import type { BackendEndpoint } from './endpoint.js';
import { backendError, shownOrigin } from './failure.js';
import { applyBackendResponse, backendRequestHeaders } from './headers.js';
import { forwardablePath } from './path.js';
import { redirectTarget, type Hop } from './redirects.js';

const METHOD = HeaderNames.METHOD;
const PATH = HeaderNames.PATH;
const QUERY = HeaderNames.QUERY;

/** Why a call was cut short by the facade itself (otherwise the backend failed it: 502). */
type Cut = 'timeout' | 'client' | 'tooLarge';

/**
 * Forwards the exchange and makes the backend's answer the exchange's. With `streamResponse` the body stays a
 * StreamedBody for the client; otherwise it is read whole (as a later step or response validation needs).
 */
export function forwardToBackend(endpoint: BackendEndpoint, ctx: BackendContext, ex: Exchange, streamResponse: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const call = new BackendCall(endpoint, ctx, ex, resolve, reject);
    const request = ex.request;
    if (request === undefined || ex.message.body !== request || request.complete) return call.run(streamResponse);
    // The client's body, still to stream: what came in the packets of its head is parsed once this turn of
    // the event loop has read them (a microtask would run between the parser's callbacks, too early), and a
    // body that has arrived whole by then is sent whole (no pipe to set up).
    setImmediate(() => {
      try {
        call.run(streamResponse);
      } catch (err) {
        reject(err);
      }
    });
  });
}

/** The calls under way for one client connection, all aborted when it closes (one listener per connection, not per call). */
const CALLS = Symbol('svc.backendCalls');
type ClientSocket = Socket & { [CALLS]?: Set<BackendCall> };

class BackendCall {
  private cut: Cut | undefined;
  private current: ClientRequest | undefined;
  private readonly client: ClientSocket | undefined;
  private readonly onTimeout = (): void => this.abort('timeout');

  constructor(
    private readonly endpoint: BackendEndpoint,
    private readonly ctx: BackendContext,
    private readonly ex: Exchange,
    private readonly resolve: () => void,
    private readonly reject: (err: unknown) => void,
  ) {
    this.client = ex.request?.socket;
  }

  /** Throws (so rejects) before anything is sent when the request cannot be forwarded. */
  run(streamResponse: boolean): void {
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
    // The headers are handed to node as they are, so the framing is written here, for every method alike:
    // a body sent whole has its length; a streamed one keeps the client's Content-Length only when it is the
    // client's own body (node's parser delivers exactly that many bytes, and stream() checks), else is chunked.
    let length: string | undefined;
    let chunked = false;
    const payload = upload !== undefined || !sendsBody ? undefined : toPayload(source);
    if (upload !== undefined) {
      const declared = upload === client ? client.headers['content-length'] : undefined;
      // As a number: node's parser allows leading zeros (`05`), which some backends read otherwise.
      if (declared !== undefined) length = String(Number(declared));
      if (Number(length) > ctx.maxBodySize) throw svcError(Errors.BODY_TOO_LARGE, ctx.maxBodySize);
      chunked = length === undefined;
    } else if (payload !== undefined) length = String(Buffer.byteLength(payload));
    else if (!BODILESS.has(method)) length = '0';
    const path = targetPath(endpoint, headers.get(PATH), headers.get(QUERY));
    const sent = backendRequestHeaders(ex, endpoint.host, ctx.trusted, length);
    if (chunked) sent.push('transfer-encoding', 'chunked');
    const hop: Hop = { endpoint, path, method, headers: sent, payload };
    this.watchClient();
    this.send(hop, upload, length === undefined ? undefined : Number(length), 0, false, streamResponse);
  }

  /** Sends one request; follows redirects when the endpoint says so (bodies sent whole only: a stream cannot be replayed). */
  private send(hop: Hop, upload: Readable | undefined, uploadLength: number | undefined, redirects: number, retried: boolean, streamResponse: boolean): void {
    // The client is gone already (its request failed to parse after its head): no backend connection is opened.
    if (this.cut !== undefined) return this.fail(new Error('the client closed its connection before the call was sent'));
    const { endpoint } = hop;
    const { timeout, connectTimeout } = this.endpoint.options;
    const request = endpoint.https ? httpsRequest : httpRequest;
    // `timeout` arms the socket's own inactivity timer; connectTimeout is read by the pool's connect (context.ts).
    const options = { host: endpoint.hostname, port: endpoint.port, method: hop.method, path: hop.path, headers: hop.headers, agent: this.ctx.agent(endpoint), servername: endpoint.servername ?? NO_SERVERNAME, timeout, connectTimeout };
    const req = request(options as RequestOptions);
    this.current = req;
    let answered = false;
    // The listener stays for the request's whole life: an error after the answer (a stalled body) must not
    // crash, and is the body's failure to report (when read whole) or the client's connection to cut.
    req.on('error', (err) => {
      if (answered) return;
      // A pooled connection the backend closed while this request was on its way (the keep-alive race):
      // an idempotent request that got no answer and whose body is at hand is sent once more, on a new one.
      if (req.reusedSocket && !retried && this.cut === undefined && upload === undefined && IDEMPOTENT.has(hop.method)) {
        this.send(hop, undefined, undefined, redirects, true, streamResponse);
        return;
      }
      this.fail(err);
    });
    req.on('timeout', this.onTimeout);
    req.on('response', (res: IncomingMessage) => {
      answered = true;
      const next = upload === undefined && this.endpoint.options.followRedirects && redirects < MAX_REDIRECTS ? redirectTarget(hop, res) : undefined;
      if (next === undefined) return this.answer(res, streamResponse);
      res.resume();
      this.send(next, undefined, undefined, redirects + 1, false, streamResponse);
    });
    if (upload !== undefined) this.stream(upload, req, uploadLength);
    else req.end(hop.payload);
  }

  /** The backend's answer becomes the exchange's; its body stays a stream, or is read whole first. */
  private answer(res: IncomingMessage, streamResponse: boolean): void {
    const { ex, ctx, endpoint } = this;
    applyBackendResponse(ex, res, HeaderNames.RESPONSE_CODE);
    const length = res.headers['content-length'] === undefined ? undefined : Number(res.headers['content-length']);
    const body = new StreamedBody(res, length, (target) => readBackendBody(res, target, ctx.options, endpoint.origin).catch((err: unknown) => Promise.reject(this.failure(err))));
    ex.message.body = body;
    if (streamResponse) {
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
   * Pipes the client's body to the backend, bounded by maxBodySize; a client that stops sending aborts the
   * call. With a Content-Length sent, a body that would not match it in size is cut instead of sent (the
   * listeners run before the pipe's: the backend never gets a byte past the announced length).
   */
  private stream(upload: Readable, req: ClientRequest, announced: number | undefined): void {
    const limit = this.ctx.maxBodySize;
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (announced !== undefined && size > announced) return this.abort('client');
      if (size <= limit) return;
      upload.off('data', onData);
      upload.unpipe(req);
      // Read and drop the rest, so the 413 reaches a client still sending.
      upload.resume();
      this.abort('tooLarge');
    };
    upload.on('data', onData);
    if (announced !== undefined) upload.once('end', () => size !== announced && this.abort('client'));
    upload.once('aborted', () => this.abort('client'));
    upload.once('error', () => this.abort('client'));
    upload.pipe(req);
  }

  private abort(cut: Cut): void {
    this.cut ??= cut;
    this.current?.destroy();
  }

  private failure(cause: unknown): SvcError {
    if (cause instanceof SvcError) return cause;
    const { options } = this.ctx;
    const { origin } = this.endpoint;
    if (cause instanceof QueueTimeout) {
      const retryAfter = String(Math.max(1, Math.ceil(options.queueTimeout / 1000)));
      return backendError(Errors.BACKEND_BUSY, [options.queueTimeout], origin, cause, { 'retry-after': retryAfter });
    }
    const cut = cause instanceof ConnectTimeout ? 'timeout' : this.cut;
    if (cut === 'tooLarge') return svcError(Errors.BODY_TOO_LARGE, this.ctx.maxBodySize);
    if (cut === 'client') return svcError(Errors.BODY_ABORTED);
    const shown = shownOrigin(origin, options.exposeOrigin);
    // The operator's log (never the client, unless exposeOrigin) learns the origin and the cause.
    if (cut === 'timeout') return backendError(Errors.BACKEND_TIMEOUT, [shown], origin, cause instanceof ConnectTimeout ? cause : `no byte within ${this.endpoint.options.timeout} ms`);
    return backendError(Errors.BACKEND_FAILED, [shown], origin, cause);
  }
}

const MAX_REDIRECTS = 20;
/** A refused request whose body is left unread: the client's connection is not kept for another. */
const CLOSE = { connection: 'close' };
/** No SNI (http, or an IP address): said outright, else node's agent works it out again on every request. */
const NO_SERVERNAME = '';
/** RFC 9110 §9.2.2: methods a client may send again after a connection failure (QUERY: RFC 10008 §2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE', 'QUERY']);
/** Methods node sends without framing when they carry no body (for the others it writes Content-Length: 0). */
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
