// Camel's loadBalance EIP over several backends (roundRobin, random, weighted, failover), in the YAML and XML
// DSLs and the fluent API, with outlier ejection: 5 failures in a row leave an endpoint out (30 s, doubling,
// at most 300 s), never the last one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { RouteBuilder } from '../../lib/index.js';
import { Balancer } from '../../lib/routes/load-balance.js';
import { serve, tempDir, type Running } from '../helpers.js';
import { deadOrigin, faultyBackend, type FaultyBackend } from './faulty-backend.js';

const CONTRACT = `openapi: 3.0.3
info: { title: balanced, version: '1' }
paths:
  /items/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get: { operationId: getItem, responses: { '200': { description: ok } } }
  /orders:
    post:
      operationId: createOrder
      requestBody: { content: { application/json: { schema: { type: object } } } }
      responses: { '201': { description: created } }
`;

const contractFile = (): string => join(tempDir({ 'openapi.yaml': CONTRACT }), 'openapi.yaml');

function yamlFacade(strategy: string, origins: string[]): Promise<Running> {
  const steps = origins.map((o) => `              - to: ${o}/x\n`).join('');
  const route = (id: string): string => `- route:\n    from:\n      uri: direct:${id}\n      steps:\n        - loadBalance:\n            ${strategy}\n            steps:\n${steps}`;
  const yaml = `- rest:\n    openApi:\n      specification: ${contractFile()}\n- backend:\n    retries: 0\n${route('getItem')}${route('createOrder')}`;
  return serve([join(tempDir({ 'app.yaml': yaml }), 'app.yaml')], { env: {} });
}

async function backends(count: number): Promise<FaultyBackend[]> {
  return Promise.all(Array.from({ length: count }, () => faultyBackend(() => ({ status: 200, body: '{}' }))));
}

test('roundRobin over three replicas, one dead: after its first 5 failures it is ejected and the clients see under 1 % errors; metrics count the ejection', async () => {
  const live = await backends(2);
  const dead = await deadOrigin();
  const running = await yamlFacade('roundRobin: {}', [live[0]!.origin, dead, live[1]!.origin]);
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 300; i++) {
      const res = await fetch(`${running.origin}/items/1`);
      await res.arrayBuffer();
      statuses.push(res.status);
    }
    const errors = statuses.filter((s) => s !== 200).length;
    assert.equal(errors, 5, 'the 5 failures that ejected it, none after');
    assert.ok(live[0]!.seen.length + live[1]!.seen.length === 295);
    const metrics = await (await fetch(`${running.origin}/observe/metrics`)).text();
    assert.match(metrics, /^svc_load_balancer_ejected_endpoints\{route="getItem"\} 1$/m);
  } finally {
    await running.close();
    for (const b of live) await b.close();
  }
});

test('failover: a failed call goes to the next endpoint when the contract lets the request be sent again; a POST without a key does not', async () => {
  const [live] = await backends(1);
  const dead = await deadOrigin();
  const running = await yamlFacade('failover: { maximumFailoverAttempts: 1 }', [dead, live!.origin]);
  try {
    assert.equal((await fetch(`${running.origin}/items/1`)).status, 200);
    assert.equal(live!.seen.length, 1);
    const post = await fetch(`${running.origin}/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(post.status, 502);
    assert.equal(live!.seen.length, 1, 'not sent to the other endpoint');
  } finally {
    await running.close();
    await live!.close();
  }
});

test('weighted distributionRatio 2,1 sends two calls to the first endpoint for each to the second; random spreads over both', async () => {
  const pair = await backends(2);
  const weighted = await yamlFacade("weighted: { distributionRatio: '2,1' }", pair.map((b) => b.origin));
  try {
    for (let i = 0; i < 30; i++) await (await fetch(`${weighted.origin}/items/1`)).arrayBuffer();
    assert.deepEqual(pair.map((b) => b.seen.length), [20, 10]);
  } finally {
    await weighted.close();
  }
  const random = await yamlFacade('random: {}', pair.map((b) => b.origin));
  try {
    for (let i = 0; i < 60; i++) await (await fetch(`${random.origin}/items/1`)).arrayBuffer();
    assert.ok(pair.every((b) => b.seen.length > 10 + 5), pair.map((b) => b.seen.length).join(','));
  } finally {
    await random.close();
    for (const b of pair) await b.close();
  }
});

test('XML <loadBalance><roundRobin/> and the fluent loadBalance().roundRobin() alternate between their endpoints', async () => {
  const pair = await backends(2);
  const contract = contractFile();
  const xml = `<svc><rest><openApi specification="${contract}" missingOperation="mock"/></rest><route><from uri="direct:getItem"/><loadBalance><roundRobin/><to uri="${pair[0]!.origin}/x"/><to uri="${pair[1]!.origin}/x"/></loadBalance></route></svc>`;
  const [a, b] = pair.map((p) => p.origin);
  class Fluent extends RouteBuilder {
    configure(): void {
      this.rest().openApi().specification(contract).missingOperation('mock');
      this.from('direct:getItem').loadBalance().roundRobin().to(`${a}/x`).to(`${b}/x`).end();
    }
  }
  try {
    for (const [surface, input] of [['XML', [join(tempDir({ 'app.xml': xml }), 'app.xml')]], ['fluent', Fluent]] as const) {
      const before = pair.map((p) => p.seen.length);
      const running = await serve(input, { env: {} });
      try {
        for (let i = 0; i < 4; i++) assert.equal((await fetch(`${running.origin}/items/1`)).status, 200, surface);
        assert.deepEqual(pair.map((p, i) => p.seen.length - before[i]!), [2, 2], surface);
      } finally {
        await running.close();
      }
    }
  } finally {
    for (const p of pair) await p.close();
  }
});

test('outlier ejection: 30 s after 5 failures in a row, then 60 s, at most 300 s; the ejected endpoint is probed again after its time; never the last usable one', () => {
  const balancer = new Balancer([() => undefined, () => undefined], { kind: 'roundRobin' });
  let now = 1_000;
  const fail5 = (i: number): void => {
    for (let k = 0; k < 5; k++) balancer.record(i, true, now);
  };
  fail5(0);
  assert.equal(balancer.ejected(now), 1);
  assert.deepEqual([balancer.choose(now), balancer.choose(now), balancer.choose(now)], [1, 1, 1]);
  // The last usable endpoint is never ejected, however it fails.
  fail5(1);
  assert.equal(balancer.ejected(now), 1);
  now += 30_000;
  assert.equal(balancer.ejected(now), 0, 'back after 30 s');
  assert.ok([balancer.choose(now), balancer.choose(now)].includes(0), 'probed again');
  fail5(0);
  assert.equal(balancer.ejected(now + 59_999), 1, 'the second ejection lasts 60 s');
  assert.equal(balancer.ejected(now + 60_000), 0);
  for (let e = 0; e < 6; e++) {
    now += 400_000;
    fail5(0);
  }
  assert.equal(balancer.ejected(now + 299_999), 1);
  assert.equal(balancer.ejected(now + 300_000), 0, 'at most 300 s');
  // A success resets the count: 4 failures, a success, 4 failures eject nothing.
  now += 400_000;
  for (let k = 0; k < 4; k++) balancer.record(0, true, now);
  balancer.record(0, false, now);
  for (let k = 0; k < 4; k++) balancer.record(0, true, now);
  assert.equal(balancer.ejected(now), 0);
});
