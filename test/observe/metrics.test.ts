// Metrics (issue 12): the exposition text read by a Prometheus text-format parser, and every counter
// checked against the requests this test sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { getMetricsFromIterator } from 'prom2javascript';
import { createLogger, type Exchange } from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';

/** One metric family as prom2javascript (a Prometheus text-format parser) reads it. */
interface Family {
  type: string;
  help: string;
  data: { labels: Record<string, string>; value?: number; buckets?: Record<string, number>; count?: number; sum?: number }[];
}

async function scrape(origin: string, path = '/observe/metrics'): Promise<Map<string, Family>> {
  const res = await fetch(`${origin}${path}`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  const text = await res.text();
  const families = (await getMetricsFromIterator(text.split('\n')[Symbol.iterator]())) as Record<string, Family>;
  return new Map(Object.entries(families));
}

/** The value of the one series whose labels include `labels`; 0 when there is none (a series not yet seen). */
function value(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const family = families.get(name);
  assert.ok(family, `family ${name} is exposed`);
  const matching = family.data.filter((m) => Object.entries(labels).every(([k, v]) => m.labels[k] === v));
  assert.ok(matching.length <= 1, `${name} ${JSON.stringify(labels)} names one series`);
  const m = matching[0];
  return m === undefined ? 0 : Number(m.value ?? m.count);
}

const PET = JSON.stringify({ name: 'doggie', photoUrls: ['x'] });

test('counters, histograms and bytes match the requests sent, by operation, method and status class', async () => {
  const app = await serve({
    specification: PETSTORE,
    missingOperation: 'mock',
    restConfiguration: { clientRequestValidation: true },
    routes: {
      getPetById: (ex: Exchange) => void (ex.body = { id: Number(ex.header('petId')), name: 'doggie' }),
      getOrderById: () => {
        throw new Error('the backend of orders is down');
      },
    },
  });
  try {
    const sent: Response[] = [];
    const send = async (path: string, init?: RequestInit): Promise<Response> => {
      const res = await fetch(`${app.origin}${path}`, init);
      await res.arrayBuffer();
      sent.push(res);
      return res;
    };
    for (const id of [1, 2, 3]) assert.equal((await send(`/api/v3/pet/${id}`)).status, 200);
    assert.equal((await send('/api/v3/pet/not-a-number')).status, 400);
    const json = { 'content-type': 'application/json' };
    assert.equal((await send('/api/v3/pet', { method: 'POST', headers: json, body: PET })).status, 200);
    assert.equal((await send('/api/v3/pet', { method: 'POST', headers: json, body: '{"name": ' })).status, 400);
    assert.equal((await send('/api/v3/user/user1')).status, 200);
    assert.equal((await send('/api/v3/user/user1', { method: 'HEAD' })).status, 200);
    assert.equal((await send('/api/v3/store/order/7')).status, 500);
    assert.equal((await send('/nowhere')).status, 404);
    assert.equal((await send('/api/v3/nowhere/else')).status, 404);
    assert.equal((await send('/api/v3/pet/1', { method: 'PATCH' })).status, 405);

    const m = await scrape(app.origin);
    const op = (operationId: string, method: string, extra: Record<string, string> = {}) => ({ operationId, method, ...extra });
    assert.equal(value(m, 'svc_http_requests_total', op('getPetById', 'GET', { status_class: '2xx' })), 3);
    assert.equal(value(m, 'svc_http_requests_total', op('getPetById', 'GET', { status_class: '4xx' })), 1);
    assert.equal(value(m, 'svc_http_requests_total', op('addPet', 'POST', { status_class: '2xx' })), 1);
    assert.equal(value(m, 'svc_http_requests_total', op('addPet', 'POST', { status_class: '4xx' })), 1);
    assert.equal(value(m, 'svc_http_requests_total', op('getUserByName', 'GET', { status_class: '2xx' })), 2, 'HEAD is served by the GET operation');
    assert.equal(value(m, 'svc_http_requests_total', op('getOrderById', 'GET', { status_class: '5xx' })), 1);
    assert.equal(m.get('svc_http_requests_total')!.type, 'counter');
    const total = m.get('svc_http_requests_total')!.data.reduce((n, s) => n + s.value!, 0);
    assert.equal(total, 9, 'every request an operation answered, and nothing else (not the scrape, not 404/405)');

    const durations = m.get('svc_http_request_duration_seconds')!;
    assert.equal(durations.type, 'histogram');
    const petOk = durations.data.find((s) => s.labels.operationId === 'getPetById' && s.labels.status_class === '2xx')!;
    assert.equal(petOk.count, 3);
    assert.equal(petOk.buckets!['+Inf'], 3);
    const bounds = Object.keys(petOk.buckets!).filter((b) => b !== '+Inf').map(Number).sort((a, b) => a - b);
    assert.deepEqual(bounds, [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]);
    const cumulative = bounds.map((b) => Number(petOk.buckets![String(b)]));
    assert.deepEqual([...cumulative].sort((a, b) => a - b), cumulative, 'buckets are cumulative');
    assert.ok(petOk.sum! > 0);

    assert.equal(value(m, 'svc_validation_rejections_total', op('getPetById', 'GET')), 1);
    assert.equal(value(m, 'svc_validation_rejections_total', op('addPet', 'POST')), 1);
    assert.equal(value(m, 'svc_mock_answers_total', op('addPet', 'POST')), 1, 'the rejected POST never reached the mock');
    assert.equal(value(m, 'svc_mock_answers_total', op('getUserByName', 'GET')), 2);
    assert.equal(value(m, 'svc_mock_answers_total', op('getPetById', 'GET')), 0, 'a route is not a mock');
    assert.equal(value(m, 'svc_http_unmatched_requests_total', { status: '404' }), 2);
    assert.equal(value(m, 'svc_http_unmatched_requests_total', { status: '405' }), 1);
    assert.equal(value(m, 'svc_http_requests_in_flight'), 0);

    assert.equal(value(m, 'svc_http_request_body_bytes_total', op('addPet', 'POST')), Buffer.byteLength(PET) + Buffer.byteLength('{"name": '));
    const petBytes = sent.filter((r) => /\/pet\/(\d|not)/.test(r.url) && r.status !== 405).reduce((n, r) => n + Number(r.headers.get('content-length')), 0);
    assert.equal(value(m, 'svc_http_response_body_bytes_total', op('getPetById', 'GET')), petBytes);
    const userGet = sent.find((r) => r.url.endsWith('/user/user1'))!;
    assert.equal(value(m, 'svc_http_response_body_bytes_total', op('getUserByName', 'GET')), Number(userGet.headers.get('content-length')), 'HEAD sends no body bytes');

    assert.ok(value(m, 'process_resident_memory_bytes') > 1e6);
    assert.ok(value(m, 'nodejs_heap_size_used_bytes') > 0);
    assert.ok(value(m, 'process_cpu_seconds_total') > 0);
    for (const name of ['nodejs_eventloop_delay_p50_seconds', 'nodejs_eventloop_delay_p99_seconds', 'nodejs_eventloop_delay_max_seconds']) {
      assert.equal(m.get(name)!.type, 'gauge');
      assert.ok(value(m, name) >= 0);
    }

    // A second scrape counts on from the first: counters only grow.
    await send('/api/v3/pet/4');
    assert.equal(value(await scrape(app.origin), 'svc_http_requests_total', op('getPetById', 'GET', { status_class: '2xx' })), 4);
  } finally {
    await app.close();
  }
});

test('durations measure the request: a route that takes 300 ms reads at least that and at most what the client timed, in the histogram and the access log', async () => {
  const lines: string[] = [];
  const write = (line: string): void => void lines.push(line);
  const ROUTE_MS = 300;
  const app = await serve(
    {
      specification: PETSTORE,
      missingOperation: 'ignore',
      routes: { getInventory: async (ex: Exchange) => void (await new Promise((resolve) => setTimeout(resolve, ROUTE_MS)), (ex.body = { waited: ROUTE_MS })) },
      observe: { logFormat: 'json', accessLog: true },
    },
    { logger: createLogger('json', write, write) },
  );
  try {
    const started = performance.now();
    const res = await fetch(`${app.origin}/api/v3/store/inventory`);
    await res.arrayBuffer();
    const clientSeconds = (performance.now() - started) / 1000; // contains the server's measure: its true upper bound
    assert.equal(res.status, 200);

    const access = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'access');
    assert.equal(access.length, 1, lines.join(''));
    const durationMs = access[0]!.durationMs as number;
    assert.ok(durationMs >= ROUTE_MS - 1 && durationMs <= clientSeconds * 1000, `access log durationMs ${durationMs}: between ${ROUTE_MS} and ${clientSeconds * 1000}`);

    const histogram = (await scrape(app.origin)).get('svc_http_request_duration_seconds')!;
    const series = histogram.data.find((s) => s.labels.operationId === 'getInventory' && s.labels.status_class === '2xx')!;
    assert.equal(series.count, 1);
    assert.ok(series.sum! >= (ROUTE_MS - 1) / 1000 && series.sum! <= clientSeconds, `histogram sum ${series.sum} s: between ${ROUTE_MS / 1000} and ${clientSeconds}`);
    for (const [bound, count] of Object.entries(series.buckets!)) {
      const le = bound === '+Inf' ? Infinity : Number(bound);
      if (le < ROUTE_MS / 1000) assert.equal(Number(count), 0, `le=${bound}: shorter than the route took`);
      if (le >= clientSeconds) assert.equal(Number(count), 1, `le=${bound}: longer than the client waited`);
    }
  } finally {
    await app.close();
  }
});

test('in-flight requests are counted while served; a client that leaves early counts as aborted', async () => {
  let enter!: () => void;
  const entered = new Promise<void>((resolve) => (enter = resolve));
  const app = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      // Answers only once its client has gone.
      getInventory: async (ex: Exchange) => {
        const closed = new Promise((resolve) => ex.request!.socket.once('close', resolve));
        enter();
        await closed;
        ex.body = { done: true };
      },
    },
  });
  try {
    const { port } = new URL(app.origin);
    const req = request({ host: '127.0.0.1', port, path: '/api/v3/store/inventory' });
    req.on('error', () => undefined);
    req.end();
    await entered;
    assert.equal(value(await scrape(app.origin), 'svc_http_requests_in_flight'), 1);
    req.destroy();
    for (let tries = 0; value(await scrape(app.origin), 'svc_http_requests_aborted_total') === 0; tries++) {
      assert.ok(tries < 500, 'the answer nobody waits for is counted as aborted');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const m = await scrape(app.origin);
    assert.equal(value(m, 'svc_http_requests_in_flight'), 0);
    assert.equal(value(m, 'svc_http_requests_total', { operationId: 'getInventory' }), 0, 'an aborted request has no status');
  } finally {
    await app.close();
  }
});

test('label values are escaped: an operationId with quotes, backslashes and a line feed parses back unchanged', async () => {
  const weird = 'say "hi" \\ then\nplease';
  const dir = tempDir({
    'api.json': JSON.stringify({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/x': { get: { operationId: weird, responses: { 200: { description: 'ok' } } } } } }),
  });
  const app = await serve({ specification: 'api.json', baseDir: dir, missingOperation: 'ignore', observe: { metricsPath: '/internal/metrics' } });
  try {
    assert.equal((await fetch(`${app.origin}/x`)).status, 204);
    const m = await scrape(app.origin, '/internal/metrics');
    assert.equal(value(m, 'svc_http_requests_total', { operationId: weird, status_class: '2xx' }), 1);
  } finally {
    await app.close();
  }
});

test('metrics: false counts nothing and serves no metrics endpoint', async () => {
  const app = await serve({ specification: PETSTORE, missingOperation: 'mock', observe: { metrics: false } });
  try {
    assert.equal((await fetch(`${app.origin}/api/v3/user/user1`)).status, 200);
    assert.equal((await fetch(`${app.origin}/observe/metrics`)).status, 404);
  } finally {
    await app.close();
  }
});

test('a client that leaves half-way through its request body: the route never runs, the request counts as aborted', async () => {
  let ran = false;
  const app = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { addPet: () => void (ran = true) } });
  try {
    const { port } = new URL(app.origin);
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v3/pet', headers: { 'content-type': 'application/json', 'content-length': '1000' } });
    req.on('error', () => undefined);
    req.write('{"id":1,');
    for (let tries = 0; value(await scrape(app.origin), 'svc_http_requests_in_flight') === 0; tries++) {
      assert.ok(tries < 500, 'the request reached its operation');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    req.destroy();
    for (let tries = 0; value(await scrape(app.origin), 'svc_http_requests_aborted_total') === 0; tries++) {
      assert.ok(tries < 500, 'the body that never completes ends the request as aborted');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(value(await scrape(app.origin), 'svc_http_requests_in_flight'), 0);
    assert.equal(ran, false);
  } finally {
    await app.close();
  }
});

test('event-loop delay reads near 0 on an idle loop and shows a blocked one', async () => {
  const app = await serve({ specification: PETSTORE, missingOperation: 'mock' });
  try {
    await scrape(app.origin); // the histogram starts over from here
    await new Promise((resolve) => setTimeout(resolve, 300));
    const idle = await scrape(app.origin);
    // The monitor's timer fires every 20 ms; an idle loop is late by well under a millisecond.
    assert.ok(value(idle, 'nodejs_eventloop_delay_p50_seconds') < 0.005, `idle p50 ${value(idle, 'nodejs_eventloop_delay_p50_seconds')} s`);
    await new Promise((resolve) => setTimeout(resolve, 50)); // the monitor measures from its first firing after a scrape
    const until = Date.now() + 120;
    while (Date.now() < until); // the loop blocked for 120 ms
    await new Promise((resolve) => setTimeout(resolve, 50));
    const blocked = await scrape(app.origin);
    const max = value(blocked, 'nodejs_eventloop_delay_max_seconds');
    assert.ok(max > 0.08 && max < 0.5, `max after a 120 ms block: ${max} s`);
  } finally {
    await app.close();
  }
});
