// Health probes (issue 12): bodies, methods, a separate management port, ready turning 503 through a
// graceful stop while an in-flight request still completes, and observe paths that would shadow the contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFacade, silentLogger, type Exchange } from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';

/** A route that answers only when the test opens the gate, so a request is in flight for as long as needed. */
function gated(): { routes: Record<string, (ex: Exchange) => Promise<void>>; open: () => void; entered: Promise<void> } {
  let open!: () => void;
  let enter!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const routes = {
    getInventory: async (ex: Exchange) => {
      enter();
      await gate;
      ex.body = { finished: true };
    },
  };
  return { routes, open, entered };
}

test('live, ready and overall health answer JSON on the main port; HEAD has no body, POST is a 405', async () => {
  const app = await serve({ specification: PETSTORE, missingOperation: 'mock', routes: { getPetById: (ex: Exchange) => void (ex.body = { id: 1 }) } });
  try {
    const ready = await fetch(`${app.origin}/observe/health/ready`);
    assert.equal(ready.status, 200);
    assert.match(ready.headers.get('content-type')!, /^application\/json/);
    assert.equal(ready.headers.get('cache-control'), 'no-store');
    const body = (await ready.json()) as { status: string; checks: { name: string; status: string; data?: Record<string, number> }[] };
    assert.equal(body.status, 'UP');
    assert.deepEqual(
      body.checks.map((c) => [c.name, c.status]),
      [['contract', 'UP'], ['routes', 'UP'], ['shutdown', 'UP']],
    );
    assert.deepEqual(body.checks[0]!.data, { operations: 19 });
    assert.deepEqual(body.checks[1]!.data, { routes: 1 }, 'one operation has a route, the others are mocked');

    assert.deepEqual(await (await fetch(`${app.origin}/observe/health/live`)).json(), { status: 'UP', checks: [{ name: 'process', status: 'UP' }] });
    assert.equal((await fetch(`${app.origin}/observe/health`)).status, 200);
    assert.equal((await fetch(`${app.origin}/observe/health/`)).status, 200, 'a trailing slash is tolerated as on contract paths');

    const head = await fetch(`${app.origin}/observe/health/ready`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), '');
    const post = await fetch(`${app.origin}/observe/health/ready`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  } finally {
    await app.close();
  }
});

test('graceful stop on the main port: ready turns 503 during the drain delay while an in-flight request completes', async () => {
  const { routes, open, entered } = gated();
  const app = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes, observe: { drainDelay: '2s' } });
  try {
    const inFlight = fetch(`${app.origin}/api/v3/store/inventory`);
    await entered;
    const stopped = app.facade.stop();
    const ready = await fetch(`${app.origin}/observe/health/ready`);
    assert.equal(ready.status, 503);
    const body = (await ready.json()) as { status: string; checks: { name: string; status: string }[] };
    assert.equal(body.status, 'DOWN');
    assert.deepEqual(body.checks.find((c) => c.name === 'shutdown'), { name: 'shutdown', status: 'DOWN' });
    assert.equal((await fetch(`${app.origin}/observe/health`)).status, 503, 'overall health follows readiness');
    assert.equal((await fetch(`${app.origin}/observe/health/live`)).status, 200, 'still alive: a liveness failure would get the pod killed');
    open();
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { finished: true });
    await stopped;
    await assert.rejects(fetch(`${app.origin}/observe/health/ready`), 'the listener is closed after the drain');
  } finally {
    open(); // a failed assertion leaves no request, nor the facade, waiting
    await app.facade.stop();
  }
});

test('management port: health and metrics there, not on the main port; ready is 503 while a stop waits for an in-flight request', async () => {
  const { routes, open, entered } = gated();
  const app = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes, observe: { port: 0, host: '127.0.0.1' } });
  try {
    const management = `http://127.0.0.1:${app.facade.managementAddress!.port}`;
    assert.notEqual(management, app.origin);
    assert.equal((await fetch(`${management}/observe/health/ready`)).status, 200);
    assert.match(await (await fetch(`${management}/observe/metrics`)).text(), /^# HELP svc_http_requests_total /m);
    assert.equal((await fetch(`${app.origin}/observe/health/ready`)).status, 404, 'the business port serves only the contract');
    const unknown = await fetch(`${management}/api/v3/store/inventory`);
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get('content-type'), 'application/problem+json');
    const put = await fetch(`${management}/observe/metrics`, { method: 'PUT' });
    assert.equal(put.status, 405);
    assert.equal(put.headers.get('allow'), 'GET, HEAD');

    const inFlight = fetch(`${app.origin}/api/v3/store/inventory`);
    await entered;
    const stopped = app.facade.stop();
    assert.equal((await fetch(`${management}/observe/health/ready`)).status, 503);
    assert.equal((await fetch(`${management}/observe/health/live`)).status, 200);
    open();
    assert.deepEqual(await (await inFlight).json(), { finished: true });
    await stopped;
    await assert.rejects(fetch(`${management}/observe/health/live`), 'the management listener closes with the facade');
  } finally {
    open(); // a failed assertion leaves no request, nor the facade, waiting
    await app.facade.stop();
  }
});

test('configurable paths; health or metrics off answer 404 like any unknown path', async () => {
  const app = await serve({ specification: PETSTORE, missingOperation: 'mock', observe: { healthPath: '/ops/health/', metricsPath: '/ops/prometheus', metrics: false } });
  try {
    assert.equal((await fetch(`${app.origin}/ops/health/ready`)).status, 200);
    assert.equal((await fetch(`${app.origin}/ops/health/live`)).status, 200);
    assert.equal((await fetch(`${app.origin}/observe/health/ready`)).status, 404);
    assert.equal((await fetch(`${app.origin}/ops/prometheus`)).status, 404, 'metrics: false serves no metrics');
  } finally {
    await app.close();
  }
  const off = await serve({ specification: PETSTORE, missingOperation: 'mock', observe: { health: false } });
  try {
    assert.equal((await fetch(`${off.origin}/observe/health/ready`)).status, 404);
    assert.equal((await fetch(`${off.origin}/observe/metrics`)).status, 200);
  } finally {
    await off.close();
  }
});

const contract = (paths: string[]) =>
  JSON.stringify({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    paths: Object.fromEntries(paths.map((p, i) => [p, { get: { operationId: `op${i}`, responses: { 200: { description: 'ok' } } } }])),
  });

test('a configured observe path that a contract path would match fails startup (exit code 2) naming the option; a management port avoids it', async () => {
  const cases: [string[], Record<string, unknown>, RegExp][] = [
    [['/observe/health'], { healthPath: '/observe/health' }, /^svc\.observe\.healthPath \/observe\/health would shadow a path of the contract; choose another path, or serve health and metrics on a management port \(svc\.observe\.port\)$/],
    [['/ops/{what}'], { healthPath: '/ops/health' }, /^svc\.observe\.healthPath \/ops\/health would shadow/],
    [['/{a}/{b}/{c}'], { healthPath: '/ops/health' }, /^svc\.observe\.healthPath \/ops\/health\/live would shadow/],
    [['/metrics'], { metricsPath: '/metrics' }, /^svc\.observe\.metricsPath \/metrics would shadow/],
    [['/x'], { metricsPath: '/observe/health/ready' }, /^svc\.observe\.metricsPath \/observe\/health\/ready would shadow another observe endpoint/],
  ];
  for (const [paths, observe, message] of cases) {
    const dir = tempDir({ 'api.json': contract(paths) });
    const err = await createFacade({ specification: 'api.json', baseDir: dir, missingOperation: 'mock', observe }, { logger: silentLogger, env: {} }).then(
      () => assert.fail(`expected a startup error for ${paths} ${JSON.stringify(observe)}`),
      (e: { code: string; exitCode: number; message: string }) => e,
    );
    assert.equal(err.code, 'SVC_OBSERVE_PATH_CONFLICT');
    assert.equal(err.exitCode, 2);
    assert.match(err.message, message);
  }
  const dir = tempDir({ 'api.json': contract(['/observe/health']) });
  const app = await serve({ specification: 'api.json', baseDir: dir, missingOperation: 'mock', observe: { port: 0, host: '127.0.0.1', healthPath: '/observe/health' } });
  try {
    const res = await fetch(`${app.origin}/observe/health`);
    assert.ok(res.status < 300, String(res.status));
    assert.doesNotMatch(await res.text(), /"checks"/, 'the contract operation answers there, not the health probe');
  } finally {
    await app.close();
  }
});

test('default observe paths a contract would match are left out with a warning (never shadowing); the others are served', async () => {
  const dir = tempDir({ 'api.json': contract(['/{a}/{b}/{c}']) });
  const app = await serve({ specification: 'api.json', baseDir: dir, missingOperation: 'mock' });
  try {
    assert.deepEqual(app.logger.lines.filter((l) => l.startsWith('WARN')), [
      'WARN health not served: svc.observe.healthPath /observe/health/live would shadow a path of the contract; choose another path, or serve health and metrics on a management port (svc.observe.port)',
    ]);
    const live = await fetch(`${app.origin}/observe/health/live`);
    assert.doesNotMatch(await live.text(), /"checks"/, 'the contract answers its own path');
    assert.equal((await fetch(`${app.origin}/observe/health`)).status, 404, 'all of health is left out, not a part of it');
    assert.equal((await fetch(`${app.origin}/observe/metrics`)).status, 200, 'metrics shadow nothing here');
  } finally {
    await app.close();
  }
  const both = tempDir({ 'api.json': contract(['/{a}/{b}']) });
  const bare = await serve({ specification: 'api.json', baseDir: both, missingOperation: 'mock' });
  try {
    const warnings = bare.logger.lines.filter((l) => l.startsWith('WARN'));
    assert.equal(warnings.length, 2);
    assert.match(warnings[1]!, /^WARN metrics not served: svc\.observe\.metricsPath \/observe\/metrics would shadow/);
  } finally {
    await bare.close();
  }
});
