#!/usr/bin/env node
// How much a body streamed through a `to:` backend grows the facade's RSS (docs/performance.md, "A body
// streamed through a `to:` backend"). Starts the built CLI in front of a bare node:http backend, then
// downloads or uploads N MB through it in 64 KiB pieces; the facade's RSS is read from /proc every 10 ms.
// Prints one JSON line per direction: the RSS growth (peak during the transfer minus RSS just before it),
// the facade's CPU time and the wall time. Each direction runs in a fresh process unless both are asked.
//
//   node scripts/stream-memory.mjs 300 down          a 300 MB answer streamed to the client
//   node scripts/stream-memory.mjs 300 up            a 300 MB request body streamed to the backend
//   node scripts/stream-memory.mjs 300 down --warm 2000   after 2000 small forwarded GETs (V8 has compiled what forwarding runs)
//   node scripts/stream-memory.mjs 90 down --main /tmp/old/dist/main.js   another build
//   TRACE=1 node ...                                 also counts the facade's collections by kind and reason (--trace-gc)
//   FLAGS='--liftoff-only' node ...                  node options for the facade's process (space-separated)
import { spawn } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuMicros, rssMiB } from './bench/proc.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args.splice(at, 2)[1];
};
const main = option('--main', new URL('../dist/main.js', import.meta.url).pathname);
const warm = Number(option('--warm', 0));
const MB = Number(args[0] ?? 300);
const directions = (args[1] ?? 'down,up').split(',');
const SIZE = MB * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 97);

/** Writes `total` bytes of one reused buffer, waiting for drain. */
function pump(out, total, done = () => out.end()) {
  let sent = 0;
  const more = () => {
    while (sent < total) {
      sent += CHUNK.length;
      if (!out.write(CHUNK)) return void out.once('drain', more);
    }
    done();
  };
  more();
}

const backend = createServer((req, res) => {
  if (req.url === '/small') return void res.end('x'.repeat(1024));
  if (req.method === 'POST') {
    let n = 0;
    req.on('data', (d) => (n += d.length));
    req.on('end', () => res.end(String(n)));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': SIZE });
  pump(res, SIZE);
});
await new Promise((resolve) => backend.listen(0, '127.0.0.1', resolve));
const to = `http://127.0.0.1:${backend.address().port}`;

const dir = mkdtempSync(join(tmpdir(), 'stream-memory-'));
const binary = "{ description: ok, content: { application/octet-stream: { schema: { type: string, format: binary } } } }";
writeFileSync(join(dir, 'contract.yaml'), `openapi: 3.0.3
info: { title: stream, version: '1' }
paths:
  /upload:
    post:
      operationId: upload
      requestBody: { content: { application/octet-stream: { schema: { type: string, format: binary } } } }
      responses: { '200': ${binary} }
  /download:
    get: { operationId: download, responses: { '200': ${binary} } }
  /small:
    get: { operationId: small, responses: { '200': ${binary} } }
`);
const route = (id, path) => `- route:\n    from:\n      uri: direct:${id}\n      steps:\n        - to: ${to}${path}\n`;
// A streamed upload is bounded by maxBodySize too (docs/sidecar.md): raised so the largest size passes.
writeFileSync(join(dir, 'app.yaml'), `- rest:\n    openApi:\n      specification: contract.yaml\n- server:\n    maxBodySize: 4000MiB\n${route('upload', '/up')}${route('download', '/down')}${route('small', '/small')}`);

const cli = spawn(process.execPath, [...(process.env.TRACE ? ['--trace-gc'] : []), ...(process.env.FLAGS ? process.env.FLAGS.split(' ') : []), main, 'app.yaml', '--port', '0', '--host', '127.0.0.1'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
let out = '';
let collections = {};
const port = await new Promise((resolve, reject) => {
  cli.once('exit', (code) => reject(new Error(`the facade exited (${code})`)));
  cli.stdout.on('data', (d) => {
    const text = String(d);
    for (const m of text.matchAll(/ms: (Scavenge|Mark-Compact|Minor Mark-Sweep)[^\n]*?mu = [0-9.]+\) ([^;\n]*)/g)) {
      const kind = `${m[1]}: ${m[2].trim()}`;
      collections[kind] = (collections[kind] ?? 0) + 1;
    }
    out += text;
    const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
});
const rss = () => rssMiB(cli.pid);
/** The CLI's CPU time so far, in ms. */
const cpu = () => cpuMicros(cli.pid) / 1000;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

await sleep(1500);
if (warm > 0) {
  const agent = new Agent({ keepAlive: true });
  for (let i = 0; i < warm; i++) {
    await new Promise((resolve, reject) => request({ port, host: '127.0.0.1', path: '/small', agent }, (res) => res.resume().on('end', resolve)).on('error', reject).end());
  }
  agent.destroy();
  await sleep(1000);
}

const transfers = {
  down: () =>
    new Promise((resolve, reject) => {
      request({ port, host: '127.0.0.1', path: '/download' }, (res) => {
        let n = 0;
        res.on('data', (d) => (n += d.length));
        res.on('end', () => (n === SIZE ? resolve() : reject(new Error(`downloaded ${n} bytes`))));
      }).on('error', reject).end();
    }),
  up: () =>
    new Promise((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', path: '/upload', method: 'POST', headers: { 'content-type': 'application/octet-stream', 'content-length': SIZE } }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => (res.statusCode === 200 && text === String(SIZE) ? resolve() : reject(new Error(`upload: ${res.statusCode} ${text}`))));
      });
      req.on('error', reject);
      pump(req, SIZE);
    }),
};

try {
  for (const direction of directions) {
    collections = {};
    const idle = rss();
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rss())), 10);
    const cpu0 = cpu();
    const t0 = performance.now();
    await transfers[direction]();
    const ms = Math.round(performance.now() - t0);
    clearInterval(sampler);
    peak = Math.max(peak, rss());
    console.log(JSON.stringify({ MB, direction, warm, rssGrowthMB: +(peak - idle).toFixed(1), idleMB: +idle.toFixed(1), cpuMs: cpu() - cpu0, ms, ...(process.env.TRACE && { collections }) }));
  }
} finally {
  cli.kill();
  backend.close();
}
