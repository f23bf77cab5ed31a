// OpenAPI 3.2 Example Objects through the mock over real HTTP: `dataValue` is the data (rendered per media
// type like `value`), `serializedValue` goes out byte for byte with its media type, `Prefer: example=`
// picks among them, `externalValue` is still never fetched, response headers use their examples, and an
// invalid Example Object is a startup warning while the facade still serves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, tempDir, type Running } from '../helpers.js';
import { serveContract32, text } from './fixture.js';

let app: Running;
before(async () => {
  app = await serveContract32();
});
after(() => app.close());

const get = async (path: string, headers: Record<string, string> = {}) => text(await fetch(`${app.origin}/v1${path}`, { headers }));

test('the first example with data is answered: a dataValue, as JSON', async () => {
  const res = await get('/pets/1');
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/json');
  assert.deepEqual(JSON.parse(res.body), { petType: 'cat', name: 'Tom', lives: 9 });
});

test('Prefer: example= picks a value example, and a serializedValue one byte for byte', async () => {
  const dog = await get('/pets/1', { prefer: 'example=dog' });
  assert.deepEqual(JSON.parse(dog.body), { petType: 'dog', name: 'Rex', goodBoy: true });
  const wire = await get('/pets/1', { prefer: 'example=wire' });
  assert.equal(wire.status, 200);
  assert.equal(wire.type, 'application/json');
  // Not re-serialized from dataValue: the spaces of the serialized form stay.
  assert.equal(wire.body, '{ "petType": "cat", "name": "Wire", "lives": 1 }');
});

test('an example with only externalValue is never fetched: the first example answers instead', async () => {
  const res = await get('/pets/1', { prefer: 'example=elsewhere' });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.body), { petType: 'cat', name: 'Tom', lives: 9 });
});

test('a serializedValue of a non-JSON media type is sent as written, with that Content-Type', async () => {
  const res = await get('/pets/1', { accept: 'text/csv' });
  assert.equal(res.status, 200);
  assert.equal(res.type, 'text/csv');
  assert.equal(res.body, 'petType,name\ncat,Tom\n');
});

test('a dataValue for an XML media type is written by the XML codec', async () => {
  const res = await get('/pets/1', { accept: 'application/xml' });
  assert.equal(res.status, 200);
  assert.equal(res.type, 'application/xml');
  assert.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?><Pet><petType>cat</petType><name>Tom</name><lives>9</lives></Pet>');
});

test('response headers take their example: the serializedValue of an Example Object, a referenced media type example', async () => {
  const res = await fetch(`${app.origin}/v1/pets/1`);
  await res.text();
  assert.equal(res.headers.get('x-rate-limit'), '100');
  assert.equal(res.headers.get('x-owner'), 'ann');
});

test('Prefer: dynamic=true still synthesizes header values from the schema', async () => {
  const res = await fetch(`${app.origin}/v1/pets/1`, { headers: { prefer: 'dynamic=true, seed=7' } });
  await res.text();
  assert.match(res.headers.get('x-rate-limit') ?? '', /^-?\d+$/);
});

test('an Example Object with both value and dataValue is a startup warning naming it; the facade serves it', async () => {
  const warning = app.logger.lines.find((l) => l.includes('/paths/~1conflicts/get/responses/200/content/application~1json/examples/both'));
  assert.ok(warning, app.logger.lines.join('\n'));
  assert.match(warning, /^WARN contract: example .* value and dataValue are mutually exclusive \(dataValue is used\)$/);
  const res = await get('/conflicts');
  assert.equal(res.status, 200);
  assert.equal(res.body, '2');
  // Valid Example Objects (dataValue with serializedValue, externalValue alone) are not warned about.
  assert.equal(app.logger.lines.filter((l) => l.includes('contract: example')).length, 1);
});

test('invalid Example Objects are found wherever they can be: components, parameters, headers, encodings, callbacks', async () => {
  const bad = { value: 1, externalValue: 'https://example.com/x' };
  const contract = {
    openapi: '3.2.0',
    info: { title: 'examples everywhere', version: '1' },
    paths: {
      '/a': {
        parameters: [{ name: 'q', in: 'query', schema: { type: 'string' }, examples: { p: bad } }],
        post: {
          requestBody: { content: { 'multipart/form-data': { encoding: { f: { headers: { 'X-F': { schema: { type: 'string' }, examples: { e: bad } } } } } } } },
          responses: { '200': { description: 'ok', headers: { 'X-H': { content: { 'text/plain': { examples: { h: { serializedValue: 3 } } } } } } } },
          callbacks: { done: { '{$url}': { post: { responses: { '200': { description: 'ok', content: { 'application/json': { examples: { c: bad } } } } } } } } },
        },
      },
    },
    components: {
      examples: { Shared: { serializedValue: 'a', externalValue: 'https://example.com/a' }, Fine: { dataValue: 1, serializedValue: '1' } },
      schemas: { S: { type: 'object', properties: { examples: { type: 'object', properties: { value: {}, externalValue: {} } } } } },
    },
  };
  const running = await serve({ specification: 'c.json', baseDir: tempDir({ 'c.json': JSON.stringify(contract) }), missingOperation: 'mock' });
  try {
    const warned = running.logger.lines.filter((l) => l.startsWith('WARN contract: example ')).map((l) => l.slice('WARN contract: example '.length).split(': ')[0]);
    assert.deepEqual(warned.sort(), [
      '#/components/examples/Shared',
      '#/paths/~1a/parameters/0/examples/p',
      '#/paths/~1a/post/callbacks/done/{$url}/post/responses/200/content/application~1json/examples/c',
      '#/paths/~1a/post/requestBody/content/multipart~1form-data/encoding/f/headers/X-F/examples/e',
      '#/paths/~1a/post/responses/200/headers/X-H/content/text~1plain/examples/h',
    ]);
    assert.equal((await fetch(`${running.origin}/a`, { method: 'POST', headers: { prefer: 'code=200' } })).status, 200);
  } finally {
    await running.close();
  }
});
