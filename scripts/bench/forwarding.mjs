// The forwarding scenarios of `npm run bench` (issue 11): client → facade (`to: http://`) → bare node:http
// backend, against client → backend directly and against @fastify/http-proxy in front of the same backend.
// Loads alternate between the three for several rounds; medians are reported with facade/peer ratios.
import { ensurePeers } from './peers.mjs';

const PET_JSON = '{"id":1,"name":"doggie","status":"available","photoUrls":[]}';

export const FORWARDING = [
  { name: 'forward GET /pet/1', key: 'forward-get', request: { method: 'GET', path: '/api/v3/pet/1', headers: { accept: 'application/json' } } },
  { name: 'forward POST /pet', key: 'forward-post', request: { method: 'POST', path: '/api/v3/pet', headers: { 'content-type': 'application/json' }, body: PET_JSON } },
];

/**
 * `tools`: bench.mjs's start/load/median/fmt and its options; returns one summary row per scenario.
 * `before`: another build's dist/main.js (`--forward-before`), loaded in the same rounds, for before/after figures.
 */
export async function runForwarding({ start, load, median, fmt, bench, main, selected, withPeers, rounds, connections, duration, before }) {
  const chosen = FORWARDING.filter((s) => selected(s.key, s.name));
  if (chosen.length === 0) return [];
  if (withPeers) ensurePeers();
  const rows = [];
  for (const scenario of chosen) {
    const backend = await start(bench('bare-server.mjs'), [], { BARE_STATUS: '200', BARE_TYPE: 'application/json', BARE_BODY: PET_JSON });
    const env = { BENCH_BACKEND_PORT: String(backend.port) };
    const servers = { direct: backend };
    try {
      servers.facade = await start(main, [bench('forward.yaml'), '--port', '0', '--host', '127.0.0.1'], env);
      if (before !== undefined) servers.before = await start(before, [bench('forward.yaml'), '--port', '0', '--host', '127.0.0.1'], env);
      if (withPeers) {
        servers.peer = await start(bench('fastify-proxy.mjs'), [], env);
        servers.peerFwd = await start(bench('fastify-proxy.mjs'), [], { ...env, BENCH_PEER_FORWARDED: '1' });
      }
      const runs = Object.fromEntries(Object.keys(servers).map((name) => [name, []]));
      for (const [name, server] of Object.entries(servers)) await expectPet(server.port, scenario, name);
      for (let r = 0; r < rounds; r++) {
        for (const name of Object.keys(runs)) runs[name].push(await load(servers[name].port, scenario.request, servers[name].child.pid));
      }
      const sum = (name) => ({
        rps: median(runs[name].map((x) => x.rps)),
        p99: median(runs[name].map((x) => x.p99)),
        cpu: median(runs[name].map((x) => x.cpu)),
        errors: runs[name].reduce((n, x) => n + x.errors + x.non2xx, 0),
      });
      const result = Object.fromEntries(Object.keys(servers).map((name) => [name, sum(name)]));
      rows.push({ scenario, ...result });
      console.log(`\n${scenario.name}: client → proxy → bare node:http backend  (${connections} connections, ${rounds} x ${duration} s each, medians)`);
      console.log(`                      req/s   p99 ms  CPU µs/req   errors   (CPU: the proxy process alone)`);
      for (const name of Object.keys(servers)) {
        const x = result[name];
        console.log(`  ${name.padEnd(8)}  ${fmt(x.rps)} ${fmt(x.p99)} ${fmt(x.cpu, 1)}    ${fmt(x.errors)}`);
      }
      const ratio = (peer) => `req/s ${(result.facade.rps / result[peer].rps).toFixed(2)}  p99 ${(result.facade.p99 / Math.max(result[peer].p99, 1)).toFixed(2)}`;
      if (withPeers) {
        console.log(`  facade/peer     ${ratio('peer')}  (peer = @fastify/http-proxy, defaults: adds no forwarding headers)`);
        console.log(`  facade/peerFwd  ${ratio('peerFwd')}  (peerFwd = the same, sending Forwarded, X-Forwarded-* and Via like the facade)`);
      }
      console.log(`  facade/direct req/s ${(result.facade.rps / result.direct.rps).toFixed(2)}`);
      if (before !== undefined) console.log(`  facade/before   req/s ${(result.facade.rps / result.before.rps).toFixed(2)}  CPU per request ${(result.facade.cpu / result.before.cpu).toFixed(2)}  (before = ${before})`);
    } finally {
      for (const server of Object.values(servers)) server.child.kill('SIGTERM');
    }
  }
  return rows;
}

async function expectPet(port, scenario, name) {
  const { method, path, headers, body } = scenario.request;
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method, headers, body });
  const text = await res.text();
  if (res.status !== 200 || text !== PET_JSON) throw new Error(`${scenario.name} (${name}): expected 200 and the pet, got ${res.status}: ${text.slice(0, 300)}`);
}
