// A query parameter that differs from a declared one only by letter case or by `[...]` (`Status`, `status[]`),
// or that is named like a declared header parameter, never hands the route or the backend a value
// validation did not check: refused (400 naming it) with validation on, dropped from the exchange without.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { PETSTORE, serve, tempDir } from '../helpers.js';
import { rawBackend, rawGet } from './raw-peers.js';

const POSING = [
  ['status=sold&Status=evil', 'Status', 'query parameter status'],
  ['STATUS=evil', 'STATUS', 'query parameter status'],
  ['status=sold&status[]=evil', 'status[]', 'query parameter status'],
  ['status[0]=evil', 'status[0]', 'query parameter status'],
  ['St%61tus=evil', 'Status', 'query parameter status'],
] as const;

test('validation on: a query name posing as a declared parameter is refused with 400 naming it; the backend receives nothing', async () => {
  const backend = await rawBackend();
  const route = [{ kind: 'to' as const, uri: `${backend.origin}/pets` }];
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { clientRequestValidation: true }, routes: { findPetsByStatus: route, deletePet: route } });
  try {
    for (const [query, name, declared] of POSING) {
      const answer = await rawGet(running.origin, `/api/v3/pet/findByStatus?${query}`);
      assert.equal(answer.status, 400, `${query}: ${answer.body}`);
      const problem = JSON.parse(answer.body);
      assert.deepEqual(problem.errors, [{ in: 'query', name, pointer: '', message: `poses as the declared ${declared} (the same name in another letter case, or with [...] after it): its value would reach the route and the backend unchecked` }], query);
    }
    // Named like the declared header parameter api_key: it would join the header validation checked.
    const header = await rawGet(running.origin, '/api/v3/pet/1?API_KEY=evil', ['api_key: real'], 'DELETE');
    assert.equal(header.status, 400, header.body);
    assert.equal(JSON.parse(header.body).errors[0].message.startsWith('poses as the declared header parameter api_key'), true, header.body);
    // Unicode lower-casing, as the exchange headers do it: KELVIN SIGN (U+212A) lower-cases to `k`.
    const kelvin = await rawGet(running.origin, '/api/v3/pet/1?api_%E2%84%AAey=evil', ['api_key: real'], 'DELETE');
    assert.equal(kelvin.status, 400, kelvin.body);
    assert.equal(JSON.parse(Buffer.from(kelvin.body, 'latin1').toString('utf8')).errors[0].name, 'api_\u212Aey', 'the body is UTF-8');
    assert.deepEqual(backend.received, []);
    const fine = await rawGet(running.origin, '/api/v3/pet/findByStatus?status=sold&other=1');
    assert.equal(fine.status, 200, fine.body);
    assert.equal(backend.received[0]!.field('status'), 'sold');
  } finally {
    await running.close();
    await backend.close();
  }
});

test('validation off: a posing name is dropped from the exchange, never merged into the declared parameter\'s header (the contract default stands in for an absent one)', async () => {
  const backend = await rawBackend();
  const seen: unknown[] = [];
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      findPetsByStatus: [{ kind: 'process', fn: (ex) => void seen.push(ex.header('status')) }, { kind: 'to', uri: `${backend.origin}/pets` }],
      deletePet: [{ kind: 'to', uri: `${backend.origin}/pets` }],
    },
  });
  try {
    const expected: Record<string, string> = { 'status=sold&Status=evil': 'sold', STATUS: 'available', 'status=sold&status[]=evil': 'sold', 'status[0]=evil': 'available', 'St%61tus=evil': 'available' };
    for (const [query] of POSING) {
      const answer = await rawGet(running.origin, `/api/v3/pet/findByStatus?${query}`);
      assert.equal(answer.status, 200, answer.body);
    }
    assert.deepEqual(seen, POSING.map(([query]) => expected[query] ?? expected[query.split('=')[0]!]), 'what the route saw');
    assert.deepEqual(backend.received.map((r) => r.field('status')), seen, 'what the backend got as the header');
    assert.equal((await rawGet(running.origin, '/api/v3/pet/1?API_KEY=evil', ['api_key: real'], 'DELETE')).status, 200);
    assert.equal(backend.received.at(-1)!.field('api_key'), 'real');
  } finally {
    await running.close();
    await backend.close();
  }
});

/** A contract in the PHP style: a query parameter declared as `ids[]`, a deepObject `filter`, a header `X-Tenant`. */
const BRACKETS = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'brackets', version: '1' },
  paths: {
    '/items': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'ids[]', in: 'query', style: 'form', explode: true, schema: { type: 'array', items: { type: 'integer' } } },
          { name: 'filter', in: 'query', style: 'deepObject', explode: true, schema: { type: 'object', properties: { color: { type: 'string', enum: ['red', 'blue'] } } } },
          { name: 'X-Tenant', in: 'header', schema: { type: 'string', enum: ['t1'] } },
        ],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
});

test('validation on, brackets declared: `ids`, `ids[0]`, `IDS[]` pose as `ids[]`, `Filter[color]` as the deepObject filter; the declared forms pass', async () => {
  const dir = tempDir({ 'openapi.json': BRACKETS });
  const running = await serve({ specification: join(dir, 'openapi.json'), restConfiguration: { clientRequestValidation: true }, routes: { listItems: [{ kind: 'setBody', expression: { constant: 'listed' } }] } });
  try {
    for (const [query, name, declared] of [['ids=1', 'ids', 'ids[]'], ['ids[]=1&ids[0]=2', 'ids[0]', 'ids[]'], ['IDS[]=1', 'IDS[]', 'ids[]'], ['Filter[color]=red', 'Filter[color]', 'filter'], ['x-tenant=t2', 'x-tenant', 'X-Tenant']]) {
      const answer = await rawGet(running.origin, `/items?${query}`);
      assert.equal(answer.status, 400, `${query}: ${answer.body}`);
      const [violation] = JSON.parse(answer.body).errors;
      assert.equal(violation.name, name, query);
      assert.match(violation.message, new RegExp(`^poses as the declared (query|header) parameter ${declared.replace(/[[\]]/g, '\\$&')} `), query);
    }
    for (const query of ['ids[]=1&ids[]=2', 'filter[color]=red', 'ids[]=1&filter[color]=blue&other=x']) {
      const answer = await rawGet(running.origin, `/items?${query}`);
      assert.equal(answer.status, 200, `${query}: ${answer.body}`);
    }
  } finally {
    await running.close();
  }
});
