// Issue 25's yardsticks for forwarding: the least a proxy on node:http can do. A node:http server that sends
// every request on to the backend on BENCH_BACKEND_PORT with no routing, validation or header rules, and
// streams the answer back. BENCH_PROXY_CLIENT picks the backend client: `undici` (a keep-alive Pool, the
// client fetch and @fastify/reply-from sit on) or `http` (http.request on a keep-alive Agent).
// BENCH_PROXY_SAME_BYTES=1 makes it the forwarding floor: the same fields the facade adds, both ways (a
// request id, Forwarded, X-Forwarded-*, Via, the path parameter as a header; X-Request-Id and Via on the
// answer), with no routing, validation or header rules: the most the facade can reach on node:http + undici.
import { randomUUID } from 'node:crypto';
import { Agent, createServer, request } from 'node:http';
import { Pool } from 'undici';

const sameBytes = process.env.BENCH_PROXY_SAME_BYTES === '1';

const port = Number(process.env.BENCH_BACKEND_PORT);
const client = process.env.BENCH_PROXY_CLIENT ?? 'undici';
const CONNECTIONS = 64;

/** Node's header list without the hop-by-hop fields (the minimum any proxy must drop). */
function endToEnd(headers) {
  const out = {};
  for (const name in headers) if (name !== 'connection' && name !== 'keep-alive' && name !== 'transfer-encoding' && name !== 'host') out[name] = headers[name];
  return out;
}

/** The request's fields to the backend; with sameBytes, also those the facade adds. */
function toBackend(req, id) {
  const out = endToEnd(req.headers);
  if (!sameBytes) return out;
  const peer = req.socket.remoteAddress;
  out.petid = '1';
  out['x-request-id'] = id;
  out.forwarded = `for=${peer};host="${req.headers.host}";proto=http`;
  out['x-forwarded-for'] = peer;
  out['x-forwarded-proto'] = 'http';
  out['x-forwarded-host'] = req.headers.host;
  out.via = '1.1 svc-facade';
  return out;
}

/** The answer's fields to the client; with sameBytes, the request id and Via first, as the facade sends them. */
function toClient(headers, id) {
  if (!sameBytes) return endToEnd(headers);
  return { 'x-request-id': id, ...endToEnd(headers), via: '1.1 svc-facade' };
}

function viaUndici() {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: CONNECTIONS, pipelining: 1 });
  return (req, res) => {
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
    const id = sameBytes ? randomUUID() : undefined;
    pool.request({ method: req.method, path: req.url, headers: toBackend(req, id), body: hasBody ? req : null }).then(
      ({ statusCode, headers, body }) => {
        res.writeHead(statusCode, toClient(headers, id));
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
