#!/usr/bin/env node
// Benchmarks the built facade against a bare node:http server answering the same response (or, for a scenario
// with a `baseline`, against the facade without the feature measured) and, where a scenario names one, a peer (Fastify + fastify-openapi-glue, or Prism's mock) on the same contract, in the
// same run, with autocannon on loopback; loads alternate between the servers for several rounds and medians
// are reported. Prints req/s, p99 latency and RSS of each, and the ratios; then start-to-first-answer and
// idle RSS of the Petstore (facade, peer, bare) and of the largest corpus contracts.
//
//   npm run bench                                  all scenarios: 3 rounds of 3 s per server
//   node scripts/bench.mjs --only login --rounds 5 --duration 5     scenarios whose key or name contains "login"
//   node scripts/bench.mjs --only peer-a,mock      scenarios matching any of the comma-separated texts
//   node scripts/bench.mjs --only startup          only the startup figures
//   node scripts/bench.mjs --only forward          the forwarding scenarios (facade vs @fastify/http-proxy)
//   node scripts/bench.mjs --only forward --forward-before ../old/dist/main.js   ... and another build of the facade
//   node scripts/bench.mjs --only stripe           only the startup figures whose name contains "stripe"
//   node scripts/bench.mjs --no-peers              without the peers (no install of scripts/bench/peers)
//   node scripts/bench.mjs --against /tmp/old/dist/main.js   also a previous build's facade, in the same interleaved run
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runForwarding } from './bench/forwarding.mjs';
import { prepareOAuth, verifyOAuth } from './bench/oauth.mjs';
import { prepareRelay } from './bench/streams-relay.mjs';
import { ensurePeers, PEERS_DIR } from './bench/peers.mjs';

// autocannon sends only the methods of its own list (RFC 7231's and PATCH); QUERY (RFC 10008, OpenAPI 3.2's
// `query` operation) is added to that list, which it reads on every request it builds.
const autocannonMethods = createRequire(import.meta.url)('autocannon/lib/httpMethods.js');
if (!autocannonMethods.includes('QUERY')) autocannonMethods.push('QUERY');

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bench = (name) => join(root, 'scripts/bench', name);
const main = join(root, 'dist/main.js');

const PET_JSON = '{"id":1,"name":"doggie","status":"available","photoUrls":[]}';
const SYNTHESIZED_PET = '{"id":10,"name":"doggie","category":{"id":1,"name":"Dogs"},"photoUrls":["string"],"tags":[{"id":0,"name":"string"}],"status":"available"}';
const SESSION_JSON = '"session-1"';
const VALIDATING = { SVC_REST_CLIENTREQUESTVALIDATION: 'true' };
const JSONL_100 = Array.from({ length: 100 }, (_, i) => `{"timestamp":"2025-09-23T10:00:00Z","level":${i % 5},"message":"entry ${i}"}\n`).join('');
const SSE_10 = Array.from({ length: 10 }, (_, i) => `event: tick\nid: ${i}\ndata: {"symbol":"ACME","price":${i}}\n\n`).join('');
const HAMSTER_JSON = '{"petType":"hamster","name":"Hammy","legs":4}';
const PET_XML = '<?xml version="1.0" encoding="UTF-8"?><pet><id>1</id><name>doggie</name><photoUrls></photoUrls><status>available</status></pet>';

/** Peers, started from scripts/bench/peers/; `path` maps the facade's request path to the peer's. */
const PEERS = {
  glue: { name: 'fastify-openapi-glue', command: () => bench('glue-server.mjs'), args: [] },
  // Prism serves the contract's paths without the server URL's base path.
  prism: { name: 'prism mock', command: () => join(PEERS_DIR, 'node_modules/.bin/prism'), args: ['mock', '-h', '127.0.0.1', '-p', '0', bench('mock-contract.yaml')], path: (p) => p.replace(/^\/api\/v3/, '') },
};

const MOCK_SYNTHESIZED = {
  name: 'mock: GET, body synthesized from the schema (static)',
  key: 'mock-synth',
  files: [bench('mock-synth.yaml')],
  request: { method: 'GET', path: '/api/v3/pet/1', headers: { accept: 'application/json' } },
  expect: { status: 200, type: 'application/json', body: SYNTHESIZED_PET },
};

/**
 * Each scenario: the facade's config files, the request, and the response the bare server gives back
 * (the same bytes the facade, and the peer if any, answer), so the ratios compare like with like.
 */
/** A Petstore scenario with request validation on, against fastify-openapi-glue; the routes answer JSON. */
const againstGlue = (name, key, request, body) => ({ name, key, files: [bench('route.yaml')], env: VALIDATING, peer: 'glue', request, expect: { status: 200, type: 'application/json', body } });

export const SCENARIOS = [
  againstGlue('a: GET /pet/1, route, validation on', 'peer-a', { method: 'GET', path: '/api/v3/pet/1' }, PET_JSON),
  // addPet has no route in route.yaml, so the facade answers with the body it was sent.
  againstGlue('b: POST /pet (valid Pet, body validated)', 'peer-b', { method: 'POST', path: '/api/v3/pet', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: PET_JSON }, PET_JSON),
  againstGlue('c: GET /user/login?username=a&password=b, validation on', 'peer-c', { method: 'GET', path: '/api/v3/user/login?username=a&password=b' }, SESSION_JSON),
  {
    name: 'route: GET, YAML setBody constant JSON',
    key: 'route',
    files: [bench('route.yaml')],
    request: { method: 'GET', path: '/api/v3/pet/1' },
    expect: { status: 200, type: 'application/json', body: PET_JSON },
  },
  {
    name: 'mock: GET, example from the contract',
    key: 'mock',
    files: [bench('mock.yaml')],
    peer: 'prism',
    request: { method: 'GET', path: '/api/v3/pet/1', headers: { accept: 'application/json' } },
    expect: { status: 200, type: 'application/json', body: PET_JSON },
  },
  MOCK_SYNTHESIZED,
  {
    // A fresh body per request; the bare server answers the static one, which is about the same size.
    ...MOCK_SYNTHESIZED,
    name: 'mock: GET, body synthesized per request (dynamic)',
    key: 'mock-dynamic',
    env: { SVC_REST_OPENAPI_MOCKDYNAMIC: 'true' },
    expect: { ...MOCK_SYNTHESIZED.expect, varies: true },
  },
  {
    name: 'JSON binding: GET, route returns a class instance',
    key: 'binding-json',
    files: [bench('binding.mjs')],
    request: { method: 'GET', path: '/api/v3/pet/1', headers: { accept: 'application/json' } },
    expect: { status: 200, type: 'application/json', body: PET_JSON },
  },
  {
    name: 'XML binding: GET, route returns a class instance',
    key: 'binding-xml',
    files: [bench('binding.mjs')],
    request: { method: 'GET', path: '/api/v3/pet/1', headers: { accept: 'application/xml' } },
    expect: { status: 200, type: 'application/xml', body: PET_XML },
  },
  {
    name: 'POST /pet validation off',
    key: 'validation-off',
    files: [bench('route.yaml')],
    env: { SVC_REST_CLIENTREQUESTVALIDATION: 'false' },
    request: { method: 'POST', path: '/api/v3/pet', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: PET_JSON },
    expect: { status: 200, type: 'application/json', body: PET_JSON },
  },
  {
    // OpenAPI 3.2 (issue 13): the pet's petType is unmapped, so `defaultMapping` names the schema checked.
    name: 'validation: POST, 3.2 discriminator falling back to defaultMapping (mock echo)',
    key: 'oas32-discriminator',
    files: [bench('oas32-content.yaml')],
    request: { method: 'POST', path: '/v1/pets', headers: { 'content-type': 'application/json' }, body: HAMSTER_JSON },
    expect: { status: 200, type: 'application/json', body: HAMSTER_JSON },
  },
  {
    // Compared with the same route served without a profile (baseline), not with the bare server.
    name: 'GET with a valid RS256 token',
    key: 'oauth',
    files: [bench('route.yaml')],
    prepare: prepareOAuth,
    verify: verifyOAuth,
    baseline: { files: [bench('route.yaml')] },
    request: { method: 'GET', path: '/api/v3/pet/1' },
    expect: { status: 200, type: 'application/json', body: PET_JSON },
  },
  {
    // Issue 13: 100 JSON Lines read item by item as they arrive, each checked against itemSchema.
    name: 'streams: POST 100 JSON Lines, each item validated',
    key: 'streams-jsonl',
    files: [bench('streams.mjs')],
    request: { method: 'POST', path: '/api/logs', headers: { 'content-type': 'application/jsonl' }, body: JSONL_100 },
    expect: { status: 200, type: 'application/json', body: '{"count":100}' },
  },
  {
    // Issue 13: a route's async generator written as 10 Server-Sent Events (chunked, item by item).
    name: 'streams: GET 10 Server-Sent Events from a generator',
    key: 'streams-sse',
    files: [bench('streams.mjs')],
    request: { method: 'GET', path: '/api/prices' },
    expect: { status: 200, type: 'text/event-stream', body: SSE_10 },
  },
  {
    // Issue 13: a backend's 100 JSON Lines relayed by to: http, each item checked as it passes (bare: the backend alone).
    name: 'streams: GET 100 JSON Lines relayed, each item validated',
    key: 'streams-relay',
    files: [bench('streams-relay.yaml')],
    prepare: prepareRelay,
    request: { method: 'GET', path: '/api/logs' },
    expect: { status: 200, type: 'application/jsonl', body: JSONL_100 },
  },
  {
    // The cost of metrics (on by default): the same route with metrics off is the baseline.
    name: 'metrics cost: GET route, metrics on vs off',
    key: 'metrics',
    files: [bench('route.yaml')],
    baseline: { files: [bench('route.yaml')], env: { SVC_OBSERVE_METRICS: 'false' }, label: 'metrics off' },
    request: { method: 'GET', path: '/api/v3/pet/1' },
    expect: { status: 200, type: 'application/json', body: PET_JSON },
  },
  {
    name: 'QUERY (OpenAPI 3.2): JSON body validated, route',
    key: 'query-method',
    files: [bench('query.yaml')],
    env: VALIDATING,
    request: { method: 'QUERY', path: '/products', headers: { 'content-type': 'application/json' }, body: '{"text":"lamp","limit":5}' },
    expect: { status: 200, type: 'application/json', body: '[{"id":1,"name":"lamp"}]' },
  },
  {
    name: 'GET with in: querystring (OpenAPI 3.2) validated, route',
    key: 'query-string',
    files: [bench('query.yaml')],
    env: VALIDATING,
    request: { method: 'GET', path: '/search?q=lamp&page=2' },
    expect: { status: 200, type: 'application/json', body: '[{"id":1,"name":"lamp"}]' },
  },
];

/**
 * Start to first answer and idle RSS. The contract cache (SVC_CONTRACT_CACHE) is off for the `cold` runs;
 * `warm` runs share a fresh cache directory, filled by the first of them.
 */
const CACHE_DIR = join(tmpdir(), `svc-facade-bench-cache-${process.pid}`);
const STARTUP = [
  { name: 'Petstore, validation on: facade', command: main, args: [bench('route.yaml')], env: VALIDATING, path: '/api/v3/pet/1' },
  { name: 'Petstore, validation on: facade, no code cache', command: main, args: [bench('route.yaml')], env: { ...VALIDATING, SVC_CODE_CACHE: 'off' }, path: '/api/v3/pet/1' },
  { name: 'Petstore, validation on: fastify-openapi-glue', peer: 'glue', path: '/api/v3/pet/1' },
  { name: 'Petstore: bare node:http', command: bench('bare-server.mjs'), args: [], path: '/api/v3/pet/1' },
  { name: 'github-rest-2020 (JSON, 3.0 MB, 623 ops)', command: main, args: [bench('github.yaml')], env: { SVC_CONTRACT_CACHE: 'off' }, path: '/meta' },
  { name: 'stripe-2020-08-27 (YAML, 2.8 MB, 384 ops), cold', command: main, args: [bench('stripe-yaml.yaml')], env: { SVC_CONTRACT_CACHE: 'off' }, path: '/v1/balance' },
  { name: 'stripe-2020-08-27 (YAML, 2.8 MB, 384 ops), cached', command: main, args: [bench('stripe-yaml.yaml')], env: { SVC_CONTRACT_CACHE: CACHE_DIR }, path: '/v1/balance' },
];

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const duration = Number(opt('duration', 3));
const rounds = Number(opt('rounds', 3));
const connections = Number(opt('connections', 50));
// A comma-separated list: scenarios matching any of the texts.
const only = opt('only', undefined)?.split(',');
const withPeers = !args.includes('--no-peers');
/** Another build's dist/main.js: before/after figures of a change from one run (the machine's noise cancels out). */
const against = opt('against', undefined);
const selected = (key, name) => only === undefined || only.some((o) => key.includes(o) || name.includes(o));
const startupSelected = (s) => selected('startup', 'startup') || (only !== undefined && only.some((o) => s.name.includes(o)));

function start(command, commandArgs, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [command, ...commandArgs], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`timeout starting ${command}: ${err || out}`)), 30_000);
    const onData = (d) => {
      out += d;
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', onData).resume(); // keep draining (Prism logs every request)
        resolve({ child, port: Number(m[1]) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`${command} exited ${code}: ${err}`)));
  });
}

/** CPU time (user + system) a process has used so far, in microseconds, from /proc (clock ticks of 10 ms). */
function cpuMicros(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

async function load(port, request, pid) {
  const url = `http://127.0.0.1:${port}${request.path}`;
  const opts = { url, method: request.method, headers: request.headers ?? {}, body: request.body, connections, pipelining: 1 };
  await autocannon({ ...opts, duration: 1 }); // warm-up (JIT, caches)
  const cpu0 = cpuMicros(pid);
  const result = await autocannon({ ...opts, duration });
  const cpuPerRequest = (cpuMicros(pid) - cpu0) / Math.max(result.requests.total, 1);
  return { rps: result.requests.average, p99: result.latency.p99, cpu: cpuPerRequest, non2xx: result.non2xx, errors: result.errors + result.timeouts };
}

/** Every server must answer the scenario's status with the same bytes, or the ratios mean nothing. */
async function check(port, request, scenario, who) {
  const { method, path, headers, body } = request;
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body });
  const text = await res.text();
  if (res.status !== scenario.expect.status) throw new Error(`${scenario.name} (${who}): expected ${scenario.expect.status}, got ${res.status}: ${text.slice(0, 300)}`);
  // A dynamic mock answers fresh bytes every time: it must still answer JSON.
  if (scenario.expect.varies && (who === 'facade' || who === 'base')) return void JSON.parse(text);
  if (text !== scenario.expect.body) throw new Error(`${scenario.name} (${who}): expected the body ${scenario.expect.body}, got ${text.slice(0, 300)}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function startPeer(key) {
  const peer = PEERS[key];
  return start(peer.command(), peer.args);
}

/**
 * Bare, facade and the peer (if any) run side by side; their loads alternate for `rounds` rounds and the
 * medians count.
 */
async function compare(scenario) {
  const bareEnv = { BARE_STATUS: String(scenario.expect.status), BARE_TYPE: scenario.expect.type, BARE_BODY: scenario.expect.body };
  if (scenario.prepare) await scenario.prepare(scenario);
  const peer = withPeers && scenario.peer !== undefined ? PEERS[scenario.peer] : undefined;
  const systems = [
    scenario.baseline
      ? { name: 'bare', label: scenario.baseline.label ?? 'base (no feature)', request: scenario.request, start: () => start(main, [...scenario.baseline.files, '--port', '0', '--host', '127.0.0.1'], scenario.baseline.env ?? {}) }
      : { name: 'bare', request: scenario.request, start: () => start(bench('bare-server.mjs'), [], bareEnv) },
    { name: 'facade', request: scenario.request, start: () => start(main, [...scenario.files, '--port', '0', '--host', '127.0.0.1'], scenario.env ?? {}) },
    ...(against ? [{ name: 'base', label: 'facade (--against)', request: scenario.request, start: () => start(against, [...scenario.files, '--port', '0', '--host', '127.0.0.1'], scenario.env ?? {}) }] : []),
    ...(peer ? [{ name: 'peer', label: peer.name, request: { ...scenario.request, path: peer.path?.(scenario.request.path) ?? scenario.request.path }, start: () => startPeer(scenario.peer) }] : []),
  ];
  const running = [];
  try {
    for (const system of systems) running.push({ ...system, ...(await system.start()), runs: [] });
    for (const s of running) await check(s.port, s.request, scenario, s.name);
    if (scenario.verify) await scenario.verify(running[1].port);
    for (let r = 0; r < rounds; r++) for (const s of running) s.runs.push(await load(s.port, s.request, s.child.pid));
    const result = {};
    for (const s of running) {
      result[s.name] = {
        label: s.label ?? s.name,
        rps: median(s.runs.map((x) => x.rps)),
        p99: median(s.runs.map((x) => x.p99)),
        cpu: median(s.runs.map((x) => x.cpu)),
        errors: s.runs.reduce((n, x) => n + x.errors + x.non2xx, 0),
        rss: rssMiB(s.child.pid),
        ratios: s.runs.map((x, i) => x.rps / running[0].runs[i].rps),
      };
    }
    return result;
  } finally {
    for (const s of running) s.child.kill('SIGTERM');
  }
}

const fmt = (n, d = 0) => n.toFixed(d).padStart(9);

async function runScenarios() {
  const rows = [];
  for (const s of SCENARIOS) {
    if (!selected(s.key, s.name)) continue;
    const result = await compare(s);
    const { bare, facade, peer, base } = result;
    rows.push({ s, bare, facade, peer, base });
    console.log(`\n${s.name}  (${connections} connections, ${rounds} x ${duration} s each, interleaved, medians)`);
    console.log(`                           req/s   p99 ms   RSS MiB  CPU µs/req   errors`);
    for (const x of [bare, facade, base, peer]) if (x) console.log(`  ${x.label.padEnd(22)} ${fmt(x.rps)} ${fmt(x.p99)} ${fmt(x.rss, 1)} ${fmt(x.cpu, 1)}    ${fmt(x.errors)}`);
    console.log(`  ratio facade/bare      ${fmt(facade.rps / bare.rps, 2)} ${fmt(facade.p99 / Math.max(bare.p99, 1), 2)} ${fmt(facade.rss / bare.rss, 2)} ${fmt(bare.cpu / facade.cpu, 2)}    (CPU as bare/facade; req/s per round: ${facade.ratios.map((r) => r.toFixed(2)).join(' ')})`);
    if (base) console.log(`  ratio base/bare        ${fmt(base.rps / bare.rps, 2)} ${fmt(base.p99 / Math.max(bare.p99, 1), 2)} ${fmt(base.rss / bare.rss, 2)} ${fmt(bare.cpu / base.cpu, 2)}    (req/s per round: ${base.ratios.map((r) => r.toFixed(2)).join(' ')})`);
    if (peer) console.log(`  ratio peer/bare        ${fmt(peer.rps / bare.rps, 2)} ${fmt(peer.p99 / Math.max(bare.p99, 1), 2)} ${fmt(peer.rss / bare.rss, 2)} ${fmt(bare.cpu / peer.cpu, 2)}    (req/s per round: ${peer.ratios.map((r) => r.toFixed(2)).join(' ')})`);
    if (peer) console.log(`  ratio facade/peer      ${fmt(facade.rps / peer.rps, 2)} ${fmt(facade.p99 / Math.max(peer.p99, 1), 2)} ${fmt(facade.rss / peer.rss, 2)} ${fmt(peer.cpu / facade.cpu, 2)}`);
  }
  return rows;
}

/** One start: the time from spawning to the first answer, then the RSS after a second of idling. */
async function startOnce(s) {
  const t0 = performance.now();
  const peer = s.peer === undefined ? undefined : PEERS[s.peer];
  const args = peer ? peer.args : [...s.args, ...(s.command === main ? ['--port', '0', '--host', '127.0.0.1'] : [])];
  const { child, port } = await start(peer ? peer.command() : s.command, args, s.env ?? {});
  try {
    const res = await fetch(`http://127.0.0.1:${port}${s.path}`);
    await res.arrayBuffer();
    const ms = performance.now() - t0;
    // CPU time the server used to get there: steadier than wall time when the machine is busy.
    const cpu = cpuMicros(child.pid) / 1000;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    return { ms, cpu, status: res.status, rss: rssMiB(child.pid) };
  } finally {
    child.kill('SIGTERM');
  }
}

async function startupTimes() {
  console.log(`\nstart to first answer (wall time, and the server's CPU time), idle RSS (medians of ${rounds} starts)`);
  rmSync(CACHE_DIR, { recursive: true, force: true });
  try {
    for (const s of STARTUP) {
      if ((s.peer !== undefined && !withPeers) || !startupSelected(s)) continue;
      const runs = [];
      for (let r = 0; r < rounds; r++) runs.push(await startOnce(s));
      console.log(`  ${s.name.padEnd(56)} ${fmt(median(runs.map((x) => x.ms)))} ms ${fmt(median(runs.map((x) => x.cpu)))} ms CPU ${fmt(median(runs.map((x) => x.rss)), 1)} MiB  (status ${runs[0].status})`);
    }
  } finally {
    rmSync(CACHE_DIR, { recursive: true, force: true });
  }
}

if (withPeers && (SCENARIOS.some((s) => s.peer && selected(s.key, s.name)) || STARTUP.some((s) => s.peer && startupSelected(s)))) ensurePeers();
const rows = await runScenarios();
const forwarding = await runForwarding({ start, load, median, fmt, bench, main, selected, withPeers, rounds, connections, duration, before: opt('forward-before', undefined) });
if (STARTUP.some(startupSelected)) await startupTimes();
console.log('\nsummary: req/s ratios facade/bare, peer/bare, facade/peer (and CPU-per-request ratio bare/facade, steadier on a busy machine)');
for (const { s, bare, facade, peer, base } of rows) {
  const basePart = base ? `  base ${(base.rps / bare.rps).toFixed(2)} (CPU ${(bare.cpu / base.cpu).toFixed(2)}; µs/req bare ${bare.cpu.toFixed(1)}, base ${base.cpu.toFixed(1)}, facade ${facade.cpu.toFixed(1)}${peer ? `, peer ${peer.cpu.toFixed(1)}` : ''})` : '';
  const peerPart = (peer ? `  ${peer.label} ${(peer.rps / bare.rps).toFixed(2)}  facade/peer ${(facade.rps / peer.rps).toFixed(2)}` : '') + basePart;
  console.log(`  ${s.name.padEnd(56)} ${(facade.rps / bare.rps).toFixed(2)}  (CPU ${(bare.cpu / facade.cpu).toFixed(2)})${peerPart}`);
}
for (const { scenario, facade, peer, peerFwd } of forwarding) {
  const vs = (p) => (p ? `${(facade.rps / p.rps).toFixed(2)} (p99 ${(facade.p99 / Math.max(p.p99, 1)).toFixed(2)})` : '-');
  console.log(`  ${scenario.name.padEnd(56)} facade/@fastify/http-proxy ${vs(peer)}, with the same forwarding headers ${vs(peerFwd)}`);
}
