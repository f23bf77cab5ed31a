// Plain string and integer parameters in the path and a form query are known valid from their text alone
// (lib/parameters/fast-path.ts); everything else goes to the full check. The same requests against
// the same contract, once with plain schemas and once with a no-op keyword that forces the full check, must
// get the same answers, errors included; and a route sees the same headers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Exchange } from '../../lib/index.js';
import type { Running } from '../helpers.js';
import { call, serveContract } from './fixtures.js';

function contract(extra: Record<string, unknown>): object {
  const param = (name: string, where: string, required: boolean, schema: Record<string, unknown>) => ({ name, in: where, required, schema: { ...schema, ...extra } });
  return {
    openapi: '3.0.3',
    info: { title: 'simple parameters', version: '1' },
    paths: {
      '/items/{id}': {
        get: {
          operationId: 'getItem',
          parameters: [
            param('id', 'path', true, { type: 'integer', format: 'int32', description: 'the id', 'x-note': 'annotated' }),
            param('q', 'query', true, { type: 'string', example: 'shoes' }),
            param('page', 'query', false, { type: 'integer' }),
            param('big', 'query', false, { type: 'integer', format: 'int64' }),
          ],
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: {} } } } },
        },
      },
    },
  };
}

const echo = (ex: Exchange): void => {
  ex.body = { id: ex.header('id'), q: ex.header('q'), page: ex.header('page'), method: ex.header('SvcHttpMethod'), query: ex.header('SvcHttpQuery') };
};

let simple: Running;
let general: Running;
before(async () => {
  simple = await serveContract(contract({}), { routes: { getItem: echo } });
  // `nullable: false` changes nothing a value must be, but is not a keyword the simple check knows.
  general = await serveContract(contract({ nullable: false }), { routes: { getItem: echo } });
});
after(async () => {
  await simple.close();
  await general.close();
});

const REQUESTS: [string, number][] = [
  ['/items/7?q=a&page=12&big=123456789012345', 200],
  ['/items/0?q=', 200],
  ['/items/-2147483648?q=a', 200], // int32's lowest: the full check decides
  ['/items/7?q=a&page=05', 200], // not canonical: the full check coerces it
  ['/items/7?q=a&page=%2B5', 200],
  ['/items/7?q=a&page=1e3', 200],
  ['/items/7?q=a&big=1234567890123456789', 200], // past 15 digits: the full check decides
  ['/items/7?page=1', 400], // q missing
  ['/items/7?q=a&q=b', 400], // q repeated
  ['/items/7?q=a&page=1&page=2', 400],
  ['/items/x?q=a', 400],
  ['/items/2147483648?q=a', 400],
  ['/items/1.5?q=a', 400],
  ['/items/7?q=a&page=ten', 400],
];

test('plain parameters get the same answers as with the full check', async () => {
  for (const [path, status] of REQUESTS) {
    // The same request id for both, so problem bodies (instance) can be compared whole.
    const headers = { 'x-request-id': `simple-${REQUESTS.findIndex(([p]) => p === path)}` };
    const a = await call(simple, 'GET', path, { headers });
    const b = await call(general, 'GET', path, { headers });
    assert.equal(a.status, status, `${path}: ${JSON.stringify(a.body)}`);
    assert.deepEqual(a, b, path);
  }
});

test('a missing required query parameter is reported as before', async () => {
  const answer = await call(simple, 'GET', '/items/7');
  assert.equal(answer.status, 400);
  assert.deepEqual(answer.body.errors.map((e: { in: string; name: string }) => `${e.in}:${e.name}`), ['query:q']);
});

test('the route sees path, query and SvcHttp* headers, typed as the contract says (integers as numbers)', async () => {
  const answer = await call(simple, 'GET', '/items/7?q=a&page=12');
  assert.deepEqual(answer.body, { id: 7, q: 'a', page: 12, method: 'GET', query: 'q=a&page=12' });
});
