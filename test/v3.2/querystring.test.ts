// OpenAPI 3.2 `in: querystring` over real HTTP: the whole query string read as the parameter's one content
// type (form-encoded or JSON), validated against its schema, handed to the route as one value under the
// parameter's name, with and without validation; and the contract rules as startup errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createFacade, type Exchange, type SvcError } from '../../lib/index.js';
import { ROOT, serve, tempDir } from '../helpers.js';
import { call, type Answer } from '../validation/fixtures.js';

const CATALOG = join(ROOT, 'test/fixtures/openapi-3.2/openapi.yaml');

/** The catalog with routes that answer what they were handed: the parameter's header, a query pair's, the raw query. */
function catalog(validation: boolean) {
  const echo = (name: string) => (ex: Exchange) => {
    ex.message.body = { value: ex.header(name) ?? null, q: ex.header('q') ?? null, raw: ex.header('SvcHttpQuery') };
  };
  return serve(
    { specification: CATALOG, missingOperation: 'mock', baseDir: tempDir(), restConfiguration: { clientRequestValidation: validation }, routes: { searchForm: echo('filter'), findJson: echo('selector') } },
    { env: {} },
  );
}

const violations = (res: Answer) => res.body.errors.map((e: { in: string; name: string; pointer: string; message: string }) => `${e.in}:${e.name}${e.pointer} ${e.message}`).sort();

test('form-encoded: the route gets the parsed object, typed by the schema and the encoding, under the parameter name; the pairs are not headers of their own', async () => {
  for (const validation of [true, false]) {
    const app = await catalog(validation);
    try {
      const res = await call(app, 'GET', '/catalog/search?q=lamp%20shade&page=2&tags=a&tags=b&price=1|2.5');
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(res.body, { value: { q: 'lamp shade', page: 2, tags: ['a', 'b'], price: [1, 2.5] }, q: null, raw: 'q=lamp%20shade&page=2&tags=a&tags=b&price=1|2.5' }, `validation ${validation}`);
    } finally {
      await app.close();
    }
  }
});

test('form-encoded: every violation is reported in: query under the parameter name, pointing into its value', async () => {
  const app = await catalog(true);
  try {
    const res = await call(app, 'GET', '/catalog/search?q=a&page=0&colour=red&page=x');
    assert.equal(res.status, 400);
    assert.equal(res.body.detail, 'The request does not conform to the contract.');
    assert.deepEqual(violations(res), ['query:filter/colour is not allowed (no additional properties)', 'query:filter/page must be integer', 'query:filter/q must NOT have fewer than 2 characters']);
  } finally {
    await app.close();
  }
});

test('a required querystring that is absent (no query, or an empty one) is "Some of the required query parameters are missing."', async () => {
  const app = await catalog(true);
  try {
    for (const path of ['/catalog/search', '/catalog/search?']) {
      const res = await call(app, 'GET', path);
      assert.equal(res.status, 400, path);
      assert.equal(res.body.detail, 'Some of the required query parameters are missing.');
      assert.deepEqual(res.body.errors, [{ in: 'query', name: 'filter', pointer: '', message: 'is required' }]);
    }
  } finally {
    await app.close();
  }
});

test('JSON: the percent-decoded query parsed and checked; not JSON, or not percent-decoding, is a 400 naming the parameter', async () => {
  const app = await catalog(true);
  try {
    const query = encodeURIComponent(JSON.stringify({ ids: [1, 2], active: true }));
    const ok = await call(app, 'GET', `/catalog/find?${query}`);
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { value: { ids: [1, 2], active: true }, q: null, raw: query });
    const wrong = await call(app, 'GET', `/catalog/find?${encodeURIComponent('{"ids":["x"],"active":"yes"}')}`);
    assert.equal(wrong.status, 400);
    assert.deepEqual(violations(wrong), ['query:selector/active must be boolean', 'query:selector/ids/0 must be integer']);
    const notJson = await call(app, 'GET', '/catalog/find?ids=1');
    assert.equal(notJson.status, 400);
    assert.deepEqual(notJson.body.errors, [{ in: 'query', name: 'selector', pointer: '', message: 'is not valid application/json' }]);
    const badEncoding = await call(app, 'GET', '/catalog/find?%E0%A4%A');
    assert.equal(badEncoding.status, 400);
    assert.deepEqual(badEncoding.body.errors, [{ in: 'query', name: 'selector', pointer: '', message: 'is not a valid percent-encoded query string' }]);
    const absent = await call(app, 'GET', '/catalog/find');
    assert.equal(absent.status, 200, 'not required');
    assert.deepEqual(absent.body, { value: null, q: null, raw: '' });
  } finally {
    await app.close();
  }
});

test('without validation: a query that is not of the declared type reaches the route as its decoded text, never an error', async () => {
  const app = await catalog(false);
  try {
    const notJson = await call(app, 'GET', '/catalog/find?%7Bnot%20json');
    assert.equal(notJson.status, 200);
    assert.deepEqual(notJson.body, { value: '{not json', q: null, raw: '%7Bnot%20json' });
    const badEncoding = await call(app, 'GET', '/catalog/find?%E0%A4%A');
    assert.equal(badEncoding.status, 200);
    assert.equal(badEncoding.body.value, '%E0%A4%A');
    const invalid = await call(app, 'GET', '/catalog/search?q=a&page=zero');
    assert.equal(invalid.status, 200, 'not checked');
    assert.deepEqual(invalid.body.value, { q: 'a', page: 'zero' });
  } finally {
    await app.close();
  }
});

test('mocked and ignored operations with a querystring: checked when validation is on, then answered as usual', async () => {
  for (const missingOperation of ['mock', 'ignore'] as const) {
    const app = await serve({ specification: CATALOG, missingOperation, baseDir: tempDir(), restConfiguration: { clientRequestValidation: true } }, { env: {} });
    try {
      const bad = await call(app, 'GET', '/catalog/search?q=a');
      assert.equal(bad.status, 400, missingOperation);
      const good = await call(app, 'GET', '/catalog/search?q=lamp');
      assert.equal(good.status, missingOperation === 'mock' ? 200 : 204, missingOperation);
      if (missingOperation === 'mock') assert.ok(Array.isArray(good.body));
    } finally {
      await app.close();
    }
  }
});

/** A one-path 3.2 contract with the given path-level and operation-level parameters. */
function contract(pathParams: object[], opParams: object[]): string {
  return JSON.stringify({
    openapi: '3.2.0',
    info: { title: 'qs', version: '1' },
    paths: { '/items': { parameters: pathParams, get: { operationId: 'listItems', parameters: opParams, responses: { '200': { description: 'ok' } } } } },
  });
}
const form = (name: string) => ({ name, in: 'querystring', content: { 'application/x-www-form-urlencoded': { schema: { type: 'object' } } } });

test('contract rules: two querystring parameters (path level included), one beside in: query, or one without content fail startup naming the operation', async () => {
  for (const [pathParams, opParams, code, message] of [
    [[form('a')], [form('b')], 'SVC_QUERYSTRING_TWICE', 'GET /items (direct:listItems) declares 2 in: querystring parameters (a, b); at most one is allowed, path-level parameters included'],
    [[{ name: 'page', in: 'query', schema: { type: 'integer' } }], [form('filter')], 'SVC_QUERYSTRING_WITH_QUERY', 'GET /items (direct:listItems) declares the in: querystring parameter filter and in: query parameters (page); the query string is either one or the other'],
    [[], [{ name: 'filter', in: 'querystring', schema: { type: 'object' } }], 'SVC_QUERYSTRING_NO_CONTENT', 'GET /items (direct:listItems): the in: querystring parameter filter must be described by content (one media type, e.g. application/x-www-form-urlencoded), not schema'],
  ] as const) {
    const dir = tempDir({ 'api.json': contract(pathParams as object[], opParams as object[]) });
    await assert.rejects(createFacade({ specification: join(dir, 'api.json'), missingOperation: 'mock' }, { env: {} }), (err: SvcError) => {
      assert.equal(err.code, code);
      assert.equal(err.exitCode, 1);
      assert.equal(err.message, message);
      return true;
    });
  }
});

test('an operation-level querystring replaces a path-level one of the same name (one parameter, as for any location)', async () => {
  const dir = tempDir({ 'api.json': contract([form('filter')], [{ ...form('filter'), required: true }]) });
  const app = await serve({ specification: join(dir, 'api.json'), missingOperation: 'mock', restConfiguration: { clientRequestValidation: true } }, { env: {} });
  try {
    assert.equal((await call(app, 'GET', '/items')).status, 400, 'the operation-level one, required');
    assert.equal((await call(app, 'GET', '/items?a=1')).status, 200);
  } finally {
    await app.close();
  }
});

test('OpenAPI 3.1 has no in: querystring: such a parameter is not read there (as before)', async () => {
  const doc = JSON.parse(contract([], [{ ...form('filter'), required: true }])) as { openapi: string };
  doc.openapi = '3.1.0';
  const dir = tempDir({ 'api.json': JSON.stringify(doc) });
  const app = await serve({ specification: join(dir, 'api.json'), missingOperation: 'mock', restConfiguration: { clientRequestValidation: true } }, { env: {} });
  try {
    assert.equal((await call(app, 'GET', '/items')).status, 200);
  } finally {
    await app.close();
  }
});
