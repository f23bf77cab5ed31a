// clientRequestValidation on the Swagger Petstore: Camel's scenarios, the 415 → 406 → 400 order, the
// detail texts, and every disposition (route, mock, ignored).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Exchange } from '../../lib/index.js';
import { PETSTORE, serve, type Running } from '../helpers.js';
import { call, json, serveContract, serveFile, where } from './fixtures.js';

const PET = { id: 7, name: 'doggie', photoUrls: ['a'], status: 'available' };
let petstore: Running;
let seen: unknown;

before(async () => {
  petstore = await serveFile(PETSTORE, {
    routes: {
      updatePet: (ex: Exchange) => {
        seen = ex.message.body;
        ex.message.body = { ok: true };
      },
    },
  });
});
after(() => petstore.close());

test('Camel: PUT /pet without a body is 400 "The request body is missing."', async () => {
  const res = await call(petstore, 'PUT', '/api/v3/pet');
  assert.equal(res.status, 400);
  assert.equal(res.type, 'application/problem+json');
  assert.equal(res.body.detail, 'The request body is missing.');
  assert.deepEqual(res.body.errors, [{ in: 'body', name: '', pointer: '', message: 'is required' }]);
});

test('Camel: a Content-Type the operation does not declare is 415; parameters and case do not matter', async () => {
  const bad = await call(petstore, 'PUT', '/api/v3/pet', { body: JSON.stringify(PET), headers: { 'content-type': 'text/plain' } });
  assert.equal(bad.status, 415);
  assert.equal(bad.body.detail, 'The content type text/plain is not declared for this operation.');
  const good = await call(petstore, 'PUT', '/api/v3/pet', { body: JSON.stringify(PET), headers: { 'content-type': 'Application/JSON; charset=utf-8' } });
  assert.equal(good.status, 200);
});

test('Camel: an Accept no declared response type satisfies is 406', async () => {
  const res = await call(petstore, 'PUT', '/api/v3/pet', { ...json(PET), headers: { ...json(PET).headers, accept: 'text/html' } });
  assert.equal(res.status, 406);
  assert.equal(res.body.detail, 'None of the declared response media types satisfies the Accept header.');
});

test('Camel: the q-valued Accept Camel used to reject is accepted (200)', async () => {
  const res = await call(petstore, 'PUT', '/api/v3/pet', { ...json(PET), headers: { ...json(PET).headers, accept: 'application/json;q=0.9, application/xml;q=0.8' } });
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { ok: true });
});

test('Accept: wildcards satisfy, q=0 excludes', async () => {
  const send = (accept: string) => call(petstore, 'PUT', '/api/v3/pet', { ...json(PET), headers: { ...json(PET).headers, accept } });
  assert.equal((await send('*/*')).status, 200);
  assert.equal((await send('application/*')).status, 200);
  assert.equal((await send('text/*, */*;q=0.1')).status, 200);
  assert.equal((await send('application/json;q=0, application/xml;q=0')).status, 406);
  assert.equal((await send('application/*;q=0')).status, 406);
});

test('order: 415 is decided before 406, and 406 before 400', async () => {
  const both = await call(petstore, 'PUT', '/api/v3/pet', { body: '{', headers: { 'content-type': 'text/plain', accept: 'text/html' } });
  assert.equal(both.status, 415);
  const accept = await call(petstore, 'PUT', '/api/v3/pet', { body: '{', headers: { 'content-type': 'application/json', accept: 'text/html' } });
  assert.equal(accept.status, 406);
  const invalid = await call(petstore, 'PUT', '/api/v3/pet', { body: '{', headers: { 'content-type': 'application/json' } });
  assert.equal(invalid.status, 400);
});

test('malformed JSON is "Invalid JSon payload."; malformed XML is "Invalid XML payload."', async () => {
  const badJson = await call(petstore, 'PUT', '/api/v3/pet', { body: '{"name": ', headers: { 'content-type': 'application/json' } });
  assert.equal(badJson.status, 400);
  assert.equal(badJson.body.detail, 'Invalid JSon payload.');
  assert.deepEqual(where(badJson), ['body:']);
  const badXml = await call(petstore, 'PUT', '/api/v3/pet', { body: '<pet><name>x</name>', headers: { 'content-type': 'application/xml' } });
  assert.equal(badXml.status, 400);
  assert.equal(badXml.body.detail, 'Invalid XML payload.');
});

test('a JSON body is checked against its schema, every violation listed', async () => {
  const res = await call(petstore, 'PUT', '/api/v3/pet', json({ id: 'seven', name: 3, status: 'lost', category: { id: 1.5 } }));
  assert.equal(res.status, 400);
  assert.equal(res.body.detail, 'The request does not conform to the contract.');
  // `category.id` is an int64: 1.5 breaks both its type and its format.
  assert.deepEqual(where(res).sort(), ['body:id /category/id', 'body:id /category/id', 'body:id /id', 'body:name /name', 'body:photoUrls /photoUrls', 'body:status /status']);
  const status = res.body.errors.find((e: { name: string }) => e.name === 'status');
  assert.equal(status.message, 'must be equal to one of the allowed values: "available", "pending", "sold"');
});

test('a valid JSON body reaches the route, parsed once (facts.body), never polluting prototypes', async () => {
  seen = undefined;
  const res = await call(petstore, 'PUT', '/api/v3/pet', { body: '{"name":"x","photoUrls":[],"__proto__":{"polluted":true},"tags":[{"constructor":{"prototype":{"polluted":true}}}]}', headers: { 'content-type': 'application/json' } });
  assert.equal(res.status, 200);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(typeof seen, 'string', 'without binding the route sees the text');
});

test('an XML body is parsed by the codec and checked against the schema', async () => {
  const xml = (id: string) => `<pet><id>${id}</id><name>x</name><photoUrls><photoUrl>a</photoUrl></photoUrls></pet>`;
  const good = await call(petstore, 'PUT', '/api/v3/pet', { body: xml('12'), headers: { 'content-type': 'application/xml' } });
  assert.equal(good.status, 200);
  const bad = await call(petstore, 'PUT', '/api/v3/pet', { body: xml('twelve'), headers: { 'content-type': 'application/xml' } });
  assert.equal(bad.status, 400);
  assert.deepEqual(where(bad), ['body:id /id']);
});

test('a form body is typed by the schema and checked', async () => {
  const send = (body: string) => call(petstore, 'PUT', '/api/v3/pet', { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.equal((await send('name=x&photoUrls=a&photoUrls=b&id=12&status=sold&category[id]=3')).status, 200);
  const bad = await send('name=x&id=abc&category[id]=z');
  assert.equal(bad.status, 400);
  assert.deepEqual(where(bad).sort(), ['body:id /category/id', 'body:id /id', 'body:photoUrls /photoUrls']);
});

test('path and query parameters are coerced from strings and checked', async () => {
  assert.equal((await call(petstore, 'GET', '/api/v3/pet/12')).status, 204);
  const path = await call(petstore, 'GET', '/api/v3/pet/twelve');
  assert.equal(path.status, 400);
  assert.deepEqual(path.body.errors, [{ in: 'path', name: 'petId', pointer: '', message: 'must be integer' }]);
  assert.equal((await call(petstore, 'GET', '/api/v3/pet/findByStatus?status=sold')).status, 204);
  const query = await call(petstore, 'GET', '/api/v3/pet/findByStatus?status=lost');
  assert.equal(query.status, 400);
  assert.deepEqual(where(query), ['query:status']);
});

test('a request with no body to an operation without requestBody passes; so does one with a body (not checked)', async () => {
  assert.equal((await call(petstore, 'GET', '/api/v3/store/inventory')).status, 204);
  const withBody = await call(petstore, 'GET', '/api/v3/store/inventory', { body: 'anything', headers: { 'content-type': 'text/plain' } });
  assert.equal(withBody.status, 200);
});

test('a body without Content-Type is read as the first declared media type', async () => {
  const res = await call(petstore, 'PUT', '/api/v3/pet', { body: JSON.stringify({ name: 'x' }) });
  assert.equal(res.status, 400);
  assert.deepEqual(where(res), ['body:photoUrls /photoUrls']);
});

test('with clientRequestValidation off nothing is checked', async () => {
  const off = await serveFile(PETSTORE, { requests: false });
  try {
    assert.equal((await call(off, 'PUT', '/api/v3/pet')).status, 204);
    assert.equal((await call(off, 'GET', '/api/v3/pet/twelve')).status, 204);
    assert.equal((await call(off, 'PUT', '/api/v3/pet', { body: 'x', headers: { 'content-type': 'text/plain' } })).status, 200);
  } finally {
    await off.close();
  }
});

test('mocked operations are validated too', async () => {
  const mocked = await serve({ specification: PETSTORE, missingOperation: 'mock', restConfiguration: { clientRequestValidation: true } }, { env: {} });
  try {
    assert.equal((await call(mocked, 'GET', '/api/v3/pet/twelve')).status, 400);
    assert.equal((await call(mocked, 'PUT', '/api/v3/pet')).status, 400);
    const valid = await call(mocked, 'PUT', '/api/v3/pet', json(PET));
    assert.equal(valid.status, 200);
    assert.deepEqual(valid.body, PET);
  } finally {
    await mocked.close();
  }
});

// ---- parameter details on a small contract ----

const PARAMS = {
  openapi: '3.0.3',
  info: { title: 'params', version: '1' },
  paths: {
    '/items/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } }],
      get: {
        operationId: 'getItem',
        parameters: [
          { name: 'limit', in: 'query', required: true, schema: { type: 'integer', maximum: 100 } },
          { name: 'sort', in: 'query', required: true, schema: { type: 'string', enum: ['asc', 'desc'] } },
          { name: 'X-Request-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
          { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string', pattern: '^[a-f0-9]{8}$' } },
          { name: 'session', in: 'cookie', required: true, schema: { type: 'string', minLength: 4 } },
          { name: 'flag', in: 'query', schema: { type: 'boolean' } },
          { name: 'when', in: 'query', schema: { type: 'string', format: 'date' } },
          { name: 'filter', in: 'query', content: { 'application/json': { schema: { type: 'object', required: ['a'], properties: { a: { type: 'integer' } } } } } },
          // OpenAPI: header parameters named Accept, Content-Type or Authorization are ignored.
          { name: 'Authorization', in: 'header', required: true, schema: { type: 'integer' } },
          { name: 'Accept', in: 'header', required: true, schema: { type: 'string', enum: ['never/sent'] } },
        ],
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  },
};
const OK_HEADERS = { 'x-request-id': '3f1c2b9e-8a4d-4c1e-9f2a-1b2c3d4e5f60', 'x-trace': 'deadbeef', cookie: 'session=abcdef' };

test('parameters: a request with every parameter right passes (Accept and Authorization parameters are ignored)', async () => {
  const r = await serveContract(PARAMS);
  try {
    const res = await call(r, 'GET', `/items/5?limit=10&sort=asc&flag=true&when=2024-02-29&filter=${encodeURIComponent('{"a":1}')}`, { headers: OK_HEADERS });
    assert.equal(res.status, 204);
  } finally {
    await r.close();
  }
});

test('parameters: missing required query parameters only → Camel\'s query text; headers only → Camel\'s header text', async () => {
  const r = await serveContract(PARAMS);
  try {
    const query = await call(r, 'GET', '/items/5', { headers: OK_HEADERS });
    assert.equal(query.status, 400);
    assert.equal(query.body.detail, 'Some of the required query parameters are missing.');
    assert.deepEqual(where(query), ['query:limit', 'query:sort']);
    const headers = await call(r, 'GET', '/items/5?limit=1&sort=asc', { headers: { cookie: 'session=abcdef' } });
    assert.equal(headers.body.detail, 'Some of the required HTTP headers are missing.');
    assert.deepEqual(where(headers), ['header:X-Request-Id', 'header:X-Trace']);
    const mixed = await call(r, 'GET', '/items/5', { headers: { cookie: 'session=abcdef' } });
    assert.equal(mixed.body.detail, 'The request does not conform to the contract.');
    assert.equal(mixed.body.errors.length, 4);
  } finally {
    await r.close();
  }
});

test('parameters: type, bounds, enum, format, pattern, cookie and content violations are all collected', async () => {
  const r = await serveContract(PARAMS);
  try {
    const res = await call(r, 'GET', `/items/0?limit=1000&sort=up&flag=maybe&when=2023-02-30&filter=${encodeURIComponent('{"a":"x"}')}`, {
      headers: { 'x-request-id': 'not-a-uuid', 'x-trace': 'DEADBEEF', cookie: 'session=ab' },
    });
    assert.equal(res.status, 400);
    assert.deepEqual(where(res).sort(), ['cookie:session', 'header:X-Request-Id', 'header:X-Trace', 'path:id', 'query:filter /a', 'query:flag', 'query:limit', 'query:sort', 'query:when']);
    const broken = await call(r, 'GET', `/items/5?limit=1&sort=asc&filter=%7B`, { headers: OK_HEADERS });
    assert.deepEqual(broken.body.errors, [{ in: 'query', name: 'filter', pointer: '', message: 'is not valid application/json' }]);
  } finally {
    await r.close();
  }
});

// ---- media types ----

const MEDIA = {
  openapi: '3.0.3',
  info: { title: 'media', version: '1' },
  paths: {
    '/any': {
      post: {
        operationId: 'postAny',
        requestBody: { required: true, content: { 'application/*': { schema: { type: 'object', required: ['a'] } } } },
        responses: { '204': { description: 'none' } },
      },
    },
    '/vendor': {
      post: {
        operationId: 'postVendor',
        requestBody: { content: { 'application/vnd.acme+json': { schema: { type: 'array', items: { type: 'integer' } } } } },
        responses: { '200': { description: 'ok', content: { 'text/csv': {} } } },
      },
    },
  },
};

test('application/* in the contract accepts any application type; the body is parsed by the type actually sent', async () => {
  const r = await serveContract(MEDIA);
  try {
    assert.equal((await call(r, 'POST', '/any', json({ a: 1 }))).status, 200);
    assert.equal((await call(r, 'POST', '/any', json({ b: 1 }))).status, 400);
    assert.equal((await call(r, 'POST', '/any', { body: '<a/>', headers: { 'content-type': 'application/xml' } })).status, 400);
    assert.equal((await call(r, 'POST', '/any', { body: 'x', headers: { 'content-type': 'text/plain' } })).status, 415);
    // Operations that declare no response content accept any Accept.
    assert.equal((await call(r, 'POST', '/any', { ...json({ a: 1 }), headers: { ...json({}).headers, accept: 'image/png' } })).status, 200);
  } finally {
    await r.close();
  }
});

test('+json vendor types are parsed as JSON; a non-required body may be absent', async () => {
  const r = await serveContract(MEDIA);
  try {
    const send = (body: string) => call(r, 'POST', '/vendor', { body, headers: { 'content-type': 'application/vnd.acme+json' } });
    assert.equal((await send('[1,2]')).status, 200);
    const bad = await send('[1,"x"]');
    assert.equal(bad.status, 400);
    assert.deepEqual(where(bad), ['body:1 /1']);
    assert.equal((await call(r, 'POST', '/vendor')).status, 204);
    assert.equal((await call(r, 'POST', '/vendor', { headers: { accept: 'text/csv;q=0.5' } })).status, 204);
    assert.equal((await call(r, 'POST', '/vendor', { headers: { accept: 'application/json' } })).status, 406);
  } finally {
    await r.close();
  }
});
