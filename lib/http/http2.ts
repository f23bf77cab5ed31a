// HTTP/2 beside HTTP/1.1 on the same port (svc.server.http2, docs/production.md#http2). With TLS, ALPN picks:
// a connection that chose `h2` goes to an HTTP/2 server, the others stay with the HTTP/1.1 server. On
// cleartext, the first bytes of each connection are looked at: the HTTP/2 connection preface (prior
// knowledge, `curl --http2-prior-knowledge`) goes to HTTP/2, anything else to HTTP/1.1 as before. An
// `Upgrade: h2c` request stays HTTP/1.1 (lib/http/server.ts). The HTTP/2 server itself (http2-server.ts) is
// loaded with the first HTTP/2 connection.
import type { Server } from 'node:http';
import type { Http2Server, ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { ServerOptions } from '../config/model.js';
import type { RequestListener } from './server.js';

/** The first bytes of every HTTP/2 connection (RFC 9113 §3.4). */
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * Serves HTTP/2 on `server`'s port beside its HTTP/1.1. `server` is the listening one (http.Server on
 * cleartext, https.Server with TLS); its closeIdleConnections and closeAllConnections (what a graceful stop
 * calls) also close the HTTP/2 sessions: idle ones with GOAWAY once their streams are done, all at the end.
 */
export function attachHttp2(server: Server, listener: RequestListener, options: ServerOptions, secure: boolean): void {
  const sessions = new Set<ServerHttp2Session>();
  /** Connections not handed over yet: cleartext ones whose first bytes have not come, HTTP/2 ones while it loads. */
  const undecided = new Set<Socket>();
  let h2: Http2Server | undefined;
  let loading: Promise<Http2Server> | undefined;
  const toHttp2 = (socket: Socket): void => {
    if (h2 !== undefined) return void h2.emit('connection', socket);
    undecided.add(socket);
    loading ??= import('./http2-server.js').then((m) => (h2 = m.createHttp2Server(listener, options, sessions)));
    loading.then(
      (loaded) => {
        undecided.delete(socket);
        if (!socket.destroyed) loaded.emit('connection', socket);
      },
      () => socket.destroy(),
    );
  };

  const closeIdle = server.closeIdleConnections.bind(server);
  const closeAll = server.closeAllConnections.bind(server);
  server.closeIdleConnections = () => {
    closeIdle();
    for (const socket of undecided) socket.destroy();
    for (const session of sessions) if (!session.closed) session.close();
  };
  server.closeAllConnections = () => {
    closeAll();
    for (const socket of undecided) socket.destroy();
    for (const session of sessions) session.destroy();
  };

  if (secure) {
    // https.Server hands each established TLS connection to HTTP/1.1 on 'secureConnection'.
    const [http1] = server.listeners('secureConnection') as ((socket: TLSSocket) => void)[];
    server.removeAllListeners('secureConnection');
    server.on('secureConnection', (socket: TLSSocket) => {
      if (socket.alpnProtocol === 'h2') toHttp2(socket);
      else http1!.call(server, socket);
    });
  } else {
    const [http1] = server.listeners('connection') as ((socket: Socket) => void)[];
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      undecided.add(socket);
      socket.once('close', () => undecided.delete(socket));
      sniffPreface(socket, options.headersTimeout, (isHttp2) => {
        undecided.delete(socket);
        if (isHttp2) toHttp2(socket);
        else http1!.call(server, socket);
      });
    });
  }
}

/**
 * Reads a cleartext connection's first bytes (at most the preface's 24) and hands the socket on with them
 * put back. A client that sends nothing is closed after the headers timeout, as HTTP/1.1 would.
 */
function sniffPreface(socket: Socket, timeoutMs: number, handOver: (isHttp2: boolean) => void): void {
  let seen: Buffer = Buffer.alloc(0);
  const onError = (): void => void socket.destroy();
  const timer = timeoutMs > 0 ? setTimeout(() => socket.destroy(), timeoutMs) : undefined;
  timer?.unref();
  const decide = (isHttp2: boolean): void => {
    clearTimeout(timer);
    socket.off('data', onData);
    socket.off('error', onError);
    socket.pause();
    socket.unshift(seen);
    handOver(isHttp2);
    // HTTP/2 reads what is buffered itself (Http2Session takes the socket's pending bytes); HTTP/1.1 needs it flowing.
    if (!isHttp2) socket.resume();
  };
  const onData = (chunk: Buffer): void => {
    seen = seen.length === 0 ? chunk : Buffer.concat([seen, chunk]);
    const n = Math.min(seen.length, PREFACE.length);
    if (seen.compare(PREFACE, 0, n, 0, n) !== 0) return decide(false);
    if (n === PREFACE.length) decide(true);
  };
  socket.on('error', onError);
  socket.on('data', onData);
}
