// The yardstick: a bare node:http server answering one fixed response, configured by env.
import { createServer } from 'node:http';

const status = Number(process.env.BARE_STATUS ?? 200);
const type = process.env.BARE_TYPE ?? 'application/json';
const body = process.env.BARE_BODY ?? '{}';
const server = createServer((req, res) => {
  // Read the request body like a real handler would, then answer.
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
