// A client that pipelines many requests and never reads (issue 29, family 1): node's server parses every
// request of a read chunk, and the facade used to answer them all, holding every answer in memory (≈ 75–120
// MiB per connection for 1,500 GETs of a 48 KB answer). Against the real CLI (so its RSS is its own): 8 such
// connections grow RSS by less than 50 MiB, another client is served meanwhile, the process stays alive,
// and the connections are closed once their client has not read for svc.server.requestTimeout.
// Needs dist/ (`npm run build`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'node:net';
import { PETSTORE, ROOT, startCli, tempDir } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';
import { openFds, rawSocket, until } from './raw-client.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));
const ANSWER_BYTES = 48 * 1024;
const CONNECTIONS = 8;
const PIPELINED = 1500;
const REQUEST_TIMEOUT_MS = 3000;

function rssMiB(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(kb) / 1024;
}

test('8 connections × 1,500 pipelined GETs of a 48 KB answer, never read: RSS grows < 50 MiB, others are served, the connections are closed', async (t) => {
  const dir = tempDir({
    'app.yaml': `- rest:\n    openApi:\n      specification: ${JSON.stringify(PETSTORE)}\n      missingOperation: ignore\n- route:\n    from:\n      uri: direct:getInventory\n      steps:\n        - setBody:\n            simple: '\${header.x-request-id}${'x'.repeat(ANSWER_BYTES)}'\n        - setHeader:\n            name: Content-Type\n            constant: application/json\n`,
    'app.properties': `svc.server.host=127.0.0.1\nsvc.server.port=0\nsvc.server.requestTimeout=${REQUEST_TIMEOUT_MS}ms\n`,
  });
  const cli = startCli(process.execPath, [MAIN, join(dir, 'app.yaml'), join(dir, 'app.properties')], { cwd: dir, env: ENV });
  const clients: Socket[] = [];
  try {
    const origin = await cli.listening();
    const pid = cli.child.pid!;
    const port = Number(new URL(origin).port);
    // Warm up (first requests load and compile what they need, pipelined ones too), then the baseline.
    for (let i = 0; i < 20; i++) assert.equal((await rawRequest(origin, '/api/v3/store/inventory', { headers: { connection: 'close' } })).status, 200);
    const reader = await rawSocket(port);
    reader.write(`GET /api/v3/store/inventory HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(99) + `GET /api/v3/store/inventory HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    await until('a pipelining client that reads gets all 100 answers', () => reader.destroyed || reader.readableEnded || (reader.received().match(/HTTP\/1\.1 200/g)?.length ?? 0) === 100, 10_000);
    assert.equal(reader.received().match(/HTTP\/1\.1 200/g)?.length, 100, 'a client that reads gets every pipelined answer, in order');
    reader.destroy();
    const before = rssMiB(pid);
    const fdsBefore = openFds(pid);
    const request = `GET /api/v3/store/inventory HTTP/1.1\r\nHost: x\r\n\r\n`.repeat(PIPELINED);
    let peak = before;
    for (let c = 0; c < CONNECTIONS; c++) {
      const socket = await rawSocket(port);
      socket.pause(); // never reads
      socket.write(request);
      clients.push(socket);
    }
    // While they wait: another client is served, and RSS is sampled.
    const deadline = Date.now() + 2000;
    while (Date.now() < deadline) {
      peak = Math.max(peak, rssMiB(pid));
      const other = await rawRequest(origin, '/api/v3/store/inventory', { headers: { connection: 'close' } });
      assert.equal(other.status, 200, 'another client is served');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    peak = Math.max(peak, rssMiB(pid));
    t.diagnostic(`RSS ${before.toFixed(1)} → peak ${peak.toFixed(1)} MiB`);
    assert.ok(peak - before < 50, `RSS grew by ${(peak - before).toFixed(1)} MiB (from ${before.toFixed(1)} to ${peak.toFixed(1)})`);
    // Not read for requestTimeout: closed by the server (its descriptors go; a paused client would not notice).
    await until('every pipelining connection is closed by the server', () => openFds(pid) <= fdsBefore, REQUEST_TIMEOUT_MS * 4);
    assert.equal(cli.child.exitCode, null, 'the process is alive');
    assert.equal((await rawRequest(origin, '/api/v3/store/inventory', { headers: { connection: 'close' } })).status, 200);
  } finally {
    for (const socket of clients) socket.destroy();
    cli.child.kill('SIGKILL');
    await cli.exited;
  }
});
