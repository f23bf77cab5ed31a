// The node:http server with the limits of SPEC §13 and a graceful stop.
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Errors, staticProblem, svcError, type ErrorDef } from '../errors.js';
import type { ServerOptions } from '../config/model.js';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export function createHttpServer(listener: RequestListener, options: ServerOptions): Server {
  const server = createServer(
    {
      requestTimeout: options.requestTimeout,
      headersTimeout: options.headersTimeout,
      keepAliveTimeout: options.keepAliveTimeout,
      connectionsCheckingInterval: checkingInterval(options),
    },
    listener,
  );
  // Errors node finds before a request exists (a malformed request, a slow one, oversized headers) get the
  // status node itself would send, as a problem body, and the socket is closed, never an exception.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // As node's own handler: never write into a response that is already under way on this socket.
    const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy();
    socket.end(CLIENT_ERRORS[err.code ?? ''] ?? MALFORMED);
  });
  // CONNECT (tunnelling) never reaches request listeners; without this node would just drop the socket.
  server.on('connect', (_req, socket) => {
    if (socket.writable) socket.end(CONNECT_REFUSED);
    else socket.destroy();
  });
  return server;
}

/** A complete HTTP/1.1 problem response for a catalogue entry, written straight to the socket. */
function rawProblem(d: ErrorDef, extraHeaders = ''): Buffer {
  const body = staticProblem(d);
  const head = `HTTP/1.1 ${d.status} ${STATUS_CODES[d.status]}\r\n${extraHeaders}Content-Type: application/problem+json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
  return Buffer.concat([Buffer.from(head), body]);
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
