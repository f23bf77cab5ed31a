// The node:http server with the limits of docs/security.md#hostile-input and a graceful stop.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { TlsOptions } from 'node:tls';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { Errors, staticProblem, svcError, type ErrorDef } from '../util/errors.js';
import type { ServerOptions } from '../config/model.js';
import { connectionOptions } from './fields.js';
import { boundedPipelining } from './pipelining.js';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

/** With `tls`, an https.Server (a TLS server handing each connection to the same HTTP/1.1 machinery). */
export function createHttpServer(listener: RequestListener, options: ServerOptions, tls?: TlsOptions): Server {
  // No protocol upgrade is offered, so there is no 'upgrade' listener: node then serves an upgrade request
  // (WebSocket, or the h2c upgrade that curl --http2 and Java's HttpClient attempt on http://) as a plain
  // one, as RFC 9110 §7.8 allows. But its parser stops after that request and drops, unanswered, what the
  // client pipelined behind it in the same packet, while it parses later packets again: the client and the
  // facade would no longer agree on which answer belongs to which request. So the connection closes after
  // that answer, and nothing that arrives behind the request is served (RFC 9112 §9.6).
  const upgradeAsked = new WeakSet<object>();
  const serve = boundedPipelining(listener, options.requestTimeout);
  const http1 = {
    requestTimeout: options.requestTimeout,
    headersTimeout: options.headersTimeout,
    keepAliveTimeout: options.keepAliveTimeout,
    connectionsCheckingInterval: checkingInterval(options),
  };
  const create = tls === undefined ? createServer : (opts: typeof http1, handler: RequestListener): Server => createHttpsServer({ ...tls, ...opts }, handler) as unknown as Server;
  const server = create(
    http1,
    (req, res) => {
      if (upgradeAsked.has(req.socket)) return; // left unanswered: the connection closes after the previous answer
      // The Connection field listing `upgrade` is what makes node's parser stop after the request.
      if (req.headers.upgrade !== undefined && connectionOptions(req.headers.connection).includes('upgrade')) {
        upgradeAsked.add(req.socket);
        res.setHeader('connection', 'close');
      }
      serve(req, res);
    },
  );
  // Errors node finds before a request exists (a malformed request, a slow one, oversized headers) get the
  // status node itself would send, as a problem body, and the socket is closed, never an exception.
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // As node's own handler: never write into a response that is already under way on this socket.
    const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy();
    answerAndClose(socket, CLIENT_ERRORS[err.code ?? ''] ?? MALFORMED);
  });
  // CONNECT (tunnelling) never reaches request listeners; without this node would just drop the socket.
  server.on('connect', (_req, socket: Duplex) => refuseTunnel(socket, CONNECT_REFUSED));
  return server;
}

/** A complete HTTP/1.1 problem response for a catalogue entry, written straight to the socket. */
function rawProblem(d: ErrorDef, extraHeaders = ''): Buffer {
  const body = staticProblem(d);
  const head = `HTTP/1.1 ${d.status} ${STATUS_CODES[d.status]}\r\n${extraHeaders}Content-Type: application/problem+json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
}

/**
 * How long a socket that got a final answer on the raw socket stays open for its client to read it and close:
 * long enough for any client that reads, short enough that a client that never reads nor closes (slowloris)
 * holds a file descriptor for at most this long after its timeout.
 */
const LINGER_MS = 1000;

const ignore = (): void => undefined;

/**
 * Writes `answer` (with Connection: close) as the socket's last bytes and closes it: destroyed as soon as the
 * client closes its side, or after LINGER_MS in any case. Not destroyed at once: a reset sent while request
 * bytes are still unread on our side can make the client's kernel discard the answer before it is read.
 */
function answerAndClose(socket: Duplex, answer: Buffer): void {
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  socket.once('end', () => socket.destroy());
  socket.end(answer);
}

/**
 * Refuses a socket node handed over with the `connect` event. Node has taken its own error listener off
 * such a socket: without one, a client resetting it is an uncaught exception that ends the process. The
 * socket comes paused: what the client still sends is read and dropped, so that its close is seen.
 */
function refuseTunnel(socket: Duplex, answer: Buffer): void {
  socket.on('error', ignore);
  if (!socket.writable) return void socket.destroy();
  answerAndClose(socket, answer);
  socket.resume();
}

const MALFORMED = rawProblem(Errors.MALFORMED_REQUEST);
const CONNECT_REFUSED = rawProblem(Errors.METHOD_NOT_ALLOWED);
const CLIENT_ERRORS: Record<string, Buffer> = {
  ERR_HTTP_REQUEST_TIMEOUT: rawProblem(Errors.REQUEST_TIMEOUT),
  HPE_HEADER_OVERFLOW: rawProblem(Errors.HEADERS_TOO_LARGE),
};

/**
 * Node checks the headers and request timeouts only every `connectionsCheckingInterval` (30 s by default),
 * so a 10 s headers timeout could fire after 40 s: check often enough that each fires within a second or a
 * tenth of its value.
 */
function checkingInterval(options: ServerOptions): number {
  const shortest = Math.min(...[options.headersTimeout, options.requestTimeout].filter((t) => t > 0), 10_000);
  return Math.max(10, Math.min(1000, Math.floor(shortest / 10)));
}

export function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => reject(svcError(Errors.LISTEN_FAILED, host, port, err.message));
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve(server.address() as AddressInfo);
    });
  });
}

/** Stops accepting, lets in-flight requests finish for up to `timeoutMs`, then closes what is left. */
export function closeGracefully(server: Server, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    // A request still arriving on a kept-alive connection is answered, and its connection closed after.
    server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => res.setHeader('connection', 'close'));
    // Node closes only the connections idle right now; those serving in-flight requests turn idle later and
    // would otherwise linger for the keep-alive timeout.
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
    timer.unref();
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
