// Issue 25's yardsticks for forwarding: the least a proxy on node:http can do. A node:http server that sends
// every request on to the backend on BENCH_BACKEND_PORT with no routing, validation or header rules, and
// streams the answer back. BENCH_PROXY_CLIENT picks the backend client: `undici` (a keep-alive Pool, the
// client fetch and @fastify/reply-from sit on) or `http` (http.request on a keep-alive Agent).
import { Agent, createServer, request } from 'node:http';
import { Pool } from 'undici';

const port = Number(process.env.BENCH_BACKEND_PORT);
const client = process.env.BENCH_PROXY_CLIENT ?? 'undici';
const CONNECTIONS = 64;

/** Node's header list without the hop-by-hop fields (the minimum any proxy must drop). */
function endToEnd(headers) {
  const out = {};
  for (const name in headers) if (name !== 'connection' && name !== 'keep-alive' && name !== 'transfer-encoding' && name !== 'host') out[name] = headers[name];
  return out;
}

function viaUndici() {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONNECTIONS, pipelining: 1 });
  return (req, res) => {
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    pool.request({ method: req.method, path: req.url, headers: endToEnd(req.headers), body: hasBody ? req : null }).then(
      ({ statusCode, headers, body }) => {
        res.writeHead(statusCode, endToEnd(headers));
        body.pipe(res);
      },
      () => {
        res.statusCode = 502;
        res.end();
      },
    );
  };
}

function viaHttp() {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS, maxFreeSockets: CONNECTIONS, scheduling: 'lifo' });
  return (req, res) => {
    const out = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: endToEnd(req.headers), agent }, (answer) => {
      res.writeHead(answer.statusCode, endToEnd(answer.headers));
      answer.pipe(res);
    });
    out.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(out);
  };
}

const server = createServer(client === 'http' ? viaHttp() : viaUndici());
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
