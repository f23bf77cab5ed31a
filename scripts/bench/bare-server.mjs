// The yardstick: a bare node:http server answering one fixed response, configured by env.
// With BARE_REQUEST_ID it is the floor of the peer scenarios instead: the least a server sending the same
// bytes as the facade can do on node:http (that constant id as X-Request-Id, no routing, no validation, and a
// request without a body answered at once, as the facade and the peers answer one).
// With BARE_COUNT_PATH it also counts the requests it answers and tells the count (text/plain) to a GET of
// that path, which is not counted: the bench asks it whether a facade sent any request twice.
import { createServer } from 'node:http';

const status = Number(process.env.BARE_STATUS ?? 200);
const type = process.env.BARE_TYPE ?? 'application/json';
const body = process.env.BARE_BODY ?? '{}';
const requestId = process.env.BARE_REQUEST_ID;

const bare = (req, res) => {
  // Read the request body like a real handler would, then answer.
  req.on('data', () => {});
  req.on('end', () => {
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
};

const answerWithId = (res) => {
  res.writeHead(status, { 'x-request-id': requestId, 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
};

const floor = (req, res) => {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return answerWithId(res);
  req.on('data', () => {});
  req.on('end', () => answerWithId(res));
};

const answer = requestId === undefined ? bare : floor;
const countPath = process.env.BARE_COUNT_PATH;
let answered = 0;
const counting = (req, res) => {
  if (req.url !== countPath) {
    answered++;
    return answer(req, res);
  }
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end(String(answered));
};

const server = createServer(countPath === undefined ? answer : counting);
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
