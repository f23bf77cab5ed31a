// The least facade: a node:http server doing, by hand and nothing more, what the facade must do for every
// request of the peer scenarios. What the facade must do is fixed by its design and its issues: find the
// operation with a find-my-way router built from the contract's paths; give the request a fresh id
// (a v4 UUID, made as the facade makes them) and send it back; validate the request (peer-a: the integer path parameter;
// peer-b: the Content-Type and Accept, the body's JSON against `Pet` with ajv; peer-c: the query's two
// string parameters, each at most once); count the answer in the metrics (two clock reads, a duration
// histogram). No exchange, no route steps, no general writer, no error answers beyond a bare 400/404/405/415.
// Its answers are the facade's bytes (the id aside), so the bench checks them like any server's.
//
// Beside the floor it shows how much of what separates the facade from the floor is the required work
// itself: floor/least is the most facade/floor can reach without dropping a feature (docs/performance.md).
import { createServer } from 'node:http';
import { randomFillSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import FindMyWay from 'find-my-way';
import { Ajv } from 'ajv';
import formatsModule from 'ajv-formats';

const contract = JSON.parse(readFileSync(new URL('../../spec/petstore-v3.json', import.meta.url), 'utf8'));
const PET_JSON = '{"id":1,"name":"doggie","status":"available","photoUrls":[]}';

const ajv = new Ajv({ strict: false, allErrors: false });
(formatsModule.default ?? formatsModule)(ajv);
ajv.addSchema({ $id: 'petstore', components: contract.components });
const validPet = ajv.compile({ $ref: 'petstore#/components/schemas/Pet' });

/**
 * LEAST_WITHOUT=id,metrics,validation leaves those parts out (a constant id; no clock reads or histogram;
 * no check, the body still read whole and echoed), to price each part of the required work on the wire.
 */
const without = new Set((process.env.LEAST_WITHOUT ?? '').split(',').filter(Boolean));
const withId = !without.has('id');
const withMetrics = !without.has('metrics');
const validating = !without.has('validation');
const CONSTANT_ID = '19f4c6a7-e67d-4172-b0a8-a70eb58da364';

/**
 * A fresh version 4 UUID, made as cheaply as the facade makes its own (lib/message/uuid.ts): random bytes
 * for 128 ids at once, their hex digits written pairwise into one buffer, each id a slice of its text.
 * crypto.randomUUID() measured 0.3 µs a request more on the wire.
 */
const ID_TEMPLATE = '00000000-0000-0000-0000-000000000000';
const ID_DIGITS_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
const HEX_PAIRS = Uint16Array.from({ length: 256 }, (_, b) => ('0123456789abcdef'.charCodeAt(b >> 4) << 8) | '0123456789abcdef'.charCodeAt(b & 15));
const idBytes = Buffer.alloc(16 * 128);
const idText = Buffer.from(ID_TEMPLATE.repeat(128), 'latin1');
const idView = new DataView(idText.buffer, idText.byteOffset, idText.length);
let ids = '';
let nextId = 128;
function freshId() {
  if (nextId === 128) {
    randomFillSync(idBytes);
    for (let id = 0; id < 128; id++) {
      idBytes[16 * id + 6] = (idBytes[16 * id + 6] & 0x0f) | 0x40;
      idBytes[16 * id + 8] = (idBytes[16 * id + 8] & 0x3f) | 0x80;
      for (let i = 0; i < 16; i++) idView.setUint16(36 * id + ID_DIGITS_AT[i], HEX_PAIRS[idBytes[16 * id + i]]);
    }
    ids = idText.toString('latin1');
    nextId = 0;
  }
  const start = 36 * nextId++;
  return ids.slice(start, start + 36);
}

const INTEGER = /^(?:0|-?[1-9][0-9]{0,14})$/;
const ACCEPTED_ID = /^[A-Za-z0-9._~:@+=/-]{1,128}$/;

/** The metrics the facade keeps per operation: answers, a duration histogram (Prometheus' default buckets). */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const metrics = { inFlight: 0, answered: 0, sum: 0, counts: new Float64Array(BUCKETS.length + 1) };
function observe(started) {
  if (!withMetrics) return;
  const seconds = (performance.now() - started) / 1000;
  let i = 0;
  while (i < BUCKETS.length && seconds > BUCKETS[i]) i++;
  metrics.counts[i]++;
  metrics.sum += seconds;
  metrics.answered++;
  metrics.inFlight--;
}

function answer(res, id, status, type, body, started) {
  res.writeHead(status, { 'x-request-id': id, 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
  observe(started);
}

function refuse(res, id, status, started) {
  res.writeHead(status, { 'x-request-id': id, 'content-length': 0 });
  res.end();
  observe(started);
}

/** Each pair of the query, decoded; `null` when a name comes twice (the facade refuses a repeated scalar). */
function queryValues(query) {
  const values = {};
  if (query === '') return values;
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    const name = decode(eq === -1 ? part : part.slice(0, eq));
    const value = eq === -1 ? '' : decode(part.slice(eq + 1));
    values[name] = values[name] === undefined ? value : null;
  }
  return values;
}
const decode = (text) => (text.includes('%') || text.includes('+') ? decodeURIComponent(text.replace(/\+/g, ' ')) : text);

const operations = {
  getPetById: (req, res, id, params, _query, started) => {
    if (validating && !INTEGER.test(params.petId)) return refuse(res, id, 400, started);
    answer(res, id, 200, 'application/json', PET_JSON, started);
  },
  loginUser: (req, res, id, _params, query, started) => {
    const values = validating ? queryValues(query) : {};
    if (values.username === null || values.password === null) return refuse(res, id, 400, started);
    answer(res, id, 200, 'application/json', '"session-1"', started);
  },
  addPet: (req, res, id, _params, _query, started) => {
    const type = req.headers['content-type'];
    if (validating && type !== 'application/json' && !/^application\/json\s*(;|$)/i.test(type ?? '')) return refuse(res, id, 415, started);
    const accept = req.headers.accept;
    if (validating && accept !== undefined && accept !== 'application/json' && accept !== '*/*') return refuse(res, id, 406, started);
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)).toString('utf8');
      let pet;
      if (!validating) return answer(res, id, 200, 'application/json', text, started);
      try {
        pet = JSON.parse(text);
      } catch {
        return refuse(res, id, 400, started);
      }
      if (!validPet(pet)) return refuse(res, id, 400, started);
      answer(res, id, 200, 'application/json', text, started);
    });
  },
};

const router = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true });
for (const [template, item] of Object.entries(contract.paths)) {
  for (const method of ['get', 'put', 'post', 'delete']) {
    const op = item[method];
    if (op === undefined) continue;
    const serve = operations[op.operationId] ?? ((req, res, id, _p, _q, started) => refuse(res, id, 404, started));
    router.on(method.toUpperCase(), `/api/v3${template.replace(/\{([^}]+)\}/g, ':$1')}`, serve);
  }
}

const server = createServer((req, res) => {
  const started = withMetrics ? performance.now() : 0;
  metrics.inFlight++;
  const given = req.headers['x-request-id'];
  const id = !withId ? CONSTANT_ID : typeof given === 'string' && ACCEPTED_ID.test(given) ? given : freshId();
  const url = req.url;
  const q = url.indexOf('?');
  const found = router.find(req.method, q === -1 ? url : url.slice(0, q));
  if (found === null) return refuse(res, id, 404, started);
  found.handler(req, res, id, found.params, q === -1 ? '' : url.slice(q + 1), started);
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
