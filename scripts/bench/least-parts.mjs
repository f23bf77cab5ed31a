#!/usr/bin/env node
// What each part of the facade's required work costs on the wire, and how near the facade is to doing only
// that work: the floor, the least facade (least-server.mjs), the least facade without each part in turn
// (LEAST_WITHOUT), and this build's facade, on the peer scenarios' requests. The servers are pinned to the
// first core and autocannon to the second (when taskset is there and the machine has two cores), and loaded
// in turn for several rounds: steadier than `npm run bench`, where eight servers and the load generator
// share the cores and a server's figure moves by 10 % from one run to the next.
//
//   node scripts/bench/least-parts.mjs                 scenarios a,b,c: 3 rounds of 3 s per server
//   node scripts/bench/least-parts.mjs b --rounds 5 --duration 5
import { execFileSync, spawnSync } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMicros } from './proc.mjs';
import { printRunHeader } from './run-header.mjs';
import { start } from './start.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const rounds = Number(opt('rounds', 3));
const duration = Number(opt('duration', 3));
const chosen = (args[0] && !args[0].startsWith('--') ? args[0] : 'a,b,c').split(',');

const PET_JSON = '{"id":1,"name":"doggie","status":"available","photoUrls":[]}';
const SCENARIOS = {
  a: { request: { path: '/api/v3/pet/1' }, body: PET_JSON },
  b: { request: { path: '/api/v3/pet', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: PET_JSON }, body: PET_JSON },
  c: { request: { path: '/api/v3/user/login?username=a&password=b' }, body: '"session-1"' },
};
const LEAST = join(root, 'scripts/bench/least-server.mjs');
const servers = (body) => [
  { name: 'floor', command: join(root, 'scripts/bench/bare-server.mjs'), args: [], env: { BARE_REQUEST_ID: '19f4c6a7-e67d-4172-b0a8-a70eb58da364', BARE_BODY: body } },
  { name: 'least facade', command: LEAST, args: [], env: {} },
  ...['validation', 'id', 'metrics', 'validation,id,metrics'].map((parts) => ({ name: `least, no ${parts.replaceAll(',', ', ')}`, command: LEAST, args: [], env: { LEAST_WITHOUT: parts }, without: parts })),
  { name: 'facade', command: join(root, 'dist/main.js'), args: [join(root, 'scripts/bench/route.yaml'), '--port', '0', '--host', '127.0.0.1'], env: { SVC_REST_CLIENTREQUESTVALIDATION: 'true' } },
];

const pinned = availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0;
/** The command line with its CPU: `taskset -c <cpu>` in front when pinning. */
const onCpu = (cpu, command, commandArgs) => (pinned ? ['taskset', ['-c', String(cpu), command, ...commandArgs]] : [command, commandArgs]);
/** The servers run on the first CPU, autocannon on the second. */
const SERVER_CPU = pinned ? 0 : undefined;

function load(port, request, seconds) {
  const flags = ['-j', '-c', '50', '-d', String(seconds)];
  if (request.method) flags.push('-m', request.method);
  for (const [k, v] of Object.entries(request.headers ?? {})) flags.push('-H', `${k}=${v}`);
  if (request.body) flags.push('-b', request.body);
  const [command, commandArgs] = onCpu(1, process.execPath, [join(root, 'node_modules/autocannon/autocannon.js'), ...flags, `http://127.0.0.1:${port}${request.path}`]);
  return JSON.parse(execFileSync(command, commandArgs, { maxBuffer: 1 << 24 }).toString()).requests.total;
}

async function check(server, scenario) {
  const { path, method, headers, body } = scenario.request;
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { method, headers, body });
  const text = await res.text();
  if (res.status !== 200 || res.headers.get('content-type') !== 'application/json' || text !== scenario.body) {
    throw new Error(`${server.name}: expected 200, application/json, ${scenario.body}; got ${res.status}, ${res.headers.get('content-type')}, ${text.slice(0, 200)}`);
  }
}

const median = (xs) => [...xs].sort((x, y) => x - y)[xs.length >> 1];

printRunHeader(root);
if (!pinned) console.log('note: not pinned (taskset missing or a single core): servers and autocannon share the cores');
let failed = false;
for (const key of chosen) {
  const scenario = SCENARIOS[key];
  if (scenario === undefined) throw new Error(`no scenario ${key} (a, b, c)`);
  const running = [];
  try {
    for (const server of servers(scenario.body)) running.push({ ...server, ...(await start(server.command, server.args, server.env, { pinTo: SERVER_CPU })), cpu: [], rps: [] });
    for (const s of running) load(s.port, scenario.request, 2);
    for (let r = 0; r < rounds; r++) {
      for (const s of running) {
        const before = cpuMicros(s.child.pid);
        const answered = load(s.port, scenario.request, duration);
        s.cpu.push((cpuMicros(s.child.pid) - before) / answered);
        s.rps.push(answered / duration);
      }
    }
    for (const s of running) await check(s, scenario);
    const [floor, least] = running.map((s) => ({ ...s, cpu: median(s.cpu), rps: median(s.rps) }));
    console.log(`\n${key}: ${scenario.request.method ?? 'GET'} ${scenario.request.path} (${rounds} x ${duration} s each, interleaved, medians; CPU µs a request of the server process)`);
    for (const s of running) {
      const cpu = median(s.cpu);
      const rps = median(s.rps);
      const part = s.without === undefined ? '' : `   the part costs ${(least.cpu - cpu).toFixed(2)} µs`;
      console.log(`  ${s.name.padEnd(34)} ${rps.toFixed(0).padStart(7)} req/s ${cpu.toFixed(2).padStart(6)} µs   /floor: req/s ${(rps / floor.rps).toFixed(3)}, CPU ${(floor.cpu / cpu).toFixed(3)}${part}`);
    }
  } catch (err) {
    failed = true;
    console.error(`FAILED ${key}: ${err.message}`);
  } finally {
    for (const s of running) s.child.kill('SIGTERM');
  }
}
process.exitCode = failed ? 1 : 0;
