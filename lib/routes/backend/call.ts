// One forwarded request: sent on the endpoint's keep-alive pool, the client's body streamed or sent whole,
// the answer streamed back or read whole; every failure mapped to one catalogue error naming only the origin.
import { request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { Errors, SvcError, svcError, type ErrorDef } from '../../errors.js';
import { HeaderNames, type Exchange } from '../exchange.js';
import { StreamedBody } from '../streamed-body.js';
import { readBackendBody } from './body.js';
import type { BackendContext } from './context.js';
import type { BackendEndpoint } from './endpoint.js';
import { applyBackendResponse, backendRequestHeaders } from './headers.js';
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
  return new BackendCall(endpoint, ctx, ex).run(streamResponse);
}

class BackendCall {
  private cut: Cut | undefined;
  private current: ClientRequest | undefined;
  private readonly client;

  constructor(
    private readonly endpoint: BackendEndpoint,
    private readonly ctx: BackendContext,
    private readonly ex: Exchange,
  ) {
    this.client = ex.request?.socket;
  }

  run(streamResponse: boolean): Promise<void> {
    const { ex, ctx, endpoint } = this;
    const headers = ex.message.headers;
    const method = String(headers.get(METHOD) ?? (ex.message.body == null ? 'GET' : 'POST')).toUpperCase();
    const source = ex.message.body;
    const upload = source instanceof Readable ? source : undefined;
    const announced = upload === ex.request ? ex.request?.headers['content-length'] : undefined;
    if (upload !== undefined && Number(announced) > ctx.maxBodySize) return Promise.reject(svcError(Errors.BODY_TOO_LARGE, ctx.maxBodySize));
    const payload = upload !== undefined || method === 'GET' || method === 'HEAD' ? undefined : toPayload(source);
    const outgoing = backendRequestHeaders(ex, ctx.trusted, announced);
    const hop: Hop = { endpoint, path: targetPath(endpoint, headers.get(PATH), headers.get(QUERY)), method, headers: outgoing, payload };
    const onClientGone = (): void => this.abort('client');
    this.client?.once('close', onClientGone);
    return this.send(hop, upload, 0)
      .then((res) => {
        applyBackendResponse(ex, res, HeaderNames.RESPONSE_CODE);
        const length = res.headers['content-length'] === undefined ? undefined : Number(res.headers['content-length']);
        const body = new StreamedBody(res, length, (target) => readBackendBody(res, target, ctx.options.maxResponseSize, endpoint.origin).catch((err: unknown) => Promise.reject(this.failure(err))));
        ex.message.body = body;
        if (streamResponse) return;
        return body.read(ex).then((value) => {
          ex.message.body = value;
        });
      })
      .finally(() => this.client?.off('close', onClientGone));
  }

  /** Sends one request; follows redirects when the endpoint says so (bodies sent whole only: a stream cannot be replayed). */
  private send(hop: Hop, upload: Readable | undefined, redirects: number, retried = false): Promise<IncomingMessage> {
    return new Promise<IncomingMessage>((resolve, reject) => {
      const { endpoint } = hop;
      const { timeout, connectTimeout } = this.endpoint.options;
      const request = endpoint.https ? httpsRequest : httpRequest;
      const req = request({ host: endpoint.hostname, port: endpoint.port, method: hop.method, path: hop.path, headers: hop.headers, agent: this.ctx.agent(endpoint), servername: endpoint.servername });
      this.current = req;
      if (this.cut !== undefined) req.destroy();
      let answered = false;
      // The listener stays for the request's whole life: an error after the answer (a stalled body) must not crash.
      req.on('error', (err) => {
        // A pooled connection the backend closed while this request was on its way (the keep-alive race):
        // an idempotent request that got no answer and whose body is at hand is sent once more, on a new one.
        if (!answered && req.reusedSocket && !retried && this.cut === undefined && upload === undefined && IDEMPOTENT.has(hop.method)) {
          this.send(hop, undefined, redirects, true).then(resolve, reject);
          return;
        }
        reject(this.failure(err));
      });
      req.setTimeout(timeout, () => this.abort('timeout'));
      req.once('socket', (socket) => {
        // A pooled socket is connected already; a new one has until connectTimeout (TLS handshake included).
        if (!socket.connecting) return;
        const timer = setTimeout(() => this.abort('timeout'), connectTimeout);
        socket.once(endpoint.https ? 'secureConnect' : 'connect', () => clearTimeout(timer));
        req.once('close', () => clearTimeout(timer));
      });
      req.once('response', (res) => {
        answered = true;
        const next = upload === undefined && this.endpoint.options.followRedirects && redirects < MAX_REDIRECTS ? redirectTarget(hop, res) : undefined;
        if (next === undefined) return resolve(res);
        res.resume();
        this.send(next, undefined, redirects + 1).then(resolve, reject);
      });
      if (upload !== undefined && hop.method !== 'GET' && hop.method !== 'HEAD') this.stream(upload, req);
      else req.end(hop.payload);
    });
  }

  /** Pipes the client's body to the backend, bounded by maxBodySize; a client that stops sending aborts the call. */
  private stream(upload: Readable, req: ClientRequest): void {
    const limit = this.ctx.maxBodySize;
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) return;
      upload.off('data', onData);
      upload.unpipe(req);
      // Read and drop the rest, so the 413 reaches a client still sending.
      upload.resume();
      this.abort('tooLarge');
    };
    upload.on('data', onData);
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
    const def: ErrorDef = this.cut === 'timeout' ? Errors.BACKEND_TIMEOUT : this.cut === 'tooLarge' ? Errors.BODY_TOO_LARGE : this.cut === 'client' ? Errors.BODY_ABORTED : Errors.BACKEND_FAILED;
    const err = this.cut === 'tooLarge' ? svcError(def, this.ctx.maxBodySize) : svcError(def, this.endpoint.origin);
    // The operator's log (never the client) learns the cause: a refused connection, a certificate, a reset.
    err.stack = `${err.stack}\nCaused by: ${(cause as NodeJS.ErrnoException)?.code ?? ''} ${(cause as Error)?.message ?? String(cause)}`;
    return err;
  }
}

const MAX_REDIRECTS = 20;
/** RFC 9110 §9.2.2: methods a client may send again after a connection failure (QUERY: RFC 10008 §2). */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE', 'QUERY']);

/** The path and query sent: the endpoint's path (plus the request path with forwardPath), its own query, else the client's. */
function targetPath(endpoint: BackendEndpoint, path: unknown, query: unknown): string {
  const base = endpoint.options.forwardPath && typeof path === 'string' ? endpoint.path + forwardablePath(path) : endpoint.path;
  if (endpoint.search !== '') return base + endpoint.search;
  return typeof query === 'string' && query !== '' ? `${base}?${query}` : base;
}

/**
 * A path a parameter matched may still say `..` (or `%2E%2E`, or `%2F` inside a segment): a backend that
 * normalizes it would be asked for a path outside the one the facade forwards to. Such a request is refused.
 */
const UNSAFE_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?=\/|$)|%2f|%5c|\\/i;

function forwardablePath(path: string): string {
  if (UNSAFE_SEGMENT.test(path)) throw svcError(Errors.FORWARD_PATH_UNSAFE);
  return path;
}

function toPayload(body: unknown): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body);
  return JSON.stringify(body);
}
