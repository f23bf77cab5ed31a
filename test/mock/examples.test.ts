// Mocking from the contract's examples (SPEC §7 steps 2–4): response choice, Accept negotiation, example
// choice, XML rendering, Prefer, the echo inside the contract and the empty answer, on a contract written for it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, tempDir, type Running } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

const THING = { $ref: '#/components/schemas/Thing' };
const KEPT = { type: 'object', xml: { name: 'kept' }, required: ['kept'], properties: { kept: { type: 'string' } } };

const CONTRACT = {
  openapi: '3.0.3',
  info: { title: 'mock examples', version: '1' },
  servers: [{ url: '/api' }],
  paths: {
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': { schema: THING, example: { id: 1, name: 'plain' } },
              'application/xml': {
                schema: THING,
                examples: {
                  first: { $ref: '#/components/examples/referenced' },
                  second: { summary: 'inline', value: { id: 2, name: 'second' } },
                },
              },
            },
          },
          '400': { description: 'no content' },
          '404': { description: 'missing', content: { 'application/json': { example: { code: 404, message: 'not found' } } } },
          '4XX': { description: 'range', content: { 'application/json': { example: { code: 'any 4xx' } } } },
          default: { description: 'error', content: { 'application/json': { example: { code: 'default' } } } },
        },
      },
    },
    '/named': {
      get: {
        operationId: 'named',
        responses: {
          '202': { description: 'later', content: { 'application/json': { example: { kind: 'later' } } } },
          '201': {
            description: 'created',
            content: {
              'application/json': {
                examples: {
                  external: { externalValue: 'http://127.0.0.1:1/never-fetched.json' },
                  cat: { value: { kind: 'cat' } },
                  dog: { value: { kind: 'dog' } },
                },
              },
            },
          },
        },
      },
    },
    '/schema-example': {
      get: {
        operationId: 'schemaExample',
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Widget' } } } } },
      },
    },
    '/text': {
      get: { operationId: 'text', responses: { '2XX': { description: 'ok', content: { 'text/plain': { example: 'hello, text' } } } } },
    },
    '/only-default': {
      get: { operationId: 'onlyDefault', responses: { default: { description: 'any', content: { 'application/json': { example: { fallback: true } } } } } },
    },
    '/xml-string': {
      get: {
        operationId: 'xmlString',
        responses: { '200': { description: 'ok', content: { 'application/xml': { example: '<ready>as written</ready>' } } } },
      },
    },
    '/nothing': {
      get: { operationId: 'nothing', responses: { '200': { description: 'no example', content: { 'application/json': { schema: { type: 'object' } } } } } },
    },
    '/echo': {
      post: {
        operationId: 'echoPost',
        responses: {
          '201': { description: 'ok', content: { 'application/json': { schema: KEPT, example: { kept: 'the example' } }, 'application/xml': { schema: KEPT } } },
          '400': { description: 'bad', content: { 'application/json': { example: { not: 'chosen' } } } },
        },
      },
      put: { operationId: 'echoPut', responses: { '200': { description: 'ok', content: { 'text/plain': { schema: { type: 'string' } } } } } },
      patch: { operationId: 'echoPatch', responses: { '200': { description: 'ok', content: { 'application/merge-patch+json': { schema: { type: 'object' } } } } } },
      delete: { operationId: 'echoDelete', responses: { '200': { description: 'ok' } } },
      options: { operationId: 'echoOptions', responses: { '200': { description: 'ok' } } },
    },
    // Bytes no parser reads: echoed only where the schema is a plain string, which any bytes satisfy.
    '/bytes': {
      post: {
        operationId: 'bytesPost',
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/octet-stream': { schema: { type: 'string', maxLength: 4 }, example: 'abcd' },
              'image/png': { schema: { type: 'string', format: 'binary' } },
            },
          },
        },
      },
    },
    // Petstore's DELETE /store/order/{orderId}: no success response, only errors without content.
    '/errors-only': { delete: { operationId: 'errorsOnly', responses: { '404': { description: 'missing' }, '400': { description: 'bad' } } } },
    // Petstore's PUT /user/{username}: only `default`, without content.
    '/only-default-empty': { put: { operationId: 'onlyDefaultEmpty', responses: { default: { description: 'done' } } } },
    '/undeclared': { post: { operationId: 'undeclared', responses: {} } },
    // Kubernetes offers every read as JSON, YAML and protobuf, with one object schema for all three.
    '/kube': {
      get: {
        operationId: 'kube',
        responses: {
          '200': {
            description: 'ok',
            content: {
              'application/json': { schema: THING, example: { id: 5, name: 'kube' } },
              'application/yaml': { schema: THING, example: { id: 5, name: 'kube' } },
              'application/vnd.kubernetes.protobuf': { schema: THING, example: { id: 5, name: 'kube' } },
            },
          },
        },
      },
    },
    '/wildcards': { get: { operationId: 'wildcards', responses: { '200': { description: 'ok', content: { 'image/*': { example: 'png?' }, 'application/*': { example: { any: 1 } } } } } } },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        xml: { name: 'thing' },
        properties: { id: { type: 'integer', xml: { attribute: true } }, name: { type: 'string' } },
      },
      Widget: { type: 'object', properties: { size: { type: 'integer' } }, example: { size: 3 } },
    },
    examples: { referenced: { summary: 'by $ref', value: { id: 7, name: 'referenced' } } },
  },
};

let app: Running;

before(async () => {
  const dir = tempDir({ 'contract.json': JSON.stringify(CONTRACT) });
  app = await serve({ specification: 'contract.json', missingOperation: 'mock', baseDir: dir });
});
after(() => app.close());

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; type: string | null; body: string }> {
  const res = await fetch(app.origin + path, { headers });
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}

test('GET answers the 200 response first media type `example`, as JSON', async () => {
  const res = await get('/api/things/1');
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/json');
  assert.deepEqual(JSON.parse(res.body), { id: 1, name: 'plain' });
});

test('Accept picks the XML media type; the first `examples` entry is a $ref, rendered by the XML codec', async () => {
  const res = await get('/api/things/1', { accept: 'application/xml' });
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/xml');
  assert.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?><thing id="7"><name>referenced</name></thing>');
});

test('Accept q-values, wildcards and q=0 decide the media type', async () => {
  const cases: [string, string][] = [
    ['application/json;q=0.5, application/xml', 'application/xml'],
    ['application/xml;q=0.1, application/json;q=0.9', 'application/json'],
    ['application/json;q=0, */*', 'application/xml'],
    ['text/html, application/*;q=0.8', 'application/json'],
    ['*/*', 'application/json'],
  ];
  for (const [accept, type] of cases) {
    const res = await get('/api/things/1', { accept });
    assert.equal(res.status, 200, accept);
    assert.equal(res.type, type, accept);
  }
});

test('nothing acceptable: 406, never an undeclared empty 204', async () => {
  for (const accept of ['text/plain', 'application/problem+json']) {
    const res = await get('/api/things/1', { accept });
    assert.equal(res.status, 406, accept);
    assert.equal(res.type, 'application/problem+json', accept);
    assert.equal(JSON.parse(res.body).detail, 'None of the declared response media types satisfies the Accept header.', accept);
  }
});

test('a body is never labelled with a type it is not written in: protobuf is refused (406), YAML is YAML, the next acceptable type is taken', async () => {
  const protobuf = await get('/api/kube', { accept: 'application/vnd.kubernetes.protobuf' });
  assert.equal(protobuf.status, 406);
  assert.equal(JSON.parse(protobuf.body).detail, 'The mock cannot write its answer in any media type the Accept header allows (application/vnd.kubernetes.protobuf): ask for JSON, XML or YAML.');

  const fallback = await get('/api/kube', { accept: 'application/vnd.kubernetes.protobuf, application/json;q=0.5' });
  assert.equal(fallback.status, 200);
  assert.equal(fallback.type, 'application/json');
  assert.deepEqual(JSON.parse(fallback.body), { id: 5, name: 'kube' });

  const yaml = await get('/api/kube', { accept: 'application/yaml' });
  assert.equal(yaml.type, 'application/yaml');
  assert.equal(yaml.body, 'id: 5\nname: kube\n');

  // A range is no Content-Type: a type inside it that the value is written in, never image/* itself; text
  // cannot stand for an image, so image/* is answered with a small PNG.
  const wildcard = await get('/api/wildcards', { accept: 'image/png' });
  assert.equal(wildcard.status, 200);
  assert.equal(wildcard.type, 'image/png');
  const application = await get('/api/wildcards', { accept: 'application/*' });
  assert.equal(application.type, 'application/json');
  assert.deepEqual(JSON.parse(application.body), { any: 1 });
});

test('without Accept, a declared request Content-Type chooses the media type, else the first declared', async () => {
  // fetch always sends Accept; node:http sends none.
  const xml = await rawRequest(app.origin, '/api/things/1', { headers: { 'content-type': 'application/xml' } });
  assert.equal(xml.headers['content-type'], 'application/xml');
  assert.match(xml.body, /<thing id="7">/);
  const undeclared = await rawRequest(app.origin, '/api/things/1', { headers: { 'content-type': 'text/csv' } });
  assert.equal(undeclared.headers['content-type'], 'application/json');
  const none = await rawRequest(app.origin, '/api/things/1');
  assert.equal(none.headers['content-type'], 'application/json');
});

test('Prefer: code= picks a declared response (exact, then its range); an undeclared code is ignored', async () => {
  const notFound = await get('/api/things/1', { prefer: 'code=404' });
  assert.equal(notFound.status, 404);
  assert.deepEqual(JSON.parse(notFound.body), { code: 404, message: 'not found' });

  const range = await get('/api/things/1', { prefer: 'code=409' });
  assert.equal(range.status, 409);
  assert.deepEqual(JSON.parse(range.body), { code: 'any 4xx' });

  const noContent = await get('/api/things/1', { prefer: 'code=400' });
  assert.equal(noContent.status, 400);
  assert.equal(noContent.body, '');

  for (const prefer of ['code=503', 'code=abc', 'code=']) {
    const ignored = await get('/api/things/1', { prefer });
    assert.equal(ignored.status, 200, prefer);
    assert.deepEqual(JSON.parse(ignored.body), { id: 1, name: 'plain' }, prefer);
  }
});

test('Prefer: example= picks a named example; together with code= both apply', async () => {
  const second = await get('/api/things/1', { accept: 'application/xml', prefer: 'example=second' });
  assert.equal(second.body, '<?xml version="1.0" encoding="UTF-8"?><thing id="2"><name>second</name></thing>');

  const both = await get('/api/things/1', { accept: 'application/xml', prefer: 'code=200, example="second"' });
  assert.equal(both.status, 200);
  assert.match(both.body, /<thing id="2">/);

  const dog = await get('/api/named', { prefer: 'example=dog; code=201' });
  assert.equal(dog.status, 201);
  assert.deepEqual(JSON.parse(dog.body), { kind: 'dog' });

  const unknown = await get('/api/named', { prefer: 'example=unicorn' });
  assert.deepEqual(JSON.parse(unknown.body), { kind: 'cat' });
});

test('the lowest 2xx is chosen without 200; an externalValue is skipped, never fetched', async () => {
  const res = await get('/api/named');
  assert.equal(res.status, 201);
  assert.deepEqual(JSON.parse(res.body), { kind: 'cat' });
  const external = await get('/api/named', { prefer: 'example=external' });
  assert.deepEqual(JSON.parse(external.body), { kind: 'cat' });
});

test("the schema's own example, a 2XX range, `default`, and a ready XML string", async () => {
  assert.deepEqual(JSON.parse((await get('/api/schema-example')).body), { size: 3 });

  const text = await get('/api/text');
  assert.equal(text.status, 200);
  assert.equal(text.type, 'text/plain');
  assert.equal(text.body, 'hello, text');

  const fallback = await get('/api/only-default');
  assert.equal(fallback.status, 200);
  assert.deepEqual(JSON.parse(fallback.body), { fallback: true });

  const xml = await get('/api/xml-string');
  assert.equal(xml.type, 'application/xml');
  assert.equal(xml.body, '<ready>as written</ready>');
});

test('GET without any example answers a body synthesized from the schema', async () => {
  const res = await get('/api/nothing');
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/json');
  assert.equal(res.body, '{}');
});

test('HEAD is served like GET without a body', async () => {
  const res = await rawRequest(app.origin, '/api/things/1', { method: 'HEAD' });
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'application/json');
  assert.equal(res.headers['content-length'], String(Buffer.byteLength('{"id":1,"name":"plain"}')));
  assert.equal(res.body, '');
});

test('POST, PUT and PATCH echo a body the chosen response declares and its schema accepts, as sent, under its status', async () => {
  const json = await fetch(`${app.origin}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{ "kept":  "as sent" }' });
  assert.equal(json.status, 201, 'the status of the response step 2 chooses, not 200');
  assert.equal(json.headers.get('content-type'), 'application/json');
  assert.equal(await json.text(), '{ "kept":  "as sent" }');

  const xml = await fetch(`${app.origin}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<kept><kept>x</kept></kept>' });
  assert.equal(xml.status, 201);
  assert.equal(xml.headers.get('content-type'), 'application/xml');
  assert.equal(await xml.text(), '<kept><kept>x</kept></kept>');

  const bytes = Buffer.from([0, 255, 1, 254, 0xc3, 0x28]); // not valid UTF-8: must come back unchanged
  const put = await fetch(`${app.origin}/api/echo`, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: bytes });
  assert.equal(put.status, 200);
  assert.equal(put.headers.get('content-type'), 'text/plain');
  assert.deepEqual(Buffer.from(await put.arrayBuffer()), bytes);

  const patch = await fetch(`${app.origin}/api/echo`, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: '{"a":null}' });
  assert.equal(patch.headers.get('content-type'), 'application/merge-patch+json');
  assert.equal(await patch.text(), '{"a":null}');
});

test('a body the response does not declare, or its schema refuses, is not echoed: the response example (or a synthesized body) is', async () => {
  const cases: [string, string][] = [
    ['application/json', '{"other":1}'], // missing `kept`
    ['application/json', '[{"kept":"x"}]'], // an array where the response is one object (Petstore's createWithList)
    ['application/json', '{"kept":'], // not JSON at all
    ['application/octet-stream', '{"kept":"x"}'], // a media type the response does not declare (Petstore's uploadImage)
  ];
  for (const [type, body] of cases) {
    const res = await fetch(`${app.origin}/api/echo`, { method: 'POST', headers: { 'content-type': type }, body });
    assert.equal(res.status, 201, body);
    assert.equal(res.headers.get('content-type'), 'application/json', body);
    assert.deepEqual(await res.json(), { kept: 'the example' }, body);
  }
});

test('bytes no parser reads (octet-stream, image/*) are echoed only where the response schema is a plain string: a maxLength the bytes break answers the example (docs/mocking.md)', async () => {
  const bytes = Buffer.from('twenty-four bytes, long.');
  assert.equal(bytes.length, 24);
  const png = await fetch(`${app.origin}/api/bytes`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: bytes });
  assert.equal(png.status, 200);
  assert.equal(png.headers.get('content-type'), 'image/png');
  assert.deepEqual(Buffer.from(await png.arrayBuffer()), bytes, 'format: binary, no other constraint: echoed');
  const limited = await fetch(`${app.origin}/api/bytes`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: bytes });
  assert.equal(limited.status, 200);
  assert.equal(limited.headers.get('content-type'), 'application/octet-stream');
  assert.equal(await limited.text(), 'abcd', 'maxLength: 4 cannot hold 24 bytes: the example, not the echo');
});

test('the echo is never sent in a type the client does not accept: Accept: application/xml on a JSON write answers XML', async () => {
  const res = await fetch(`${app.origin}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/xml' }, body: '{"kept":"as sent"}' });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get('content-type'), 'application/xml');
  assert.match(await res.text(), /^<\?xml version="1\.0" encoding="UTF-8"\?><kept><kept>[^<]*<\/kept><\/kept>$/);
  const none = await fetch(`${app.origin}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/csv' }, body: '{"kept":"x"}' });
  assert.equal(none.status, 406);
});

test('a response without content answers empty under its own status, whatever the body and Accept; 204 only when nothing is declared', async () => {
  const del = await fetch(`${app.origin}/api/echo`, { method: 'DELETE', headers: { accept: 'application/json' } });
  assert.equal(del.status, 200, 'not 406: the chosen response has no content to negotiate');
  assert.equal(await del.text(), '');

  const withBody = await fetch(`${app.origin}/api/only-default-empty`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"username":"x"}' });
  assert.equal(withBody.status, 200, '`default` is answered as 200');
  assert.equal(withBody.headers.get('content-type'), null);
  assert.equal(await withBody.text(), '', 'no echo where the response declares no content');

  const errorsOnly = await fetch(`${app.origin}/api/errors-only`, { method: 'DELETE' });
  assert.equal(errorsOnly.status, 400, 'the lowest declared status, never an undeclared 204');
  assert.equal(await errorsOnly.text(), '');

  const undeclared = await fetch(`${app.origin}/api/undeclared`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
  assert.equal(undeclared.status, 204);
  assert.equal(await undeclared.text(), '');
});

test('POST with Prefer answers the preferred response instead of the echo', async () => {
  const res = await fetch(`${app.origin}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/json', prefer: 'code=400' }, body: '{"kept":"valid"}' });
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), { not: 'chosen' });
  const example = await fetch(`${app.origin}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/json', prefer: 'dynamic=false' }, body: '{"kept":"valid"}' });
  assert.equal(await example.text(), '{"kept":"valid"}', 'dynamic=false asks for nothing: the echo stays');
});

test('other methods (OPTIONS) answer their declared response, and a client cannot pick the status with SvcHttpResponseCode', async () => {
  const options = await rawRequest(app.origin, '/api/echo', { method: 'OPTIONS' });
  assert.equal(options.status, 200);
  assert.equal(options.body, '');
  const forged = await get('/api/things/1', { SvcHttpResponseCode: '500' });
  assert.equal(forged.status, 200);
  const forgedEcho = await fetch(`${app.origin}/api/echo?SvcHttpResponseCode=418`, { method: 'DELETE', headers: { SvcHttpResponseCode: '500' } });
  assert.equal(forgedEcho.status, 200);
});
