// Two stand-ins for the services behind the facade. Usage: node backend.mjs PORT steady|flaky
// steady answers every request; flaky answers 503 to every other request (the first included), as a
// backend behind a struggling load balancer might.
import { createServer } from 'node:http';

const port = Number(process.argv[2] ?? 9000);
const flaky = process.argv[3] === 'flaky';
let requests = 0;

createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const answer = (status, value) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
    };
    if (flaky && requests++ % 2 === 0) return answer(503, { message: 'try again' });
    if (req.url === '/api/v3/store/inventory') return answer(200, { available: 7 });
    if (req.method === 'GET') return answer(200, { id: 1, name: 'doggie', photoUrls: [], status: 'available' });
    answer(200, { id: 2, name: 'rex', photoUrls: [] });
  });
}).listen(port, '127.0.0.1', () => console.log(`backend on http://127.0.0.1:${port}`));
