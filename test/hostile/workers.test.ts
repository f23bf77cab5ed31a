// svc.server.workers=2 through the real CLI (issue 21, item 1): resets of every kind reach both workers on
// the main and the management port and none of them dies (same pids, no replacement logged); a worker that
// does die is replaced while the primary and the other worker go on serving. Needs dist/ (`npm run build`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { ReplacementBudget } from '../../lib/cli/workers.js';
import { firstBytes, rawSocket } from './raw-client.js';
import { childPids, startPetstoreCli, startService, stopService, until } from './cli-process.js';

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The status of a GET on a fresh connection, tried up to three times, three seconds each. A connection the
 * primary hands to a worker at the moment it is killed is never answered (node's cluster loses it), so the
 * requests made around a worker's death must not wait for ever on one connection.
 */
async function statusWithRetries(origin: string, path: string): Promise<number | string> {
  let last: number | string = 'no attempt';
  for (let attempt = 0; attempt < 3; attempt++) {
    last = await new Promise<number | string>((resolve) => {
      const { hostname, port } = new URL(origin);
      const req = request({ host: hostname, port, path, headers: { connection: 'close' }, agent: false }, (res) => {
        res.resume().on('end', () => resolve(res.statusCode ?? 0));
      });
      req.setTimeout(3000, () => req.destroy(new Error('no answer within 3 s')));
      req.on('error', (err) => resolve(err.message));
      req.end();
    });
    if (typeof last === 'number') return last;
  }
  return last;
}

/** Requests cut off by a reset, as in resets.test.ts: the head of each is enough to reach its handler. */
const CUT_OFF = [
  'CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\n\r\n',
  'GET /api/v3/user/logout HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
  'GET /api/v3/user/logout HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n',
  'GET /api/v3/user/logout HTTP/1.1\r\nHost: x\r\nX-Par',
  'POST /api/v3/pet HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nabc',
];

test('workers=2: resets on the main and management ports kill no worker; a worker killed outright is replaced and the service answers throughout', async () => {
  const service = await startService({ 'svc.server.workers': 2, 'svc.server.maxBodySize': '16MB', 'svc.observe.port': 0, 'svc.observe.drainDelay': '0ms' });
  try {
    const management = service.management!;
    assert.ok(management, service.cli.output.stdout);
    await until('two workers', () => childPids(service.pid).length === 2);
    const workers = childPids(service.pid);
    for (const origin of [service.origin, management]) {
      const port = Number(new URL(origin).port);
      // Each kind several times, on fresh connections: the primary hands them to both workers in turn.
      for (let round = 0; round < 4; round++) {
        for (const bytes of CUT_OFF) {
          const socket = await rawSocket(port);
          // Odd rounds wait for the answer, when there is one (a partial head or body gets none).
          const answered = round % 2 === 0 ? undefined : firstBytes(socket, 100).catch(() => undefined);
          socket.write(bytes);
          await (answered ?? delay(5));
          socket.resetAndDestroy();
        }
      }
    }
    // Mid-answer: an operation without a route echoes the request, so an 8 MB body comes back as an 8 MB
    // answer; the client reads its first bytes, stops reading, and resets. Twice, to reach both workers.
    const big = 'x'.repeat(8 * 1024 * 1024);
    for (let i = 0; i < 2; i++) {
      const socket = await rawSocket(Number(new URL(service.origin).port));
      const started = firstBytes(socket);
      socket.write(`POST /api/v3/pet HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${big.length}\r\n\r\n${big}`);
      await started;
      socket.pause();
      await delay(50);
      assert.match(socket.received(), /^HTTP\/1\.1 200 /, 'the echo');
      assert.ok(socket.received().length < big.length, 'reset while the answer is still being written');
      socket.resetAndDestroy();
    }
    await delay(300);
    assert.deepEqual(childPids(service.pid), workers, `no worker died; stderr: ${service.cli.output.stderr}`);
    assert.doesNotMatch(service.cli.output.stderr, /exited with/);
    for (let i = 0; i < 4; i++) {
      assert.equal(await statusWithRetries(service.origin, '/api/v3/user/logout'), 204);
      assert.equal(await statusWithRetries(management, '/observe/health/live'), 200);
    }

    // A worker dies anyway (SIGKILL: nothing of it runs): the primary replaces it, the other one serves meanwhile.
    process.kill(workers[0]!, 'SIGKILL');
    assert.equal(await statusWithRetries(service.origin, '/api/v3/user/logout'), 204, 'served while the replacement starts');
    await until('a replacement worker', () => {
      const now = childPids(service.pid);
      return now.length === 2 && !now.includes(workers[0]!);
    }, 15_000);
    assert.match(service.cli.output.stderr, new RegExp(`^ERROR worker \\d+ \\(pid ${workers[0]}\\) exited with signal SIGKILL; starting a replacement$`, 'm'));
    for (let i = 0; i < 4; i++) assert.equal(await statusWithRetries(service.origin, '/api/v3/user/logout'), 204);
    assert.equal(service.cli.child.exitCode, null, 'the primary is alive');
    assert.equal(await stopService(service), 0);
  } finally {
    service.cli.child.kill('SIGKILL');
  }
});

test('the replacement budget: five replacements within any minute, the sixth death within it stops the service', () => {
  const budget = new ReplacementBudget();
  const minute = 60_000;
  for (const t of [0, 1000, 2000, 3000, 4000]) assert.equal(budget.spend(t), true, `death at ${t} ms`);
  assert.equal(budget.spend(5000), false, 'the sixth within a minute');
  assert.equal(budget.spend(minute - 1), false, 'still within the minute of the first');
  assert.equal(budget.spend(minute), true, 'the first has left the window');
  assert.equal(budget.spend(minute + 500), false, 'five again within the last minute');
});

test('workers=2: a worker that dies before it listens (the port is taken) is a startup failure, not replaced: exit code 1', async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  try {
    const port = (taken.address() as AddressInfo).port;
    const cli = startPetstoreCli({ 'svc.server.workers': 2, 'svc.server.port': port });
    const code = await Promise.race([cli.exited, delay(15_000).then(() => 'still running')]);
    cli.child.kill('SIGKILL');
    assert.equal(code, 1, cli.output.stderr);
    assert.match(cli.output.stderr, new RegExp(`Cannot listen on 127\\.0\\.0\\.1:${port}: `));
    assert.doesNotMatch(cli.output.stderr, /replacement/);
  } finally {
    taken.close();
  }
});
