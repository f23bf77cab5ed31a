#!/usr/bin/env node
// The facade's own CPU per request, without the kernel: node's real HTTP parser and ServerResponse on an
// in-memory socket, the built facade and the floor handler (the facade's bytes, no routing, no validation) in one process, loads interleaved, medians. Steadier
// than `npm run bench` on a busy machine (no loopback syscalls, no load generator sharing the cores), so it
// shows changes of a tenth of a microsecond; the bench's figures remain the ones to report.
//
//   node scripts/bench/inprocess.mjs                         scenarios a,b,c,route,mock,synth
//   node scripts/bench/inprocess.mjs a,c --against /tmp/old/dist   also a previous build (its dist/ folder)
//   node scripts/bench/inprocess.mjs cors,apikey              a feature's cost: the facade with it against the same facade without
//   node scripts/bench/inprocess.mjs a,b,c --env '{"SVC_OBSERVE_METRICS":"false"}'   every facade with these settings too
//   options: --requests N (per round, 50000), --rounds N (7)
import { createServer } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { Duplex } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { API_KEY, API_KEY_ENV } from './apikey.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const N = Number(opt('requests', 50_000));
const ROUNDS = Number(opt('rounds', 7));
const against = opt('against', undefined);
/** Settings put on top of every scenario's own (a part turned off, to see what it costs). */
const extraEnv = JSON.parse(opt('env', '{}'));
const PET_JSON = '{"id":1,"name":"doggie","status":"available","photoUrls":[]}';
const GET_PET = 'GET /api/v3/pet/1 HTTP/1.1\r\nHost: x\r\n\r\n';
const GET_PET_JSON = 'GET /api/v3/pet/1 HTTP/1.1\r\nHost: x\r\naccept: application/json\r\n\r\n';
const POST_PET = `POST /api/v3/pet HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\naccept: application/json\r\ncontent-length: ${PET_JSON.length}\r\n\r\n${PET_JSON}`;
const VALIDATING = { SVC_REST_CLIENTREQUESTVALIDATION: 'true' };

/** The npm run bench scenarios of the same names; `bare` is the request the bare handler gets for comparison. */
const SCENARIOS = {
  a: { config: 'route.yaml', env: VALIDATING, request: GET_PET, bare: GET_PET },
  b: { config: 'route.yaml', env: VALIDATING, request: POST_PET, bare: POST_PET },
  c: { config: 'route.yaml', env: VALIDATING, request: 'GET /api/v3/user/login?username=a&password=b HTTP/1.1\r\nHost: x\r\n\r\n', bare: GET_PET },
  route: { config: 'route.yaml', env: {}, request: GET_PET, bare: GET_PET },
  mock: { config: 'mock.yaml', env: {}, request: GET_PET_JSON, bare: GET_PET_JSON },
  synth: { config: 'mock-synth.yaml', env: {}, request: GET_PET_JSON, bare: GET_PET_JSON },
  // Features against the facade without them (`base`), as npm run bench's scenarios of the same names.
  cors: { config: 'route.yaml', env: { SVC_REST_ENABLECORS: 'true' }, request: 'GET /api/v3/pet/1 HTTP/1.1\r\nHost: x\r\norigin: https://app.example\r\n\r\n', bare: GET_PET, base: {} },
  apikey: { config: 'route.yaml', env: API_KEY_ENV, request: `GET /api/v3/pet/1 HTTP/1.1\r\nHost: x\r\napi_key: ${API_KEY}\r\n\r\n`, bare: GET_PET, base: {} },
};
const chosen = (args[0] && !args[0].startsWith('--') ? args[0] : Object.keys(SCENARIOS).join(',')).split(',');

/** A socket that hands each response to `answered` and drops the bytes. */
class MemorySocket extends Duplex {
  constructor(answered) {
    super({ allowHalfOpen: true });
    this.answered = answered;
    this.remoteAddress = '127.0.0.1';
  }
  _read() {}
  _write(chunk, _encoding, callback) {
    if (chunk.length > 0) this.answered();
    callback();
  }
  _writev(_chunks, callback) {
    this.answered();
    callback();
  }
  setTimeout() {
    return this;
  }
  setNoDelay() {
    return this;
  }
  setKeepAlive() {
    return this;
  }
}

/** Sends `n` requests one after the other on one kept-alive connection; resolves with the CPU µs per request. */
function load(server, request, n) {
  return new Promise((done) => {
    const bytes = Buffer.from(request);
    let left = n;
    let queued = false;
    const cpu = process.cpuUsage();
    const next = () => {
      queued = false;
      if (left-- > 0) return void socket.push(bytes);
      const used = process.cpuUsage(cpu);
      socket.destroy();
      done((used.user + used.system) / n);
    };
    const socket = new MemorySocket(() => {
      if (queued) return;
      queued = true;
      setImmediate(next);
    });
    server.emit('connection', socket);
    next();
  });
}

// The floor of the peer scenarios (scripts/bench/bare-server.mjs with BARE_REQUEST_ID): the facade's bytes, a
// constant X-Request-Id, a request without a body answered at once.
const FLOOR_REQUEST_ID = '19f4c6a7-e67d-4172-b0a8-a70eb58da364';
const answerWithId = (res) => {
  res.writeHead(200, { 'x-request-id': FLOOR_REQUEST_ID, 'content-type': 'application/json', 'content-length': PET_JSON.length });
  res.end(PET_JSON);
};
const bare = createServer((req, res) => {
  if (req.headers['content-length'] === undefined && req.headers['transfer-encoding'] === undefined) return answerWithId(res);
  req.on('data', () => {});
  req.on('end', () => answerWithId(res));
});

const systems = [];
for (const [label, dist] of [['facade', join(root, 'dist')], ...(against ? [['against', resolve(against)]] : [])]) {
  const { createFacade, silentLogger } = await import(pathToFileURL(join(dist, 'index.js')).href);
  for (const key of chosen) {
    const s = SCENARIOS[key];
    if (s === undefined) throw new Error(`no scenario ${key}: ${Object.keys(SCENARIOS).join(', ')}`);
    const facade = await createFacade(join(root, 'scripts/bench', s.config), { env: { ...s.env, ...extraEnv }, logger: silentLogger });
    const system = { name: `${key} ${label}`, server: createServer({ keepAliveTimeout: 5000 }, facade.handler), request: s.request, bare: s.bare, runs: [] };
    if (s.base !== undefined) {
      const base = await createFacade(join(root, 'scripts/bench', s.config), { env: s.base, logger: silentLogger });
      system.base = { server: createServer({ keepAliveTimeout: 5000 }, base.handler), request: s.request, runs: [] };
    }
    systems.push(system);
  }
}
const bares = [...new Set(systems.map((s) => s.bare))].map((request) => ({ request, runs: [] }));

const bases = systems.flatMap((s) => (s.base === undefined ? [] : [s.base]));
for (const s of [...systems, ...bases, ...bares]) await load(s.server ?? bare, s.request, 20_000); // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const b of bares) b.runs.push(await load(bare, b.request, N));
  for (const s of systems) {
    s.runs.push(await load(s.server, s.request, N));
    if (s.base !== undefined) s.base.runs.push(await load(s.base.server, s.base.request, N));
  }
}
const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];
console.log(`CPU µs per request, medians of ${ROUNDS} rounds of ${N} requests (overhead: over the floor handler given the same request: the facade's bytes with a constant X-Request-Id)`);
for (const s of systems) {
  const base = median(bares.find((b) => b.request === s.bare).runs);
  console.log(`  ${s.name.padEnd(16)} ${median(s.runs).toFixed(2).padStart(6)}   overhead ${(median(s.runs) - base).toFixed(2).padStart(5)}   (floor ${base.toFixed(2)}, facade/floor ${(base / median(s.runs)).toFixed(3)})`);
  if (s.base !== undefined) {
    const without = median(s.base.runs);
    console.log(`  ${''.padEnd(16)} the feature: +${(median(s.runs) - without).toFixed(2)} µs over the same facade without it (${without.toFixed(2)})`);
  }
}
