#!/usr/bin/env node
// Benchmarks the built facade against a bare node:http server answering the same response (or, for a scenario
// with a `baseline`, against the facade without the feature measured) and, where a scenario names them, peers
// (Fastify + fastify-openapi-glue, Prism's mock, @fastify/http-proxy) on the same contract or backend, in the
// same run, with autocannon on loopback; loads alternate between the servers for several rounds and medians
// are reported. Prints req/s, p99 latency, RSS and CPU per request of each server process, and the ratios;
// then start-to-first-answer and idle RSS of the Petstore (facade, peer, bare) and of the largest corpus
// contracts. The forwarding scenarios (`to: http`) put the facade and the proxies in front of one bare backend
// started for the scenario; their bare server is that backend's twin, loaded directly.
//
//   npm run bench                                  all scenarios: 3 rounds of 3 s per server
//   node scripts/bench.mjs --only login --rounds 5 --duration 5     scenarios whose key or name contains "login"
//   node scripts/bench.mjs --only peer-a,mock      scenarios matching any of the comma-separated texts
//   node scripts/bench.mjs --only startup          only the startup figures
//   node scripts/bench.mjs --only forward          the forwarding scenarios (facade vs @fastify/http-proxy, the minimal undici and http.request proxies, nginx when installed)
//   node scripts/bench.mjs --only stripe           only the startup figures whose name contains "stripe"
//   node scripts/bench.mjs --only protocols        HTTP/1.1, HTTP/2 (h2load, when installed) and TLS on one small GET, CPU per request
//   node scripts/bench.mjs --only apikey,forward-resilience   a feature's cost against the facade without it (issue 33)
//   node scripts/bench.mjs --no-peers              without the peers (no install of scripts/bench/peers)
//   node scripts/bench.mjs --against /tmp/old/dist/main.js   also a previous build's facade, in the same interleaved run
//
// Every server's answer is checked after the loads (status, Content-Type and body the same bytes as the
// scenario's); a check that fails, or a start that does not answer as expected, makes the run exit non-zero.
import autocannon from 'autocannon';
import { createRequire } from 'node:module';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BARE_SERVER, bareEnv, startBackend } from './bench/backend.mjs';
import { cpuMicros, rssMiB } from './bench/proc.mjs';
import { prepareOAuth, verifyOAuth } from './bench/oauth.mjs';
import { ensurePeers, PEERS_DIR } from './bench/peers.mjs';
import { start } from './bench/start.mjs';
import { nginxBinary, startNginx } from './bench/nginx.mjs';
import { protocolFigures } from './bench/protocols.mjs';
import { API_KEY, API_KEY_ENV, verifyApiKey } from './bench/apikey.mjs';
import { startCountingBackend, verifyUntriggered } from './bench/resilience.mjs';
import { printRunHeader } from './bench/run-header.mjs';

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
// Shared by several scenarios, so frozen: a scenario's `prepare` replaces its request rather than changing it.
const GET_PET = Object.freeze({ method: 'GET', path: '/api/v3/pet/1' });
const GET_PET_JSON = Object.freeze({ ...GET_PET, headers: { accept: 'application/json' } });
const POST_PET = Object.freeze({ method: 'POST', path: '/api/v3/pet', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: PET_JSON });
const PET_ANSWER = Object.freeze({ status: 200, type: 'application/json', body: PET_JSON });
/** About 4 KiB of JSON: the items scripts/bench/large-json.yaml answers with (issue 30's compression scenario). */
const LARGE_JSON = JSON.stringify(Array.from({ length: 24 }, (_, i) => ({ id: i, name: `pet number ${i}`, status: ['available', 'pending', 'sold'][i % 3], category: { id: i % 4, name: 'Dogs' }, photoUrls: [`https://img.example/pets/${i}.png`], tags: [{ id: i, name: 'friendly' }] })));

/** Peers, started from scripts/bench/peers/; `path` maps the facade's request path to the peer's. */
const PEERS = {
  glue: { name: 'fastify-openapi-glue', command: () => bench('glue-server.mjs'), args: [] },
  // The same, answering with an X-Request-Id as the facade does (issue 12), so the two send the same bytes.
  'glue-id': { name: 'glue, request ids', command: () => bench('glue-server.mjs'), args: [], env: { BENCH_PEER_REQUEST_ID: '1' } },
  // Prism serves the contract's paths without the server URL's base path.
  prism: { name: 'prism mock', command: () => join(PEERS_DIR, 'node_modules/.bin/prism'), args: ['mock', '-h', '127.0.0.1', '-p', '0', bench('mock-contract.yaml')], path: (p) => p.replace(/^\/api\/v3/, '') },
  // In front of the scenario's backend (BENCH_BACKEND_PORT); with its defaults it sends no forwarding headers.
  proxy: { name: '@fastify/http-proxy', command: () => bench('fastify-proxy.mjs'), args: [] },
  // The same, sending Forwarded, X-Forwarded-* and Via like the facade, so the backend does the same work behind both.
  'proxy-fwd': { name: 'http-proxy, fwd headers', command: () => bench('fastify-proxy.mjs'), args: [], env: { BENCH_PEER_FORWARDED: '1' } },
  // Issue 25's yardsticks: the least a node:http proxy does (no rules at all), with undici's Pool or http.request.
  'min-undici': { name: 'minimal proxy, undici Pool', command: () => bench('minimal-proxy.mjs'), args: [], env: { BENCH_PROXY_CLIENT: 'undici' } },
  // The forwarding floor: the minimal undici proxy sending the facade's bytes both ways (issue 25's ceiling).
  'floor-proxy': { name: 'floor proxy (undici, same bytes)', command: () => bench('minimal-proxy.mjs'), args: [], env: { BENCH_PROXY_CLIENT: 'undici', BENCH_PROXY_SAME_BYTES: '1' } },
  'min-http': { name: 'minimal proxy, http.request', command: () => bench('minimal-proxy.mjs'), args: [], env: { BENCH_PROXY_CLIENT: 'http' } },
  // Optional: only when nginx is installed (Debian's nginx-light); otherwise a note says it was left out.
  nginx: { name: 'nginx, 1 worker, keep-alive', optional: () => (NGINX === undefined ? 'nginx is not on PATH (apt-get install nginx-light)' : undefined), start: (env) => startNginx(NGINX, Number(env.BENCH_BACKEND_PORT)) },
};
const NGINX = nginxBinary();

const MOCK_SYNTHESIZED = {
  name: 'mock: GET, body synthesized from the schema (static)',
  key: 'mock-synth',
  files: [bench('mock-synth.yaml')],
  request: GET_PET_JSON,
  expect: { status: 200, type: 'application/json', body: SYNTHESIZED_PET },
};

/**
 * Each scenario: the facade's config files, the request, and the response the bare server gives back
 * (the same bytes the facade, and the peers if any, answer), so the ratios compare like with like.
 * `prepare(scenario)` runs before the servers start: it may set the facade's `env` and the request, and may
 * return a started helper server (a backend): every server of the scenario gets its port as
 * BENCH_BACKEND_PORT, and it is stopped after the scenario.
 */
/**
 * A Petstore scenario with request validation on, against fastify-openapi-glue; the routes answer JSON.
 * `floor`: also the least any server sending the same bytes can do on node:http (bare-server.mjs with a
 * constant X-Request-Id, answering at once), so the ratio floor/peer is the most facade/peer can reach.
 */
const againstGlue = (name, key, request, body) => ({ name, key, files: [bench('route.yaml')], env: VALIDATING, peers: ['glue', 'glue-id'], floor: true, request, expect: { status: 200, type: 'application/json', body } });
const FLOOR_REQUEST_ID = '19f4c6a7-e67d-4172-b0a8-a70eb58da364';
/** Issue 11: the facade as a sidecar forwarding (`to: http`) to a bare backend, against @fastify/http-proxy in front of it. */
const forwarding = (name, key, request) => ({ name, key, files: [bench('forward.yaml')], prepare: startBackend, peers: ['proxy', 'proxy-fwd', 'min-undici', 'floor-proxy', 'min-http', 'nginx'], request, expect: PET_ANSWER });

export const SCENARIOS = [
  againstGlue('a: GET /pet/1, route, validation on', 'peer-a', GET_PET, PET_JSON),
  // addPet has no route in route.yaml, so the facade answers with the body it was sent.
  againstGlue('b: POST /pet (valid Pet, body validated)', 'peer-b', POST_PET, PET_JSON),
  againstGlue('c: GET /user/login?username=a&password=b, validation on', 'peer-c', { method: 'GET', path: '/api/v3/user/login?username=a&password=b' }, SESSION_JSON),
  {
    name: 'route: GET, YAML setBody constant JSON',
    key: 'route',
    files: [bench('route.yaml')],
    request: GET_PET,
    expect: PET_ANSWER,
  },
  {
    name: 'mock: GET, example from the contract',
    key: 'mock',
    files: [bench('mock.yaml')],
    peers: ['prism'],
    request: GET_PET_JSON,
    expect: PET_ANSWER,
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
    request: GET_PET_JSON,
    expect: PET_ANSWER,
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
    request: POST_PET,
    expect: PET_ANSWER,
  },
  {
    // OpenAPI 3.2 (issue 13): the pet's petType is unmapped, so `defaultMapping` names the schema checked.
    name: 'validation: POST, 3.2 discriminator falling back to defaultMapping (mock echo)',
    key: 'oas32-discriminator',
    files: [bench('oas32-content.yaml')],
    // The operation declares 201 alone, which the mock answers.
    request: { method: 'POST', path: '/v1/pets', headers: { 'content-type': 'application/json' }, body: HAMSTER_JSON },
    expect: { status: 201, type: 'application/json', body: HAMSTER_JSON },
  },
  {
    // Compared with the same route served without a profile (baseline), not with the bare server.
    name: 'GET with a valid RS256 token',
    key: 'oauth',
    files: [bench('route.yaml')],
    prepare: prepareOAuth,
    verify: verifyOAuth,
    baseline: { files: [bench('route.yaml')] },
    request: GET_PET,
    expect: PET_ANSWER,
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
    // Issue 13: a backend's 100 JSON Lines relayed by to: http, each item checked as it passes (bare: the backend's twin).
    name: 'streams: GET 100 JSON Lines relayed, each item validated',
    key: 'streams-relay',
    files: [bench('streams-relay.yaml')],
    prepare: startBackend,
    request: { method: 'GET', path: '/api/logs' },
    expect: { status: 200, type: 'application/jsonl', body: JSONL_100 },
  },
  {
    // The cost of metrics (on by default): the same route with metrics off is the baseline.
    name: 'metrics cost: GET route, metrics on vs off',
    key: 'metrics',
    files: [bench('route.yaml')],
    baseline: { files: [bench('route.yaml')], env: { SVC_OBSERVE_METRICS: 'false' }, label: 'metrics off' },
    request: GET_PET,
    expect: PET_ANSWER,
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
  {
    // Issue 30: a GET from a page on another origin with CORS on, against the same GET with CORS off.
    name: 'CORS: GET with Origin, CORS on vs off',
    key: 'cors',
    files: [bench('route.yaml')],
    env: { SVC_REST_ENABLECORS: 'true' },
    baseline: { files: [bench('route.yaml')], label: 'CORS off' },
    request: { ...GET_PET, headers: { origin: 'https://app.example' } },
    expect: PET_ANSWER,
  },
  {
    // Issue 33: the contract's security enforced (getPetById: the `api_key` header, or a petstore_auth token)
    // and met by a valid API key, against the same GET with security not enforced.
    name: 'apiKey: GET with a valid API key, security enforced vs not',
    key: 'apikey',
    files: [bench('route.yaml')],
    env: API_KEY_ENV,
    verify: verifyApiKey,
    baseline: { files: [bench('route.yaml')], label: 'security not enforced' },
    request: { ...GET_PET, headers: { api_key: API_KEY } },
    expect: PET_ANSWER,
    target: 'issue 33: an apiKey check ≤ 3 %',
  },
  {
    // Issue 30: the cost of compressing a 4 KiB JSON answer (br, quality 4) against sending it as it is.
    name: 'compression: GET 4 KiB JSON, br vs uncompressed',
    key: 'compression',
    files: [bench('large-json.yaml')],
    baseline: { files: [bench('large-json.yaml')], env: { SVC_SERVER_COMPRESSION: 'false' }, label: 'compression off' },
    request: { method: 'GET', path: '/api/v3/pet/findByStatus?status=available', headers: { 'accept-encoding': 'br' } },
    expect: { status: 200, type: 'application/json', body: LARGE_JSON },
  },
  {
    // Issue 30: compression is on by default; a client that sends no Accept-Encoding must not pay for it.
    name: 'compression unused: GET without Accept-Encoding, on vs off',
    key: 'compression-unused',
    files: [bench('route.yaml')],
    baseline: { files: [bench('route.yaml')], env: { SVC_SERVER_COMPRESSION: 'false' }, label: 'compression off' },
    request: GET_PET,
    expect: PET_ANSWER,
  },
  forwarding('forward GET /pet/1', 'forward-get', GET_PET_JSON),
  forwarding('forward POST /pet', 'forward-post', { method: 'POST', path: '/api/v3/pet', headers: { 'content-type': 'application/json' }, body: PET_JSON }),
  {
    // Issue 33: retries (2) and a circuit breaker around the call, configured and never triggered, against
    // forward.yaml with retries off (svc.backend.retries defaults to 2: forward-get has them on). The backend
    // counts what it answers: no request may reach it twice.
    name: 'forward GET /pet/1 with retries and a breaker, untriggered',
    key: 'forward-resilience',
    files: [bench('forward-resilience.yaml')],
    prepare: startCountingBackend,
    verify: verifyUntriggered,
    baseline: { files: [bench('forward.yaml')], env: { SVC_BACKEND_RETRIES: '0' }, label: 'no retries, no breaker' },
    request: GET_PET_JSON,
    expect: PET_ANSWER,
    target: 'issue 33: ≤ 3 %',
  },
];

/**
 * Start to first answer and idle RSS. The contract cache (SVC_CONTRACT_CACHE) is off for the `cold` runs;
 * `warm` runs share a fresh cache directory, filled by the first of them. `status`: the first answer's
 * status, checked on every start (the corpus contracts have no routes: `missingOperation: ignore` echoes the
 * empty GET, 204). `key`: for the derived lines after the table.
 */
const CACHE_DIR = join(tmpdir(), `svc-facade-bench-cache-${process.pid}`);
const ECHOED = 204;
const STARTUP = [
  { name: 'Petstore, validation on: facade', key: 'petstore-facade', command: main, args: [bench('route.yaml')], env: VALIDATING, path: '/api/v3/pet/1', status: 200 },
  { name: 'Petstore, validation on: facade, no code cache', command: main, args: [bench('route.yaml')], env: { ...VALIDATING, SVC_CODE_CACHE: 'off' }, path: '/api/v3/pet/1', status: 200 },
  { name: 'Petstore, validation on: fastify-openapi-glue', peer: 'glue', path: '/api/v3/pet/1', status: 200 },
  { name: 'Petstore: bare node:http', key: 'petstore-bare', command: bench('bare-server.mjs'), args: [], path: '/api/v3/pet/1', status: 200 },
  { name: 'github-rest-2020 (JSON, 3.0 MB, 623 ops)', command: main, args: [bench('github.yaml')], env: { SVC_CONTRACT_CACHE: 'off' }, path: '/meta', status: ECHOED },
  { name: 'github 1.1.4 (APIs-guru, YAML, 2.9 MB, 744 ops)', key: 'github-yaml', command: main, args: [bench('github-yaml.yaml')], env: { SVC_CONTRACT_CACHE: 'off' }, path: '/meta', status: ECHOED },
  { name: 'stripe-2020-08-27 (YAML, 2.8 MB, 384 ops), cold', command: main, args: [bench('stripe-yaml.yaml')], env: { SVC_CONTRACT_CACHE: 'off' }, path: '/v1/balance', status: ECHOED },
  { name: 'stripe-2020-08-27 (YAML, 2.8 MB, 384 ops), cached', command: main, args: [bench('stripe-yaml.yaml')], env: { SVC_CONTRACT_CACHE: CACHE_DIR }, path: '/v1/balance', status: ECHOED },
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

const loadOptions = (port, request) => ({ url: `http://127.0.0.1:${port}${request.path}`, method: request.method, headers: request.headers ?? {}, body: request.body, connections, pipelining: 1 });

/** One second of load, not measured: JIT, caches. */
const warmUp = (port, request) => autocannon({ ...loadOptions(port, request), duration: 1 });

async function load(port, request, pid) {
  const opts = loadOptions(port, request);
  await warmUp(port, request);
  const cpu0 = cpuMicros(pid);
  const result = await autocannon({ ...opts, duration });
  const cpuPerRequest = (cpuMicros(pid) - cpu0) / Math.max(result.requests.total, 1);
  return { rps: result.requests.average, p99: result.latency.p99, cpu: cpuPerRequest, non2xx: result.non2xx, errors: result.errors + result.timeouts };
}

/**
 * Every server (bare or the base, the facade, --against, floor, peers) must answer the scenario's status,
 * Content-Type and body, the same bytes (a compressed body once decoded), or the ratios mean nothing.
 */
async function check(server, scenario) {
  const { method, path, headers, body } = server.request;
  const who = server.label ?? server.name;
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { method, headers, body });
  const text = await res.text();
  const { status, type } = scenario.expect;
  if (res.status !== status) throw new Error(`${scenario.name} (${who}): expected ${status}, got ${res.status}: ${text.slice(0, 300)}`);
  if (res.headers.get('content-type') !== type) throw new Error(`${scenario.name} (${who}): expected Content-Type ${type}, got ${res.headers.get('content-type')}`);
  // A dynamic mock answers fresh bytes every time: it must still answer JSON.
  if (scenario.expect.varies && (server.name === 'facade' || server.name === 'against')) return void JSON.parse(text);
  if (text !== scenario.expect.body) throw new Error(`${scenario.name} (${who}): expected the body ${scenario.expect.body}, got ${text.slice(0, 300)}`);
}

/** The pause between the last server's start and the first warm-up (see compare). */
const SETTLE_MS = 1000;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The facade (this build's `main`, or another build's) on the config `files`, on a free loopback port. */
const startFacade = (command, files, env) => start(command, [...files, '--port', '0', '--host', '127.0.0.1'], env);

const startPeer = (key, env) => PEERS[key].start?.(env) ?? start(PEERS[key].command(), PEERS[key].args, { ...PEERS[key].env, ...env });

/** The scenario's peers that can run here; an optional one that cannot (nginx not installed) is named once. */
const notedMissing = new Set();
function availablePeers(keys) {
  return keys.filter((key) => {
    const missing = PEERS[key].optional?.();
    if (missing === undefined) return true;
    if (!notedMissing.has(key)) console.log(`note: peer ${PEERS[key].name} left out: ${missing}`);
    notedMissing.add(key);
    return false;
  });
}

/** The medians of a server's loads; `ratios`: its req/s over the first server's, round by round. */
function summarize(server, first) {
  const { name, label = name, runs, child } = server;
  return {
    name,
    label,
    rps: median(runs.map((x) => x.rps)),
    p99: median(runs.map((x) => x.p99)),
    cpu: median(runs.map((x) => x.cpu)),
    errors: runs.reduce((n, x) => n + x.errors + x.non2xx, 0),
    rss: rssMiB(child.pid),
    ratios: runs.map((x, i) => x.rps / first.runs[i].rps),
  };
}

/**
 * The scenario's helper (if it prepares one), then bare (or the baseline), the facade, the --against build
 * and the peers run side by side; their loads alternate for `rounds` rounds and the medians count.
 */
async function compare(scenario) {
  const running = [];
  let helper;
  try {
    helper = await scenario.prepare?.(scenario);
    const shared = helper ? { BENCH_BACKEND_PORT: String(helper.port) } : {};
    const env = { ...scenario.env, ...shared };
    const systems = [
      scenario.baseline
        ? { name: 'bare', label: scenario.baseline.label ?? 'base (no feature)', start: () => startFacade(main, scenario.baseline.files, { ...scenario.baseline.env, ...shared }) }
        : { name: 'bare', label: helper ? "bare (the backend's twin)" : 'bare', start: () => start(BARE_SERVER, [], bareEnv(scenario.expect)) },
      { name: 'facade', start: () => startFacade(main, scenario.files, env) },
      ...(against ? [{ name: 'against', label: 'facade (--against)', start: () => startFacade(against, scenario.files, env) }] : []),
      ...(scenario.floor ? [{ name: 'floor', label: 'floor (node:http, constant id)', start: () => start(BARE_SERVER, [], { ...bareEnv(scenario.expect), BARE_REQUEST_ID: FLOOR_REQUEST_ID }) }] : []),
      // The facade's required work done by hand (least-server.mjs): what the floor leaves out and the facade may not.
      ...(scenario.floor ? [{ name: 'least', label: 'least facade (required work by hand)', start: () => start(bench('least-server.mjs'), [], {}) }] : []),
      ...availablePeers(withPeers ? (scenario.peers ?? []) : []).map((key) => ({ name: 'peer', label: PEERS[key].name, path: PEERS[key].path, start: () => startPeer(key, shared) })),
    ];
    const { request } = scenario;
    for (const system of systems) {
      running.push({ ...system, request: { ...request, path: system.path?.(request.path) ?? request.path }, ...(await system.start()), runs: [] });
    }
    // Every server settles first: the facade runs a full collection 100 ms after it listens (its startup
    // garbage), and a server warmed while the last one started was still doing that stayed 20-25 % slower for
    // the whole scenario (the first facade of `metrics`, `cors`, `apikey`... whichever was started and loaded
    // first: 13.4 against 10.8 µs a request, the same build on both sides).
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    // A server left idle for long after its start, then first loaded, can stay about 30 % slower for the life
    // of the process (docs/performance.md, before "Startup": glue with request ids, loaded fifth, 17.5 µs a
    // request instead of 13.1): every server gets a warm-up as soon as all are up. And the answers are checked
    // after the loads, not before: a connection another client opens and closes before a server's hot path is
    // optimized, followed by a garbage collection (V8's memory reducer runs one some 8 s after start), does the
    // same.
    for (const s of running) await warmUp(s.port, s.request);
    for (let r = 0; r < rounds; r++) for (const s of running) s.runs.push(await load(s.port, s.request, s.child.pid));
    for (const s of running) await check(s, scenario);
    // The feature's own check (a refusal without credentials, no retry...) on each build that has the feature.
    for (const s of running) if (scenario.verify && (s.name === 'facade' || s.name === 'against')) await scenario.verify(s.port, { helper, name: s.label ?? s.name, request: s.request });
    const results = running.map((s) => summarize(s, running[0]));
    const [bare, facade] = results;
    const named = (name) => results.find((x) => x.name === name);
    return { bare, facade, against: named('against'), floor: named('floor'), least: named('least'), peers: results.filter((x) => x.name === 'peer') };
  } finally {
    for (const s of running) s.child.kill('SIGTERM');
    helper?.child.kill('SIGTERM');
  }
}

const fmt = (n, d = 0) => n.toFixed(d).padStart(9);
const LABEL = 38;
const percent = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)} %`;
const perRound = (x) => `req/s per round: ${x.ratios.map((r) => r.toFixed(2)).join(' ')}`;

/** A line of x's figures against y's: req/s, p99 and RSS as x/y, CPU per request as y/x (above 1: x spends less). */
function printRatio(label, x, y, note = '') {
  console.log(`  ${`ratio ${label}`.padEnd(LABEL)} ${fmt(x.rps / y.rps, 2)} ${fmt(x.p99 / Math.max(y.p99, 1), 2)} ${fmt(x.rss / y.rss, 2)} ${fmt(y.cpu / x.cpu, 2)}    ${note}`);
}

/** What failed (a check, a start): the run goes on to the next scenario and exits non-zero at the end. */
const failures = [];
function failed(what, err) {
  failures.push(`${what}: ${err.message}`);
  console.error(`\nFAILED ${what}: ${err.message}`);
}

async function runScenarios() {
  const rows = [];
  for (const s of SCENARIOS) {
    if (!selected(s.key, s.name)) continue;
    let result;
    try {
      result = await compare(s);
    } catch (err) {
      failed(s.name, err);
      continue;
    }
    const { bare, facade, against: base, floor, least, peers } = result;
    rows.push({ s, bare, facade, base, floor, least, peers });
    console.log(`\n${s.name}  (${connections} connections, ${rounds} x ${duration} s each, interleaved, medians; CPU: each server process alone)`);
    console.log(`  ${''.padEnd(LABEL)}${['req/s', 'p99 ms', 'RSS MiB', 'CPU µs/req'].map((t) => ` ${t.padStart(9)}`).join('')}${'errors'.padStart(12)}`);
    for (const x of [bare, facade, base, floor, least, ...peers]) if (x) console.log(`  ${x.label.padEnd(LABEL)} ${fmt(x.rps)} ${fmt(x.p99)} ${fmt(x.rss, 1)} ${fmt(x.cpu, 1)}    ${fmt(x.errors)}`);
    printRatio('facade/bare', facade, bare, `(CPU as bare/facade; ${perRound(facade)})`);
    if (s.target) console.log(`  ${'cost of the feature'.padEnd(LABEL)} CPU per request ${percent(facade.cpu / bare.cpu - 1)}, req/s ${percent(facade.rps / bare.rps - 1)}    (${s.target})`);
    if (base) {
      printRatio('against/bare', base, bare, `(${perRound(base)})`);
      printRatio('facade/against', facade, base);
    }
    if (floor) printRatio('facade/floor', facade, floor, `(floor/bare ${(floor.rps / bare.rps).toFixed(2)})`);
    if (least && floor) {
      printRatio('least/floor', least, floor, '(the most facade/floor can be without leaving out required work)');
      printRatio('facade/least', facade, least);
    }
    for (const peer of peers) {
      printRatio(`${peer.label}/bare`, peer, bare, `(${perRound(peer)})`);
      printRatio(`facade/${peer.label}`, facade, peer, floor ? `(floor/peer ${(floor.rps / peer.rps).toFixed(2)}: the most facade/peer can be on node:http)` : '');
    }
  }
  return rows;
}

/** One start: the time from spawning to the first answer, then the RSS after a second of idling. */
async function startOnce(s) {
  const t0 = performance.now();
  const starting = s.peer !== undefined ? startPeer(s.peer) : s.command === main ? startFacade(main, s.args, s.env) : start(s.command, s.args, s.env);
  const { child, port } = await starting;
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
  const measured = {};
  try {
    for (const s of STARTUP) {
      if ((s.peer !== undefined && !withPeers) || !startupSelected(s)) continue;
      const runs = [];
      for (let r = 0; r < rounds; r++) runs.push(await startOnce(s));
      const wrong = runs.find((x) => x.status !== s.status);
      if (wrong) {
        failed(`start of ${s.name}`, new Error(`its first answer (GET ${s.path}) was ${wrong.status}, not ${s.status}`));
        continue;
      }
      const figures = { ms: median(runs.map((x) => x.ms)), cpu: median(runs.map((x) => x.cpu)), rss: median(runs.map((x) => x.rss)) };
      if (s.key) measured[s.key] = figures;
      console.log(`  ${s.name.padEnd(56)} ${fmt(figures.ms)} ms ${fmt(figures.cpu)} ms CPU ${fmt(figures.rss, 1)} MiB  (status ${s.status})`);
    }
  } finally {
    rmSync(CACHE_DIR, { recursive: true, force: true });
  }
  const { 'petstore-facade': facade, 'petstore-bare': bare, 'github-yaml': github } = measured;
  const plus = (x, d) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(d)}`;
  if (facade && bare) console.log(`  Petstore validated, facade − bare: ${plus(facade.ms - bare.ms, 0)} ms start to first answer, ${plus(facade.rss - bare.rss, 1)} MiB idle RSS (issue 33: ≤ 40 ms, ≤ 10 MiB)`);
  if (github) console.log(`  GitHub 1.1.4 YAML idle RSS: ${github.rss.toFixed(1)} MiB (issue 33: ≤ 100)`);
}

printRunHeader(root);
if (withPeers && (SCENARIOS.some((s) => s.peers && selected(s.key, s.name)) || STARTUP.some((s) => s.peer && startupSelected(s)))) ensurePeers();
const rows = await runScenarios();
if (STARTUP.some(startupSelected)) await startupTimes();
if (selected('protocols', 'protocols')) await protocolFigures({ main, files: [bench('route.yaml')], startFacade, duration, rounds, connections, cpuMicros }).catch((err) => failed('protocols', err));
console.log('\nsummary: req/s ratios facade/bare, peer/bare, facade/peer with its p99 ratio (and CPU-per-request ratio bare/facade, steadier on a busy machine)');
for (const { s, bare, facade, base, floor, least, peers } of rows) {
  const peerPart = peers.map((p) => `  ${p.label} ${(p.rps / bare.rps).toFixed(2)}  facade/peer ${(facade.rps / p.rps).toFixed(2)} (p99 ${(facade.p99 / Math.max(p.p99, 1)).toFixed(2)}${floor ? `; floor/peer ${(floor.rps / p.rps).toFixed(2)}` : ''})`).join('');
  const basePart = base ? `  against ${(base.rps / bare.rps).toFixed(2)} (CPU ${(bare.cpu / base.cpu).toFixed(2)}; µs/req ${[bare, base, facade, ...peers].map((x) => `${x.name === 'peer' ? x.label : x.name} ${x.cpu.toFixed(1)}`).join(', ')})` : '';
  const floorPart = floor ? `  facade/floor ${(facade.rps / floor.rps).toFixed(2)} (CPU ${(floor.cpu / facade.cpu).toFixed(2)})${least ? `, least/floor ${(least.rps / floor.rps).toFixed(2)} (CPU ${(floor.cpu / least.cpu).toFixed(2)})` : ''}` : '';
  console.log(`  ${s.name.padEnd(56)} ${(facade.rps / bare.rps).toFixed(2)}  (CPU ${(bare.cpu / facade.cpu).toFixed(2)})${floorPart}${peerPart}${basePart}`);
}
if (failures.length > 0) {
  console.error(`\nbench: ${failures.length} check(s) failed; the figures of those scenarios are not printed and the run exits 1:`);
  for (const f of failures) console.error(`  ${f}`);
  process.exitCode = 1;
}
