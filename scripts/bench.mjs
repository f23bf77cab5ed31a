#!/usr/bin/env node
// Benchmarks the built facade against a bare node:http server answering the same response, in the same run,
// with autocannon on loopback; loads alternate between the two for several rounds and medians are reported. Prints req/s, p99 latency and RSS of each, and the facade/bare ratios; then
// the startup time of the largest corpus contracts to first answer.
//
//   npm run bench                                  all scenarios: 3 rounds of 3 s per server
//   node scripts/bench.mjs --only route --rounds 5 --duration 5
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bench = (name) => join(root, 'scripts/bench', name);
const main = join(root, 'dist/main.js');

const PET_JSON = '{"id":1,"name":"doggie","status":"available","photoUrls":[]}';
const PET_XML = '<?xml version="1.0" encoding="UTF-8"?><pet><id>1</id><name>doggie</name><photoUrls></photoUrls><status>available</status></pet>';

/**
 * Each scenario: the facade's config files, the request, and the response the bare server gives back
 * (the same bytes the facade should answer), so the ratio compares like with like.
 */
export const SCENARIOS = [
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
    request: { method: 'GET', path: '/api/v3/pet/1', headers: { accept: 'application/json' } },
    expect: { status: 200, type: 'application/json', body: PET_JSON },
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
    // addPet has no route in route.yaml, so the facade answers with the body it was sent.
    name: 'POST /pet validation on',
    key: 'validation-on',
    files: [bench('route.yaml')],
    env: { SVC_REST_CLIENTREQUESTVALIDATION: 'true' },
    request: { method: 'POST', path: '/api/v3/pet', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: PET_JSON },
    expect: { status: 200, type: 'application/json', body: PET_JSON },
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
    // The cost of metrics (on by default): the same facade and route with metrics off is the baseline here.
    name: 'metrics cost: GET route, metrics on vs off',
    key: 'metrics',
    files: [bench('route.yaml')],
    baseline: { label: 'metrics off', env: { SVC_OBSERVE_METRICS: 'false' } },
    request: { method: 'GET', path: '/api/v3/pet/1' },
    expect: { status: 200, type: 'application/json', body: PET_JSON },
  },
];

const STARTUP = [
  { name: 'github-rest-2020 (JSON, 3.0 MB, 623 ops)', files: [bench('github.yaml')], path: '/meta' },
  { name: 'apisguru-stripe-2020-08-27 (YAML, 2.8 MB, 384 ops)', files: [bench('stripe-yaml.yaml')], path: '/v1/balance' },
];

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? fallback : args[i + 1];
};
const duration = Number(opt('duration', 3));
const rounds = Number(opt('rounds', 3));
const connections = Number(opt('connections', 50));
const only = opt('only', undefined);

function start(command, commandArgs, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [command, ...commandArgs], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`timeout starting ${command}: ${err || out}`)), 20_000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]) });
      }
    });
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

async function check(port, scenario) {
  const { method, path, headers, body } = scenario.request;
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body });
  const text = await res.text();
  if (res.status !== scenario.expect.status) throw new Error(`${scenario.name}: expected ${scenario.expect.status}, got ${res.status}: ${text.slice(0, 300)}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Bare and facade run side by side; their loads alternate for `rounds` rounds and the medians count. */
async function compare(scenario) {
  const bareEnv = { BARE_STATUS: String(scenario.expect.status), BARE_TYPE: scenario.expect.type, BARE_BODY: scenario.expect.body };
  const facadeArgs = [...scenario.files, '--port', '0', '--host', '127.0.0.1'];
  const bare = scenario.baseline ? await start(main, facadeArgs, scenario.baseline.env) : await start(bench('bare-server.mjs'), [], bareEnv);
  const facade = await start(main, facadeArgs, scenario.env ?? {}).catch((err) => {
    bare.child.kill('SIGTERM');
    throw err;
  });
  try {
    await check(bare.port, scenario);
    await check(facade.port, scenario);
    const runs = { bare: [], facade: [] };
    for (let r = 0; r < rounds; r++) {
      runs.bare.push(await load(bare.port, scenario.request, bare.child.pid));
      runs.facade.push(await load(facade.port, scenario.request, facade.child.pid));
    }
    const summarize = (list, pid) => ({
      rps: median(list.map((x) => x.rps)),
      p99: median(list.map((x) => x.p99)),
      cpu: median(list.map((x) => x.cpu)),
      errors: list.reduce((n, x) => n + x.errors + x.non2xx, 0),
      rss: rssMiB(pid),
      ratios: [],
    });
    const result = { bare: summarize(runs.bare, bare.child.pid), facade: summarize(runs.facade, facade.child.pid) };
    result.facade.ratios = runs.facade.map((x, i) => x.rps / runs.bare[i].rps);
    return result;
  } finally {
    bare.child.kill('SIGTERM');
    facade.child.kill('SIGTERM');
  }
}

const fmt = (n, d = 0) => n.toFixed(d).padStart(9);

async function runScenarios() {
  const rows = [];
  for (const s of SCENARIOS) {
    if (only && s.key !== only) continue;
    const { bare, facade } = await compare(s);
    rows.push({ s, bare, facade });
    console.log(`\n${s.name}  (${connections} connections, ${rounds} x ${duration} s each, medians${s.baseline ? `; "bare" here is the facade with ${s.baseline.label}` : ''})`);
    console.log(`             req/s   p99 ms   RSS MiB  CPU µs/req   errors`);
    console.log(`  bare   ${fmt(bare.rps)} ${fmt(bare.p99)} ${fmt(bare.rss, 1)} ${fmt(bare.cpu, 1)}    ${fmt(bare.errors)}`);
    console.log(`  facade ${fmt(facade.rps)} ${fmt(facade.p99)} ${fmt(facade.rss, 1)} ${fmt(facade.cpu, 1)}    ${fmt(facade.errors)}`);
    console.log(`  ratio  ${fmt(facade.rps / bare.rps, 2)} ${fmt(facade.p99 / Math.max(bare.p99, 1), 2)} ${fmt(facade.rss / bare.rss, 2)} ${fmt(bare.cpu / facade.cpu, 2)}    (facade / bare; CPU as bare/facade; req/s per round: ${facade.ratios.map((r) => r.toFixed(2)).join(' ')})`);
  }
  return rows;
}

async function startupTimes() {
  console.log('\nstartup to first answer');
  for (const s of STARTUP) {
    const t0 = performance.now();
    const { child, port } = await start(main, [...s.files, '--port', '0', '--host', '127.0.0.1']);
    try {
      const res = await fetch(`http://127.0.0.1:${port}${s.path}`);
      await res.arrayBuffer();
      const ms = performance.now() - t0;
      console.log(`  ${s.name.padEnd(48)} ${fmt(ms)} ms  (status ${res.status}, RSS ${rssMiB(child.pid).toFixed(1)} MiB)`);
    } finally {
      child.kill('SIGTERM');
    }
  }
}

const rows = await runScenarios();
if (!only) await startupTimes();
console.log('\nsummary: req/s ratio facade/bare (and CPU-per-request ratio bare/facade, steadier on a busy machine)');
for (const { s, bare, facade } of rows) console.log(`  ${s.name.padEnd(48)} ${(facade.rps / bare.rps).toFixed(2)}  (CPU ${(bare.cpu / facade.cpu).toFixed(2)})`);
