// The node:http server with the limits of SPEC §13 and a graceful stop.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Errors, svcError } from '../errors.js';
import type { ServerOptions } from '../config/model.js';

export type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export function createHttpServer(listener: RequestListener, options: ServerOptions): Server {
  const server = createServer(
    { requestTimeout: options.requestTimeout, headersTimeout: options.headersTimeout, keepAliveTimeout: options.keepAliveTimeout },
    listener,
  );
  // A malformed request line or header gets a plain 400 and the socket is closed, never an exception.
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    else socket.destroy();
  });
  return server;
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
