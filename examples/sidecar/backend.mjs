// A stand-in for the service behind the facade: it keeps pets in memory and answers with what it received,
// so the forwarded request can be seen. Usage: node backend.mjs PORT
import { createServer } from 'node:http';

const pets = new Map([[1, { id: 1, name: 'doggie', photoUrls: [], status: 'available' }]]);
const port = Number(process.argv[2] ?? 9000);

createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const seen = { method: req.method, url: req.url, forwarded: req.headers.forwarded, via: req.headers.via };
    const answer = (status, value) => {
      res.writeHead(status, { 'content-type': 'application/json', 'x-backend-seen': JSON.stringify(seen) });
      res.end(JSON.stringify(value));
    };
    const id = /^\/api\/v3\/pet\/(\d+)$/.exec(req.url ?? '')?.[1];
    if (req.method === 'GET' && id !== undefined) {
      const pet = pets.get(Number(id));
      return pet ? answer(200, pet) : answer(404, { message: `no pet ${id}` });
    }
    if (req.method === 'POST' && req.url === '/api/v3/pet') {
      const pet = { ...JSON.parse(body), id: pets.size + 1 };
      pets.set(pet.id, pet);
      return answer(200, pet);
    }
    answer(404, { message: 'not served here' });
  });
}).listen(port, '127.0.0.1', () => console.log(`backend on http://127.0.0.1:${port}`));
