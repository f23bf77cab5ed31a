// After validation, path, query and header parameters the contract types as integer, number, boolean,
// array or object reach the route as those types (query defaults too); without validation they stay the
// text received. A backend they are forwarded to still gets the text the client sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import type { Exchange } from '../../lib/index.js';
import { join } from 'node:path';
import { CORPUS, serve, tempDir } from '../helpers.js';
import { httpBackend } from '../sidecar/backends.js';
import { call, serveContract, serveFile, where } from './fixtures.js';

const NAMES = ['id', 'limit', 'ratio', 'active', 'tags', 'filter', 'color', 'x-page', 'x-flags', 'x-strict', 'plain'];

const contract = {
  openapi: '3.0.3',
  info: { title: 'typed', version: '1' },
  paths: {
    '/items/{id}': {
      get: {
        operationId: 'listItems',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'limit', in: 'query', schema: { type: 'integer', default: 20 } },
          { name: 'ratio', in: 'query', schema: { type: 'number' } },
          { name: 'active', in: 'query', schema: { type: 'boolean', default: false } },
          { name: 'tags', in: 'query', explode: false, schema: { type: 'array', items: { type: 'integer' } } },
          { name: 'filter', in: 'query', style: 'deepObject', schema: { type: 'object', properties: { min: { type: 'number' }, open: { type: 'boolean' } } } },
          { name: 'color', in: 'query', explode: false, schema: { type: 'object', properties: { R: { type: 'integer' }, G: { type: 'integer' } } } },
          { name: 'plain', in: 'query', schema: { type: 'string' } },
          { name: 'X-Page', in: 'header', schema: { type: 'integer' } },
          { name: 'X-Flags', in: 'header', schema: { type: 'array', items: { type: 'boolean' } } },
          { name: 'X-Strict', in: 'header', schema: { anyOf: [{ type: 'boolean' }, { type: 'string', enum: ['auto'] }] } },
        ],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: {} } } } },
      },
    },
    // Only simple parameters: validation knows them valid from the text, without typing them first.
    '/simple/{n}': {
      get: {
        operationId: 'simple',
        parameters: [
          { name: 'n', in: 'path', required: true, schema: { type: 'integer' } },
          { name: 'page', in: 'query', schema: { type: 'integer' } },
          { name: 'q', in: 'query', schema: { type: 'string' } },
        ],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: {} } } } },
      },
    },
  },
};

const seen = (names: string[]) => (ex: Exchange) => {
  ex.body = Object.fromEntries(names.map((n) => [n, ex.header(n) ?? null]));
};

const QUERY = '/items/7?limit=5&ratio=0.25&active=true&tags=1,2&filter[min]=1.5&filter[open]=false&color=R,100,G,200&plain=42';
const HEADERS = { 'x-page': '3', 'x-flags': 'true,false', 'x-strict': 'true' };

test('with validation the route gets the contract types: path, query (deepObject, form arrays and objects), header, anyOf', async () => {
  const r = await serveContract(contract, { routes: { listItems: seen(NAMES), simple: seen(['n', 'page', 'q']) } });
  try {
    const res = await call(r, 'GET', QUERY, { headers: HEADERS });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      id: 7, limit: 5, ratio: 0.25, active: true, tags: [1, 2], filter: { min: 1.5, open: false }, color: { R: 100, G: 200 },
      'x-page': 3, 'x-flags': [true, false], 'x-strict': true, plain: '42',
    });
    // Defaults are the contract's values, typed.
    const defaults = await call(r, 'GET', '/items/7');
    assert.deepEqual(defaults.body, { id: 7, limit: 20, ratio: null, active: false, tags: null, filter: null, color: null, 'x-page': null, 'x-flags': null, 'x-strict': null, plain: null });
    assert.equal((await call(r, 'GET', '/items/7', { headers: { 'x-strict': 'auto' } })).body['x-strict'], 'auto');
    // Parameters validation knew valid from their text are typed too.
    assert.deepEqual((await call(r, 'GET', '/simple/12?page=3&q=9')).body, { n: 12, page: 3, q: '9' });
    assert.deepEqual((await call(r, 'GET', '/simple/12')).body, { n: 12, page: null, q: null });
  } finally {
    await r.close();
  }
});

test('a boolean parameter is only "true" or "false": "1" and "0" are a 400, alone, in an array or in an object (docs/validation.md)', async () => {
  const r = await serveContract(contract, { routes: { listItems: seen(NAMES), simple: seen(['n', 'page', 'q']) } });
  try {
    for (const [path, headers, name] of [
      ['/items/7?active=1', {}, 'query:active'],
      ['/items/7?active=0', {}, 'query:active'],
      ['/items/7', { 'x-flags': '1,0' }, 'header:X-Flags /0'],
      ['/items/7?filter[open]=1', {}, 'query:filter /open'],
    ] as const) {
      const res = await call(r, 'GET', path, { headers });
      assert.equal(res.status, 400, `${path} ${JSON.stringify(headers)}: ${JSON.stringify(res.body)}`);
      assert.ok(where(res).includes(name), `${path}: ${where(res).join(', ')}`);
    }
  } finally {
    await r.close();
  }
});

test('an anyOf parameter takes the first branch whose minLength and maxLength the text meets (docs/validation.md)', async () => {
  const branches = {
    openapi: '3.0.3',
    info: { title: 'branches', version: '1' },
    paths: {
      '/branches': {
        get: {
          operationId: 'branches',
          parameters: [
            { name: 'short', in: 'query', schema: { anyOf: [{ type: 'string', maxLength: 2 }, { type: 'integer' }] } },
            { name: 'long', in: 'query', schema: { anyOf: [{ type: 'string', minLength: 4 }, { type: 'integer' }] } },
          ],
          responses: { '200': { description: 'ok', content: { 'application/json': { schema: {} } } } },
        },
      },
    },
  };
  const b = await serveContract(branches, { routes: { branches: seen(['short', 'long']) } });
  try {
    assert.deepEqual((await call(b, 'GET', '/branches?short=123&long=123')).body, { short: 123, long: 123 }, 'too long, too short for the string branch: the integer one');
    assert.deepEqual((await call(b, 'GET', '/branches?short=12&long=1234')).body, { short: '12', long: '1234' }, 'the string branch fits: taken first');
  } finally {
    await b.close();
  }
});

test('without validation every parameter stays the text received, defaults included', async () => {
  const r = await serveContract(contract, { requests: false, routes: { listItems: seen(NAMES), simple: seen(['n', 'page']) } });
  try {
    const res = await call(r, 'GET', QUERY, { headers: HEADERS });
    assert.deepEqual(res.body, {
      id: '7', limit: '5', ratio: '0.25', active: 'true', tags: '1,2', filter: null, color: 'R,100,G,200',
      'x-page': '3', 'x-flags': 'true,false', 'x-strict': 'true', plain: '42',
    });
    const defaults = await call(r, 'GET', '/items/7');
    assert.equal(defaults.body.limit, '20');
    assert.equal(defaults.body.active, 'false');
    assert.deepEqual((await call(r, 'GET', '/simple/12?page=3')).body, { n: '12', page: '3' });
  } finally {
    await r.close();
  }
});

test('a route that writes a typed name replaces it; ${headers} shows the typed values; a backend gets the text as sent', async () => {
  let received: IncomingHttpHeaders = {};
  const backend = await httpBackend((req, res) => {
    received = req.headers;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  const seenByRoute: Record<string, unknown> = {};
  const r = await serve(
    {
      specification: join(tempDir({ 'api.json': JSON.stringify(contract) }), 'api.json'),
      missingOperation: 'ignore',
      restConfiguration: { clientRequestValidation: true },
      routes: {
        listItems: [
          {
            kind: 'process',
            fn: (ex: Exchange) => {
              Object.assign(seenByRoute, { limit: ex.header('limit'), active: ex.header('active'), all: ex.message.headers.toObject() });
              ex.message.headers.set('ratio', 'overwritten');
              seenByRoute.ratio = ex.header('ratio');
            },
          },
          { kind: 'to', uri: `${backend.origin}/backend` },
        ],
      },
    },
    { env: {} },
  );
  try {
    const res = await call(r, 'GET', QUERY, { headers: HEADERS });
    assert.equal(res.status, 200);
    assert.equal(seenByRoute.limit, 5);
    assert.equal(seenByRoute.active, true);
    assert.equal(seenByRoute.ratio, 'overwritten');
    const all = seenByRoute.all as Record<string, unknown>;
    assert.deepEqual([all.id, all.tags, all['x-flags']], [7, [1, 2], [true, false]]);
    // Forwarded as received: the client's text, never a typed value turned back into some other text.
    assert.equal(received.limit, '5');
    assert.equal(received.active, 'true');
    assert.equal(received.tags, '1,2');
    assert.equal(received['x-page'], '3');
    assert.equal(received['x-flags'], 'true,false');
    assert.equal(received.color, 'R,100,G,200');
    assert.equal(received.ratio, 'overwritten');
    assert.equal(received.filter, undefined, 'an object made of several query fields is no header of its own');
  } finally {
    await r.close();
    await backend.close();
  }
});

test('deepObject query parameters nest at any depth as form bodies do: Stripe lists with expand[0], expand[], created[gte]', async () => {
  const r = await serveFile(join(CORPUS, 'apisguru-stripe-2020-08-27/openapi.yaml'), { routes: { GetCustomers: seen(['expand', 'created', 'limit']) } });
  try {
    const get = (query: string) => call(r, 'GET', `/v1/customers?${query}`);
    assert.deepEqual((await get('expand[0]=data.default_source&expand[1]=data.tax_ids&limit=5')).body, { expand: ['data.default_source', 'data.tax_ids'], created: null, limit: 5 });
    assert.deepEqual((await get('expand[]=data.tax_ids&created[gte]=1600000000')).body, { expand: ['data.tax_ids'], created: { gte: 1600000000 }, limit: null });
    // anyOf [object, integer]: the plain value is the integer branch.
    assert.deepEqual((await get('created=1600000000')).body, { expand: null, created: 1600000000, limit: null });
    const bad = await get('created[gte]=soon&expand[0]=' + 'x'.repeat(5001));
    assert.equal(bad.status, 400);
    assert.deepEqual(where(bad).filter((w) => w !== 'query:created'), ['query:created /gte', 'query:expand /0']);
    const deep = await get(`created${'[a]'.repeat(17)}=1`);
    assert.equal(deep.status, 400);
    assert.deepEqual(deep.body.errors, [{ in: 'query', name: 'created', pointer: '', message: `field created${'[a]'.repeat(17)} nests more than 16 brackets deep` }]);
  } finally {
    await r.close();
  }
});
