// OpenAPI 3.2 `components/mediaTypes` over real HTTP: Media Type Objects reached by `$ref` (also through a
// chain, and from another document whose own references resolve there) in request bodies, responses,
// parameters with `content` and response headers, read by validation, negotiation, the mock and binding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFacade, Errors, silentLogger, type SvcError } from '../../lib/index.js';
import { tempDir } from '../helpers.js';
import { withContract32, text } from './fixture.js';

const VALIDATING = { restConfiguration: { clientRequestValidation: true } };
const post = (url: string, body: string, type = 'application/json', headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': type, ...headers }, body });

test('the mock answers a referenced media type example, and one reached through a chain of references as XML', async () => {
  await withContract32({}, async (v1) => {
    const json = await text(await fetch(`${v1}/pets`));
    assert.equal(json.status, 200);
    assert.equal(json.type, 'application/json');
    assert.deepEqual(JSON.parse(json.body), [{ petType: 'cat', name: 'Tom', lives: 9 }, { petType: 'hamster', name: 'Hammy', legs: 4 }]);
    const xml = await text(await fetch(`${v1}/pets`, { headers: { accept: 'application/xml' } }));
    assert.equal(xml.status, 200);
    assert.equal(xml.type, 'application/xml');
    assert.match(xml.body, /^<\?xml version="1.0" encoding="UTF-8"\?><root><Pet><petType>cat<\/petType>/);
  });
});

test('negotiation sees referenced media types: 406 for an Accept none satisfies, 415 for an undeclared body type', async () => {
  await withContract32(VALIDATING, async (v1) => {
    assert.equal((await fetch(`${v1}/pets`, { headers: { accept: 'text/html' } })).status, 406);
    assert.equal((await fetch(`${v1}/pets`, { headers: { accept: 'application/xml' } })).status, 200);
    const res = await post(`${v1}/pets`, '<pet/>', 'application/xml');
    assert.equal(res.status, 415);
    await res.text();
  });
});

test('a request body whose media type is a reference is validated against its schema', async () => {
  await withContract32(VALIDATING, async (v1) => {
    const ok = await post(`${v1}/pets`, JSON.stringify({ petType: 'cat', name: 'Tom', lives: 9 }));
    assert.equal(ok.status, 201, 'accepted: the mock answers the declared 201');
    await ok.text();
    const bad = await post(`${v1}/pets`, JSON.stringify({ petType: 'cat', name: 'Tom', lives: 0 }));
    assert.equal(bad.status, 400);
    const problem = await bad.json();
    assert.deepEqual(problem.errors.map((e: { pointer: string }) => e.pointer), ['/lives']);
  });
});

test('a media type from another document: its schema and example references resolve in that document', async () => {
  await withContract32(VALIDATING, async (v1) => {
    const long = await post(`${v1}/notes`, JSON.stringify({ text: 'far too long for it' }));
    assert.equal(long.status, 400);
    const problem = await long.json();
    assert.equal(problem.errors[0].pointer, '/text');
    assert.match(problem.errors[0].message, /10 characters/);
    const example = await text(await post(`${v1}/notes`, JSON.stringify({ text: 'ok' }), 'application/json', { prefer: 'code=200' }));
    assert.equal(example.status, 200);
    assert.deepEqual(JSON.parse(example.body), { text: 'hi' });
  });
});

test('a parameter described by a referenced media type is parsed and validated by its schema', async () => {
  await withContract32(VALIDATING, async (v1) => {
    assert.equal((await fetch(`${v1}/search?filter=${encodeURIComponent('{"size":3}')}`)).status, 204);
    const bad = await fetch(`${v1}/search?filter=${encodeURIComponent('{"size":0}')}`);
    assert.equal(bad.status, 400);
    const problem = await bad.json();
    assert.equal(problem.errors[0].in, 'query');
    assert.equal(problem.errors[0].name, 'filter');
  });
});

test('binding reads the schema of a referenced request media type (class from its $ref)', async () => {
  class Cat {
    lives = 0;
    name = '';
  }
  const seen: unknown[] = [];
  await withContract32({
    missingOperation: 'ignore',
    restConfiguration: { bindingMode: 'json' },
    bindingClasses: [Cat],
    routes: { addPet: (ex) => void seen.push(ex.body) },
  }, async (v1) => {
    const res = await post(`${v1}/pets`, JSON.stringify({ petType: 'cat', name: 'Tom', lives: 9 }));
    assert.equal(res.status, 200);
    await res.text();
    assert.ok(seen[0] instanceof Cat);
  });
});

test('the published contract keeps the references as written', async () => {
  await withContract32({ restConfiguration: { apiContextPath: '/api-doc', hostNameResolver: 'none' } }, async (v1) => {
    const doc = await (await fetch(new URL('/api-doc', v1))).json();
    assert.deepEqual(doc.paths['/pets'].get.responses['200'].content['application/json'], { $ref: '#/components/mediaTypes/PetList' });
    assert.equal(doc.openapi, '3.2.0');
  });
});

test('a chain of media type references that loops on itself fails startup naming the reference', async () => {
  const contract = {
    openapi: '3.2.0',
    info: { title: 'loop', version: '1' },
    paths: { '/a': { post: { operationId: 'a', requestBody: { content: { 'application/json': { $ref: '#/components/mediaTypes/A' } } }, responses: { '204': { description: 'ok' } } } } },
    components: { mediaTypes: { A: { $ref: '#/components/mediaTypes/B' }, B: { $ref: '#/components/mediaTypes/A' } } },
  };
  const dir = tempDir({ 'loop.json': JSON.stringify(contract) });
  await assert.rejects(
    createFacade({ specification: 'loop.json', baseDir: dir, missingOperation: 'ignore' }, { logger: silentLogger }),
    (err: SvcError) => err.code === Errors.SPEC_REF_UNRESOLVED.code && /^Cannot resolve \$ref '#\/components\/mediaTypes\/[AB]' used at loop\.json#\/components\/mediaTypes\/[AB] \(reached from POST \/a\): reference chain is circular$/.test(err.message),
  );
});
