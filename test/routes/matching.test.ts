// Request matching (SPEC §5) and path parameter decoding (SPEC §4) on a contract written for it, plus GENOPID
// ids on Camel's own contract without operation ids.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createFacade, type Exchange } from '../../lib/index.js';
import { CORPUS, serve, tempDir, type Running } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

const op = (operationId: string, params: string[] = []) => ({
  operationId,
  parameters: params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
  responses: { '200': { description: 'ok' } },
});

const CONTRACT = {
  openapi: '3.0.3',
  info: { title: 'matching', version: '1' },
  paths: {
    '/items/{id}': { get: op('getItem', ['id']) },
    '/items/{a}/{b}': { get: op('getItemPair', ['a', 'b']) },
    '/files/{name}.json': { get: op('getJsonFile', ['name']) },
    '/files/{name}': { get: op('getFile', ['name']) },
    '/compare/{base}...{head}': { get: op('compare', ['base', 'head']) },
    '/{Bucket}': { get: op('ListObjects', ['Bucket']), put: op('CreateBucket', ['Bucket']) },
    '/{Bucket}#list-type=2': { get: op('ListObjectsV2', ['Bucket']) },
    '/{Bucket}/{Key}': { get: op('GetObject', ['Bucket', 'Key']), delete: op('DeleteObject', ['Bucket', 'Key']) },
    '/{Bucket}/{Key}#uploadId': { get: op('ListParts', ['Bucket', 'Key']), delete: op('AbortMultipartUpload', ['Bucket', 'Key']) },
    '/{Bucket}/{Key}#uploads': { post: op('CreateMultipartUpload', ['Bucket', 'Key']) },
    "/Orders('{id}')": { get: op('getOrder', ['id']) },
    '/reports/summary(period={period})': { get: op('getSummary', ['period']) },
    '/v1/{name}': { get: op('getOperation', ['name']) },
    '/v1/{name}:cancel': { post: op('cancelOperation', ['name']) },
    '/v1/{a}@{b}+{c}': { get: op('getAt', ['a', 'b', 'c']) },
    '/glob/*/list': { get: op('listStar') },
    '/glob/{x}/list': { get: op('listOne', ['x']) },
    '/Users/me': { get: op('getMe') },
    '/Users/{user}': { get: op('getUser', ['user']) },
  },
};

/** Every route answers with its own name and the path parameters it saw. */
const reporter = (name: string) => (ex: Exchange) => {
  const h = ex.message.headers;
  ex.message.body = { route: name, params: Object.fromEntries(['id', 'a', 'b', 'c', 'name', 'base', 'head', 'Bucket', 'Key', 'user', 'period'].filter((p) => h.has(p)).map((p) => [p, h.get(p)])) };
};

let running: Running;
before(async () => {
  const dir = tempDir({ 'matching.json': JSON.stringify(CONTRACT) });
  const ids = Object.values(CONTRACT.paths).flatMap((item) => Object.values(item).map((o) => o.operationId));
  running = await serve({ specification: join(dir, 'matching.json'), routes: Object.fromEntries(ids.map((id) => [id, reporter(id)])) });
});
after(() => running.close());

async function get(path: string, method = 'GET'): Promise<{ status: number; body: { route?: string; params?: Record<string, string> } }> {
  const res = await rawRequest(running.origin, path, { method });
  return { status: res.status, body: res.body === '' ? {} : (JSON.parse(res.body) as { route: string; params: Record<string, string> }) };
}

test('path parameters are RFC 3986 decoded exactly once: %2F stays inside its parameter, + stays +, UTF-8', async () => {
  const cases: [string, string][] = [
    ['/items/a%2Fb', 'a/b'],
    ['/items/a+b', 'a+b'],
    ['/items/%C3%A9t%C3%A9', 'été'],
    ['/items/%2525', '%25'],
    ['/items/a%20b', 'a b'],
    ['/items/%E2%9C%93%3F%23', '✓?#'],
    ['/items/caf%c3%a9', 'café'],
  ];
  for (const [path, id] of cases) assert.deepEqual(await get(path), { status: 200, body: { route: 'getItem', params: { id } } }, path);
  assert.deepEqual((await get('/items/x%2Fy/z')).body, { route: 'getItemPair', params: { a: 'x/y', b: 'z' } });
});

test('templated segments may be partial; the literal suffix wins over the whole-segment template', async () => {
  assert.deepEqual((await get('/files/report.json')).body, { route: 'getJsonFile', params: { name: 'report' } });
  assert.deepEqual((await get('/files/report.txt')).body, { route: 'getFile', params: { name: 'report.txt' } });
  assert.deepEqual((await get('/compare/main...feature%2Fx')).body, { route: 'compare', params: { base: 'main', head: 'feature/x' } });
});

test('any literal text may follow a parameter (OData keys, Google custom methods, separators); a literal * is literal', async () => {
  assert.deepEqual((await get("/Orders('A-17')")).body, { route: 'getOrder', params: { id: 'A-17' } });
  assert.deepEqual((await get('/Orders(%27x%27)')).body, { route: 'getOrder', params: { id: 'x' } }, 'percent-encoded quotes are the same path');
  assert.deepEqual((await get('/reports/summary(period=D7)')).body, { route: 'getSummary', params: { period: 'D7' } });
  assert.deepEqual((await get('/v1/op-1')).body, { route: 'getOperation', params: { name: 'op-1' } });
  assert.deepEqual((await get('/v1/op-1:cancel', 'POST')).body, { route: 'cancelOperation', params: { name: 'op-1' } });
  assert.deepEqual((await get('/v1/x@y+z')).body, { route: 'getAt', params: { a: 'x', b: 'y', c: 'z' } });
  assert.equal((await get('/v1/op-1:cancel', 'GET')).status, 405, 'the custom method path is its own path');
  assert.equal((await get('/glob/*/list')).body.route, 'listStar', 'a literal * is not a wildcard');
  assert.equal((await get('/glob/%2A/list')).body.route, 'listStar');
  assert.equal((await get('/glob/abc/list')).body.route, 'listOne');
  assert.equal((await get('/glob/*/list/more')).status, 404);
});

test('literal segments beat templates, case-sensitively', async () => {
  assert.deepEqual((await get('/Users/me')).body, { route: 'getMe', params: {} });
  assert.deepEqual((await get('/Users/ME')).body, { route: 'getUser', params: { user: 'ME' } });
  assert.deepEqual((await get('/Users/me/')).body, { route: 'getMe', params: {} }, 'trailing slash tolerated');
  assert.deepEqual((await get('/Users/%6De')).body, { route: 'getMe', params: {} }, 'an escaped literal is the literal');
  assert.deepEqual((await get('/users/me')).body, { route: 'GetObject', params: { Bucket: 'users', Key: 'me' } }, '/users/me is a bucket and a key');
});

test('aws-s3 style #name and #name=value path keys are same-path twins told apart by the query', async () => {
  assert.deepEqual((await get('/photos')).body, { route: 'ListObjects', params: { Bucket: 'photos' } });
  assert.equal((await get('/photos?list-type=2')).body.route, 'ListObjectsV2');
  assert.equal((await get('/photos?list-type=1')).body.route, 'ListObjects', 'a different value falls back to the plain operation');
  assert.equal((await get('/photos', 'PUT')).body.route, 'CreateBucket');
  assert.equal((await get('/photos/cat.jpg')).body.route, 'GetObject');
  assert.equal((await get('/photos/cat.jpg?uploadId=17')).body.route, 'ListParts');
  assert.equal((await get('/photos/cat.jpg?uploadId')).body.route, 'ListParts', 'a bare #name matches the parameter without a value');
  assert.equal((await get('/photos/cat.jpg?uploadId=17', 'DELETE')).body.route, 'AbortMultipartUpload');
  assert.equal((await get('/photos/cat.jpg', 'DELETE')).body.route, 'DeleteObject');
  assert.equal((await get('/photos/cat.jpg?uploads', 'POST')).body.route, 'CreateMultipartUpload');
  const notAllowed = await rawRequest(running.origin, '/photos/cat.jpg', { method: 'PATCH' });
  assert.equal(notAllowed.status, 405);
  assert.equal(notAllowed.headers.allow, 'GET, HEAD, POST, DELETE');
});

test('malformed percent-encoding and unknown paths are 404, never a crash', async () => {
  assert.equal((await get('/items/%zz')).status, 404);
  assert.equal((await get('/a/b/c/d')).status, 404);
  assert.equal((await get('/items/ok')).status, 200, 'the server still answers');
});

test('GENOPID ids for operations without operationId (Camel missing-opid.yaml)', async () => {
  const specification = join(CORPUS, 'camel-rest-openapi/missing-opid.yaml');
  await assert.rejects(createFacade({ specification }), {
    message: 'OpenAPI specification has 2 unmapped operations to corresponding routes:\n\tdirect:GENOPID_GET.user._id_\n\tdirect:GENOPID_GET.users',
  });
  const served = await serve({
    specification,
    routes: {
      'GENOPID_GET.users': [{ kind: 'setBody', expression: { json: ['ann', 'bob'] } }],
      'direct:GENOPID_GET.user._id_': [{ kind: 'setBody', expression: { simple: 'user ${header.id}' } }],
    },
  });
  try {
    assert.equal(served.facade.basePath, '/v1', 'the first server wins');
    assert.deepEqual(await (await fetch(`${served.origin}/v1/users`)).json(), ['ann', 'bob']);
    assert.equal(await (await fetch(`${served.origin}/v1/user/7`)).text(), 'user 7');
    assert.deepEqual(served.facade.operations.map((o) => o.endpoint), ['direct:GENOPID_GET.users', 'direct:GENOPID_GET.user._id_']);
  } finally {
    await served.close();
  }
});
