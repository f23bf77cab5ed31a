// Retries the contract makes safe (docs/sidecar.md#retries-circuit-breaking-and-load-balancing): against
// fault-injecting raw backends on loopback. Idempotent methods, and POST/PATCH only with a declared
// Idempotency-Key the request carries; undeclared 502/503/504 and resets before an answer; a budget that
// stops retry storms; one time limit across attempts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { serve, tempDir, type Running } from '../helpers.js';
import { deadOrigin, faultyBackend, type Behaviour, type FaultyBackend, type SeenRequest } from './faulty-backend.js';

const CONTRACT = `openapi: 3.0.3
info: { title: retries, version: '1' }
paths:
  /items/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get: { operationId: getItem, responses: { '200': { description: ok } } }
    put:
      operationId: putItem
      requestBody: { content: { application/octet-stream: { schema: { type: string } } } }
      responses: { '200': { description: ok }, '409': { description: conflict } }
  /items:
    post:
      operationId: createItem
      parameters: [{ name: Idempotency-Key, in: header, schema: { type: string } }]
      requestBody: { content: { application/json: { schema: { type: object } } } }
      responses: { '201': { description: created } }
  /orders:
    post:
      operationId: createOrder
      requestBody: { content: { application/json: { schema: { type: object } } } }
      responses: { '201': { description: created } }
  /declared:
    get: { operationId: getDeclared, responses: { '200': { description: ok }, '503': { description: maintenance } } }
`;

const OPERATIONS = ['getItem', 'putItem', 'createItem', 'createOrder', 'getDeclared'];

function facade(origin: string, backend: Record<string, unknown> = {}, endpointQuery = ''): Promise<Running> {
  const dir = tempDir({ 'openapi.yaml': CONTRACT });
  const routes = Object.fromEntries(OPERATIONS.map((id) => [id, [{ kind: 'to' as const, uri: `${origin}/${id}${endpointQuery}` }]]));
  return serve({ specification: join(dir, 'openapi.yaml'), routes, backend });
}

async function withBackend(behave: (request: SeenRequest, index: number) => Behaviour, backend: Record<string, unknown>, body: (running: Running, faulty: FaultyBackend) => Promise<void>): Promise<void> {
  const faulty = await faultyBackend(behave);
  let running: Running | undefined;
  try {
    running = await facade(faulty.origin, backend);
    await body(running, faulty);
  } finally {
    await running?.close();
    await faulty.close();
  }
}

/** A metric's value for an origin, from the facade's exposition. */
async function metric(running: Running, name: string, origin: string): Promise<number> {
  const text = await (await fetch(`${running.origin}/observe/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{origin="${origin}"`));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

/** `count` GETs, `concurrency` at a time; the statuses in order of completion. */
async function load(origin: string, path: string, count: number, concurrency: number): Promise<number[]> {
  const statuses: number[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      const res = await fetch(`${origin}${path}`);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

/** A reproducible stream of numbers in [0, 1) (a linear congruential generator): the same faults on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

test('10 % random 503 on a GET at 10 concurrent clients: at least 99.5 % of the clients succeed; the metrics count attempts and retries', async () => {
  const random = seeded(34);
  await withBackend(() => (random() < 0.1 ? { status: 503 } : { status: 200 }), {}, async (running, faulty) => {
    const statuses = await load(running.origin, '/items/1', 1000, 10);
    const ok = statuses.filter((s) => s === 200).length;
    assert.ok(ok >= 995, `${ok} of 1000 succeeded`);
    const failures = faulty.seen.length - 1000;
    assert.ok(failures > 50, `the backend failed ${failures} requests: the faults were injected`);
    assert.equal(await metric(running, 'svc_backend_attempts_total', faulty.origin), faulty.seen.length);
    assert.equal(await metric(running, 'svc_backend_retries_total', faulty.origin), faulty.seen.length - 1000);
  });
});

test('a backend failing every request gets at most 1.2 × the requests plus the budget reserve (10 a second over the 10 s window): no retry storm', async () => {
  await withBackend(() => ({ status: 503 }), { retryDelay: 1, retryMaxDelay: 2 }, async (running, faulty) => {
    const started = performance.now();
    const statuses = await load(running.origin, '/items/1', 1500, 10);
    const seconds = (performance.now() - started) / 1000;
    assert.ok(statuses.every((s) => s === 503), 'the backend\'s 503 reaches the client once retries are spent');
    // Finagle's reserve: 10 retries a second, counted over the 10 s window (so up to 100 at once).
    const bound = 1.2 * 1500 + 10 * Math.max(10, Math.ceil(seconds));
    assert.ok(faulty.seen.length <= bound, `${faulty.seen.length} attempts for 1500 requests (at most ${bound})`);
    assert.ok(faulty.seen.length > 1500 + 50, 'some retries were made');
    assert.ok((await metric(running, 'svc_backend_retry_budget_exhausted_total', faulty.origin)) > 1000, 'the budget refused the rest');
  });
});

test('a POST without Idempotency-Key gets exactly one attempt on a reset; with the declared key, three attempts carrying the same key', async () => {
  await withBackend(() => 'reset', {}, async (running, faulty) => {
    const plain = await fetch(`${running.origin}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    assert.equal(plain.status, 502);
    assert.equal(faulty.seen.length, 1, 'never sent twice');
    // The operation declares the key, but this request does not carry it: sent once.
    const keyless = await fetch(`${running.origin}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    assert.equal(keyless.status, 502);
    assert.equal(faulty.seen.length, 2);
    const keyed = await fetch(`${running.origin}/items`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'k-34' }, body: '{"a":2}' });
    assert.equal(keyed.status, 502);
    const attempts = faulty.seen.slice(2);
    assert.equal(attempts.length, 3);
    assert.deepEqual(attempts.map((r) => [r.method, r.fields['idempotency-key'], r.body]), Array(3).fill(['POST', 'k-34', '{"a":2}']));
  });
});

test('a POST on an operation that does not declare Idempotency-Key is sent once even when the client sends the key', async () => {
  await withBackend(() => 'reset', {}, async (running, faulty) => {
    const res = await fetch(`${running.origin}/orders`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'k' }, body: '{}' });
    assert.equal(res.status, 502);
    assert.equal(faulty.seen.length, 1);
  });
});

test('a refused connection is retried for any method (nothing reached the backend): three attempts, then 502', async () => {
  const dead = await deadOrigin();
  const running = await facade(dead);
  try {
    const res = await fetch(`${running.origin}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(res.status, 502);
    assert.equal(await metric(running, 'svc_backend_attempts_total', dead), 3);
    assert.equal(running.logger.lines.filter((l) => l.startsWith('ERROR')).length, 1, 'one log line for the request');
  } finally {
    await running.close();
  }
});

test('a declared 409 and a declared 503 are answers, never retried; an undeclared 503 is', async () => {
  await withBackend((r) => ({ status: r.target.includes('putItem') ? 409 : 503 }), {}, async (running, faulty) => {
    const put = await fetch(`${running.origin}/items/1`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: 'x' });
    assert.equal(put.status, 409);
    assert.equal(faulty.seen.length, 1);
    const declared = await fetch(`${running.origin}/declared`);
    assert.equal(declared.status, 503);
    assert.equal(faulty.seen.length, 2);
    const undeclared = await fetch(`${running.origin}/items/1`);
    assert.equal(undeclared.status, 503);
    assert.equal(faulty.seen.length, 5, 'the first attempt and 2 retries');
  });
});

test('Retry-After is honoured up to retryMaxDelay: a shorter one is waited for, a longer one passes the 503 to the client', async () => {
  let wait = '0';
  await withBackend((_r, i) => (i % 2 === 0 ? { status: 503, lines: [`Retry-After: ${wait}`] } : { status: 200 }), { retryMaxDelay: '1s' }, async (running, faulty) => {
    wait = '1';
    const waited = await fetch(`${running.origin}/items/1`);
    assert.equal(waited.status, 200);
    assert.equal(faulty.seen.length, 2);
    assert.ok(faulty.seen[1]!.at - faulty.seen[0]!.at >= 999, 'the retry waited the second it was asked to');
    wait = '2';
    const passed = await fetch(`${running.origin}/items/1`);
    assert.equal(passed.status, 503);
    assert.equal(passed.headers.get('retry-after'), '2');
    assert.equal(faulty.seen.length, 3, 'not retried: the backend asked for longer than retryMaxDelay');
  });
});

test('a hanging backend: 504 when svc.backend.requestTimeout is spent, across a retry, never before it', async () => {
  const limit = 800;
  await withBackend((_r, i) => (i === 0 ? { status: 503 } : 'hang'), { requestTimeout: limit }, async (running, faulty) => {
    const started = performance.now();
    const res = await fetch(`${running.origin}/items/1`);
    const elapsed = performance.now() - started;
    assert.equal(res.status, 504);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(faulty.seen.length, 2, 'the 503 was retried, the retry hung');
    assert.ok(elapsed >= limit - 1, `answered after ${elapsed} ms, not before the limit`);
    // ±10 % on an idle machine; a generous ceiling here, as the machine may be busy.
    assert.ok(elapsed < limit * 3, `answered after ${elapsed} ms`);
    assert.match(running.logger.lines.join('\n'), /SVC_BACKEND_TIMEOUT.*requestTimeout of 800 ms spent after 2 attempt\(s\)|SVC_BACKEND_TIMEOUT.*no byte within/);
  });
});

test('retries=0: one attempt, nothing retried', async () => {
  await withBackend(() => ({ status: 503 }), { retries: 0 }, async (running, faulty) => {
    assert.equal((await fetch(`${running.origin}/items/1`)).status, 503);
    assert.equal(faulty.seen.length, 1);
    assert.equal(await metric(running, 'svc_backend_retries_total', faulty.origin), 0);
  });
});

/** A PUT of `size` bytes whose body is written in two parts 50 ms apart, so the facade streams it to the backend. */
function slowPut(origin: string, size: number): Promise<number> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'PUT', path: '/items/1', headers: { 'content-type': 'application/octet-stream', 'content-length': size } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.write(Buffer.alloc(size / 2, 'a'));
    setTimeout(() => req.end(Buffer.alloc(size / 2, 'b')), 50);
  });
}

test('a streamed body is kept for a retry up to svc.backend.maxRetryBodySize: a smaller one is sent again whole, a larger one is not retried (said in the log)', async () => {
  await withBackend(() => 'reset', { maxRetryBodySize: '16KiB' }, async (running, faulty) => {
    assert.equal(await slowPut(running.origin, 8192), 502);
    assert.equal(faulty.seen.length, 3);
    const expected = 'a'.repeat(4096) + 'b'.repeat(4096);
    assert.deepEqual(faulty.seen.map((r) => r.body === expected), [true, true, true]);
    assert.equal(await slowPut(running.origin, 65536), 502);
    assert.equal(faulty.seen.length, 4, 'the larger body was sent once');
    assert.match(running.logger.lines.join('\n'), /not retried: the request body was streamed and is larger than svc\.backend\.maxRetryBodySize \(16384 bytes\)/);
  });
});

test('a client that goes away while its retry waits ends the call: no further attempt', async () => {
  await withBackend(() => ({ status: 503 }), { retryDelay: 300, retryMaxDelay: 300 }, async (running, faulty) => {
    const { port } = new URL(running.origin);
    const socket = connect(Number(port), '127.0.0.1', () => socket.write('GET /items/1 HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.on('error', () => undefined);
    try {
      while (faulty.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
      socket.destroy();
      await new Promise((r) => setTimeout(r, 600));
      assert.equal(faulty.seen.length, 1);
    } finally {
      socket.destroy();
    }
  });
});
