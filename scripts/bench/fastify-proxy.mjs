// The forwarding bench's peer: @fastify/http-proxy in front of the backend on BENCH_BACKEND_PORT. With
// BENCH_PEER_FORWARDED=1 it also sends the Forwarded, X-Forwarded-* and Via headers the facade sends (through
// reply-from's rewriteRequestHeaders), so the backend does the same work behind both.
import { importPeer } from './peers.mjs';

const { default: fastify } = await importPeer('fastify');
const { default: proxy } = await importPeer('@fastify/http-proxy');
const app = fastify({ logger: false });
const forwarded = process.env.BENCH_PEER_FORWARDED === '1';
const rewriteRequestHeaders = (req, headers) => {
  const peer = req.socket.remoteAddress;
  return {
    ...headers,
    forwarded: `for=${peer};host="${req.headers.host}";proto=http`,
    'x-forwarded-for': peer,
    'x-forwarded-proto': 'http',
    'x-forwarded-host': req.headers.host,
    via: '1.1 fastify',
  };
};
await app.register(proxy, { upstream: `http://127.0.0.1:${process.env.BENCH_BACKEND_PORT}`, ...(forwarded && { replyOptions: { rewriteRequestHeaders } }) });
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on http://127.0.0.1:${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
