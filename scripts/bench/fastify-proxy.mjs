// The forwarding bench's peer: @fastify/http-proxy (defaults) in front of the backend on BENCH_BACKEND_PORT.
import { importPeer } from './peers.mjs';

const { default: fastify } = await importPeer('fastify');
const { default: proxy } = await importPeer('@fastify/http-proxy');
const app = fastify({ logger: false });
await app.register(proxy, { upstream: `http://127.0.0.1:${process.env.BENCH_BACKEND_PORT}` });
await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on http://127.0.0.1:${app.server.address().port}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
