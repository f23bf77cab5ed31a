// Camel's circuitBreaker EIP with resilience4jConfiguration, in the YAML and XML DSLs and the fluent API:
// an open breaker answers (503 problem+json with Retry-After, or the onFallback steps) without calling the
// backend; half-open lets the configured probes through and closes again when they succeed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RouteBuilder } from '../../lib/index.js';
import { serve, tempDir, type Running } from '../helpers.js';
import { faultyBackend } from './faulty-backend.js';

const CONTRACT = `openapi: 3.0.3
info: { title: breaker, version: '1' }
paths:
  /items/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get: { operationId: getItem, responses: { '200': { description: ok } } }
`;

// 1 s open: the 50 requests answered while open must all fit in it, on a busy machine too (Retry-After stays 1).
const CONFIG = { failureRateThreshold: 50, slidingWindowSize: 4, minimumNumberOfCalls: 4, waitDurationInOpenState: '1s', permittedNumberOfCallsInHalfOpenState: 2 };

function files(origin: string): { yaml: string; xml: string; contract: string } {
  const dir = tempDir({ 'openapi.yaml': CONTRACT });
  const contract = join(dir, 'openapi.yaml');
  const yaml = `- rest:\n    openApi:\n      specification: ${contract}\n- backend:\n    retries: 0\n- route:\n    from:\n      uri: direct:getItem\n      steps:\n        - circuitBreaker:\n            resilience4jConfiguration: ${JSON.stringify(CONFIG)}\n            steps:\n              - to: ${origin}/item\n`;
  const attributes = Object.entries(CONFIG).map(([k, v]) => `${k}="${v}"`).join(' ');
  const xml = `<svc><rest><openApi specification="${contract}"/></rest><backend retries="0"/><route><from uri="direct:getItem"/><circuitBreaker><resilience4jConfiguration ${attributes}/><to uri="${origin}/item"/><onFallback><setBody><constant>fallback</constant></setBody></onFallback></circuitBreaker></route></svc>`;
  return { yaml: join(tempDir({ 'app.yaml': yaml }), 'app.yaml'), xml: join(tempDir({ 'app.xml': xml }), 'app.xml'), contract };
}

async function get(running: Running): Promise<{ status: number; type: string | null; retryAfter: string | null; body: string }> {
  const res = await fetch(`${running.origin}/items/1`);
  return { status: res.status, type: res.headers.get('content-type'), retryAfter: res.headers.get('retry-after'), body: await res.text() };
}

test('YAML circuitBreaker: 4 undeclared 500s open it; open answers 503 problem+json with Retry-After at once, without calling the backend; after waitDurationInOpenState 2 probes close it', async () => {
  let healthy = false;
  const backend = await faultyBackend(() => (healthy ? { status: 200, body: '{"ok":true}' } : { status: 500 }));
  const running = await serve([files(backend.origin).yaml], { env: {} });
  try {
    for (let i = 0; i < 4; i++) assert.equal((await get(running)).status, 500, 'the backend\'s answer while closed');
    assert.equal(backend.seen.length, 4);
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const started = performance.now();
      const open = await get(running);
      times.push(performance.now() - started);
      assert.equal(open.status, 503);
      assert.equal(open.type, 'application/problem+json');
      assert.equal(open.retryAfter, '1');
      assert.match(JSON.parse(open.body).detail as string, /calls to it are suspended for 1 s/);
    }
    assert.equal(backend.seen.length, 4, 'an open breaker never calls the backend');
    const metrics = await (await fetch(`${running.origin}/observe/metrics`)).text();
    assert.match(metrics, /^svc_circuit_breaker_state\{route="getItem",state="open"\} 1$/m);
    assert.match(metrics, /^svc_circuit_breaker_state\{route="getItem",state="closed"\} 0$/m);
    assert.match(metrics, /^svc_circuit_breaker_rejected_total\{route="getItem"\} 50$/m);
    times.sort((a, b) => a - b);
    // Under 5 ms p99 on an idle machine; a generous ceiling here (the machine may be busy).
    assert.ok(times[Math.floor(times.length * 0.99) - 1]! < 100, `p99 ${times[Math.floor(times.length * 0.99) - 1]} ms`);
    healthy = true;
    await new Promise((r) => setTimeout(r, 1050));
    assert.equal((await get(running)).status, 200, 'probe 1');
    assert.equal((await get(running)).status, 200, 'probe 2');
    assert.equal((await get(running)).status, 200, 'closed again');
    assert.equal(backend.seen.length, 7);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('a failing half-open probe opens the breaker again for another waitDurationInOpenState', async () => {
  const backend = await faultyBackend(() => ({ status: 502 }));
  const running = await serve([files(backend.origin).yaml], { env: {} });
  try {
    for (let i = 0; i < 4; i++) await get(running);
    await new Promise((r) => setTimeout(r, 1050));
    assert.equal((await get(running)).status, 502, 'probe 1');
    assert.equal((await get(running)).status, 502, 'probe 2');
    assert.equal((await get(running)).status, 503, 'open again');
    assert.equal(backend.seen.length, 6);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('XML and fluent circuitBreaker with onFallback: a failed call and an open breaker answer with the fallback; the open one calls no backend', async () => {
  const dead = await faultyBackend(() => 'reset');
  const { xml, contract } = files(dead.origin);
  const origin = dead.origin;
  class Fluent extends RouteBuilder {
    configure(): void {
      this.rest().openApi().specification(contract);
      this.backend().retries(0);
      this.from('direct:getItem').circuitBreaker(CONFIG).to(`${origin}/item`).onFallback().setBody({ constant: 'fallback' }).end();
    }
  }
  try {
    for (const [surface, input] of [['XML', [xml]], ['fluent', Fluent]] as const) {
      const before = dead.seen.length;
      const running = await serve(input, { env: {} });
      try {
        for (let i = 0; i < 6; i++) {
          const answer = await get(running);
          assert.deepEqual([answer.status, answer.body], [200, 'fallback'], surface);
        }
        assert.equal(dead.seen.length - before, 4, `${surface}: 4 calls opened it, the next 2 were answered by the fallback alone`);
      } finally {
        await running.close();
      }
    }
  } finally {
    await dead.close();
  }
});

test('a bad resilience4jConfiguration key or value fails startup naming it', async () => {
  const { contract } = files('http://127.0.0.1:9');
  for (const [config, message] of [
    ['{ failureRate: 50 }', /unknown resilience4jConfiguration key failureRate; allowed: failureRateThreshold, slidingWindowSize/],
    ['{ failureRateThreshold: 150 }', /failureRateThreshold has invalid value 150; allowed: an integer from 1 to 100/],
    ['{ waitDurationInOpenState: soon }', /waitDurationInOpenState has invalid value "soon"/],
  ] as const) {
    const yaml = `- rest:\n    openApi:\n      specification: ${contract}\n- route:\n    from:\n      uri: direct:getItem\n      steps:\n        - circuitBreaker:\n            resilience4jConfiguration: ${config}\n            steps:\n              - to: http://127.0.0.1:9/x\n`;
    await assert.rejects(serve([join(tempDir({ 'app.yaml': yaml }), 'app.yaml')], { env: {} }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'SVC_STEP_INVALID');
      assert.match(err.message, message);
      return true;
    });
  }
});
