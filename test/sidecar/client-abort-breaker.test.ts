// A client that closes its connection mid-request is neither a success nor a failure for the circuit breaker
// or the load balancer's outlier ejection (lib/routes/client-cut.ts): the requests a load test leaves in flight
// must not open a breaker in front of a healthy backend, nor leave a half-open one without probes. Real
// backend failures (a timeout, a 5xx) still count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { serve, tempDir, type Running } from '../helpers.js';

const CONTRACT = `openapi: 3.0.3
info: { title: aborts, version: '1' }
paths:
  /items/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get: { operationId: getItem, responses: { '200': { description: ok } } }
`;

interface SlowBackend {
  origin: string;
  /** Requests received (their heads arrived whole). */
  requests: number;
  /** What the next requests get: 200 after `delay` ms, or 500 at once. */
  mode: 'slow' | 'failing';
  /** Resolves once `count` requests have arrived / `count` connections were closed by the facade. */
  received(count: number): Promise<void>;
  closed(count: number): Promise<void>;
  close(): Promise<void>;
}

/** A backend on raw sockets: each GET answered 200 after `delay` ms (or 500 at once when failing), connection closes counted. */
async function slowBackend(delay: number): Promise<SlowBackend> {
  const sockets = new Set<Socket>();
  let closes = 0;
  const waiters: (() => void)[] = [];
  const changed = (): void => {
    for (const wake of waiters.splice(0)) wake();
  };
  const until = (ready: () => boolean): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => (ready() ? resolve() : void waiters.push(check));
      check();
    });
  const backend: SlowBackend = {
    origin: '',
    requests: 0,
    mode: 'slow',
    received: (count) => until(() => backend.requests >= count),
    closed: (count) => until(() => closes >= count),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      closes++;
      changed();
    });
    let pending = '';
    socket.on('data', (chunk: Buffer) => {
      pending += chunk.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        pending = pending.slice(end + 4);
        backend.requests++;
        changed();
        const answer = (status: number): void => void (socket.destroyed || socket.write(`HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`));
        if (backend.mode === 'failing') answer(500);
        else setTimeout(() => answer(200), delay);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  backend.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return backend;
}

function facade(steps: string): Promise<Running> {
  const contract = join(tempDir({ 'openapi.yaml': CONTRACT }), 'openapi.yaml');
  const yaml = `- rest:\n    openApi:\n      specification: ${contract}\n- backend:\n    retries: 0\n- route:\n    from:\n      uri: direct:getItem\n      steps:\n${steps}`;
  return serve([join(tempDir({ 'app.yaml': yaml }), 'app.yaml')], { env: {} });
}

function breaker(to: string, extra = ''): string {
  return `        - circuitBreaker:\n            resilience4jConfiguration: { failureRateThreshold: 50, slidingWindowSize: 10, minimumNumberOfCalls: 5, waitDurationInOpenState: 1s, permittedNumberOfCallsInHalfOpenState: 2${extra} }\n            steps:\n              - to: ${to}\n`;
}

/** `count` raw clients each send a GET; once `arrived` says the backends have them all, they close their connections before the answer. */
async function abandon(running: Running, count: number, arrived: () => Promise<unknown>): Promise<void> {
  const { port } = new URL(running.origin);
  const clients: Socket[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const socket = connect(Number(port), '127.0.0.1');
      socket.on('error', () => undefined);
      socket.write(`GET /items/${i} HTTP/1.1\r\nhost: facade\r\n\r\n`);
      clients.push(socket);
    }
    await arrived();
  } finally {
    for (const socket of clients) socket.destroy();
  }
}

async function metrics(running: Running): Promise<string> {
  return (await fetch(`${running.origin}/observe/metrics`)).text();
}

test('clients that close their connections mid-request do not open the breaker, nor are their calls retried: the next request is answered by the backend and the breaker stays closed', async () => {
  const backend = await slowBackend(200);
  // Retries on, as docs/sidecar.md pairs them with a breaker: an abandoned call is not sent again either.
  const running = await facade(breaker(`${backend.origin}/item?retries=2`));
  try {
    await abandon(running, 8, () => backend.received(8));
    // The facade aborted each backend call when its client left (the backend sees the 8 connections close).
    await backend.closed(8);
    const res = await fetch(`${running.origin}/items/1`);
    assert.equal(res.status, 200, await res.text());
    assert.equal(backend.requests, 9, 'the backend answered it');
    const text = await metrics(running);
    assert.match(text, /^svc_circuit_breaker_state\{route="getItem",state="closed"\} 1$/m);
    assert.match(text, /^svc_circuit_breaker_rejected_total\{route="getItem"\} 0$/m);
    assert.match(text, /^svc_backend_retries_total\{[^}]*\} 0$/m);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('a half-open probe whose client leaves gives its slot back: the next requests probe and close the breaker', async () => {
  const backend = await slowBackend(200);
  backend.mode = 'failing';
  const running = await facade(breaker(`${backend.origin}/item`));
  try {
    for (let i = 0; i < 5; i++) assert.equal((await fetch(`${running.origin}/items/1`)).status, 500);
    assert.equal((await fetch(`${running.origin}/items/1`)).status, 503, 'opened by 5 undeclared 500s');
    backend.mode = 'slow';
    await new Promise((r) => setTimeout(r, 1050));
    // Both probes of the half-open breaker are taken by clients that leave.
    await abandon(running, 2, () => backend.received(7));
    await backend.closed(2);
    for (const probe of ['probe 1', 'probe 2', 'closed again']) assert.equal((await fetch(`${running.origin}/items/1`)).status, 200, probe);
    assert.match(await metrics(running), /^svc_circuit_breaker_state\{route="getItem",state="closed"\} 1$/m);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('real backend failures still open it: 5 timeouts (the backend slower than the breaker\'s timeoutDuration) and the next request is refused 503 without calling the backend', async () => {
  const backend = await slowBackend(200);
  const running = await facade(breaker(`${backend.origin}/item`, ', timeoutEnabled: true, timeoutDuration: 50ms'));
  try {
    for (let i = 0; i < 5; i++) assert.equal((await fetch(`${running.origin}/items/1`)).status, 504, `timeout ${i + 1}`);
    const open = await fetch(`${running.origin}/items/1`);
    assert.equal(open.status, 503);
    assert.equal((await open.json() as { code?: string }).code, 'SVC_CIRCUIT_OPEN');
    assert.equal(backend.requests, 5);
    assert.match(await metrics(running), /^svc_circuit_breaker_state\{route="getItem",state="open"\} 1$/m);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('loadBalance: clients leaving mid-request do not eject an endpoint (5 failures in a row would)', async () => {
  const backends = [await slowBackend(200), await slowBackend(200)];
  const running = await facade(`        - loadBalance:\n            roundRobin: {}\n            steps:\n${backends.map((b) => `              - to: ${b.origin}/item\n`).join('')}`);
  try {
    await abandon(running, 12, () => Promise.all(backends.map((b) => b.received(6))));
    await Promise.all(backends.map((b) => b.closed(6)));
    assert.match(await metrics(running), /^svc_load_balancer_ejected_endpoints\{route="getItem"\} 0$/m);
    for (let i = 0; i < 2; i++) assert.equal((await fetch(`${running.origin}/items/1`)).status, 200);
    assert.deepEqual(backends.map((b) => b.requests), [7, 7], 'both endpoints still take calls');
  } finally {
    await running.close();
    for (const b of backends) await b.close();
  }
});

/** One request written as these exact bytes on a fresh connection; the status line's code. */
function rawStatus(running: Running, bytes: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(running.origin).port), '127.0.0.1');
    let head = '';
    socket.on('error', reject);
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(head);
      if (status) {
        socket.destroy();
        resolve(Number(status[1]));
      }
    });
    socket.write(bytes);
  });
}

test('requests refused for what the client sent (a GET with a body to forward: 400) are no failures of the backend: the breaker stays closed', async () => {
  const backend = await slowBackend(0);
  const running = await facade(breaker(`${backend.origin}/item`));
  try {
    for (let i = 0; i < 8; i++) assert.equal(await rawStatus(running, 'GET /items/1 HTTP/1.1\r\nhost: f\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}'), 400, `refused ${i + 1}`);
    assert.equal(backend.requests, 0, 'nothing reached the backend');
    assert.equal((await fetch(`${running.origin}/items/1`)).status, 200);
    assert.match(await metrics(running), /^svc_circuit_breaker_state\{route="getItem",state="closed"\} 1$/m);
  } finally {
    await running.close();
    await backend.close();
  }
});
