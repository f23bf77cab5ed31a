// Every `$ref` reachable from a served operation resolves at startup, or startup fails (exit code 1) naming
// the reference and the JSON Pointer where it is used (SPEC §2): one test per place a reference can be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createFacade, Errors, silentLogger, type SvcError } from '../../lib/index.js';
import { tempDir } from '../helpers.js';

type Json = Record<string, any>;

/** A 3.0 contract with `GET /pets` (`listPets`) and `POST /pets` (`addPet`), each answering 200 with a Pet. */
function contract(version = '3.0.3'): Json {
  const pet = { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } };
  return {
    openapi: version,
    info: { title: 'refs', version: '1' },
    paths: {
      '/pets': {
        get: { operationId: 'listPets', parameters: [], responses: { '200': { description: 'ok', content: structuredClone(pet) } } },
        post: { operationId: 'addPet', requestBody: { content: structuredClone(pet) }, responses: { '200': { description: 'ok', content: structuredClone(pet) } } },
      },
    },
    components: {
      schemas: {
        Pet: { type: 'object', properties: { name: { type: 'string' }, owner: { $ref: '#/components/schemas/Owner' } } },
        Owner: { type: 'object', properties: { name: { type: 'string' } } },
      },
    },
  };
}

/** Starts a facade on the contract (plus files beside it): undefined when it starts, else the startup error. */
async function startup(doc: Json, files: Record<string, string> = {}): Promise<SvcError | undefined> {
  const dir = tempDir({ 'openapi.json': JSON.stringify(doc), ...files });
  try {
    const facade = await createFacade({ specification: join(dir, 'openapi.json'), missingOperation: 'mock' }, { logger: silentLogger });
    await facade.stop();
    return undefined;
  } catch (err) {
    return err as SvcError;
  }
}

/** Asserts startup fails with exit code 1 and exactly this message. */
async function assertFails(doc: Json, message: string, files?: Record<string, string>): Promise<void> {
  const err = await startup(doc, files);
  assert.ok(err, 'startup should fail');
  assert.equal(err.code, Errors.SPEC_REF_UNRESOLVED.code);
  assert.equal(err.exitCode, 1);
  assert.equal(err.message, message);
}

test('the contract as written starts (the base every other test breaks in one place)', async () => {
  assert.equal(await startup(contract()), undefined);
});

test('a parameter: a $ref to a missing parameter, and a parameter schema $ref to a missing schema', async () => {
  const doc = contract();
  doc.paths['/pets'].get.parameters = [{ $ref: '#/components/parameters/Limit' }];
  await assertFails(doc, "Cannot resolve $ref '#/components/parameters/Limit' used at openapi.json#/paths/~1pets/get/parameters/0 (reached from GET /pets): no value at /components/parameters/Limit");
  const bySchema = contract();
  bySchema.paths['/pets'].get.parameters = [{ name: 'limit', in: 'query', schema: { $ref: '#/components/schemas/Limt' } }];
  await assertFails(bySchema, "Cannot resolve $ref '#/components/schemas/Limt' used at openapi.json#/paths/~1pets/get/parameters/0/schema (reached from GET /pets): no value at /components/schemas/Limt");
  // A path-level parameter is reached from each operation of the path.
  const shared = contract();
  shared.paths['/pets'].parameters = [{ name: 'x', in: 'header', schema: { $ref: '#/components/schemas/Nope' } }];
  await assertFails(shared, "Cannot resolve $ref '#/components/schemas/Nope' used at openapi.json#/paths/~1pets/parameters/0/schema (reached from GET /pets): no value at /components/schemas/Nope");
});

test('a request body: the body itself and its schema', async () => {
  const doc = contract();
  doc.paths['/pets'].post.requestBody.content['application/json'].schema = { $ref: '#/components/schemas/Pett' };
  await assertFails(doc, "Cannot resolve $ref '#/components/schemas/Pett' used at openapi.json#/paths/~1pets/post/requestBody/content/application~1json/schema (reached from POST /pets): no value at /components/schemas/Pett");
  const body = contract();
  body.paths['/pets'].post.requestBody = { $ref: '#/components/requestBodies/NewPet' };
  await assertFails(body, "Cannot resolve $ref '#/components/requestBodies/NewPet' used at openapi.json#/paths/~1pets/post/requestBody (reached from POST /pets): no value at /components/requestBodies/NewPet");
});

test('a nested schema: a property, an array item and an allOf branch of a referenced component, named where they are written', async () => {
  const doc = contract();
  doc.components.schemas.Owner.properties.address = { $ref: '#/components/schemas/Adress' };
  await assertFails(doc, "Cannot resolve $ref '#/components/schemas/Adress' used at openapi.json#/components/schemas/Owner/properties/address (reached from GET /pets): no value at /components/schemas/Adress");
  const items = contract();
  items.components.schemas.Pet.properties.tags = { type: 'array', items: { $ref: '#/components/schemas/Tag' } };
  await assertFails(items, "Cannot resolve $ref '#/components/schemas/Tag' used at openapi.json#/components/schemas/Pet/properties/tags/items (reached from GET /pets): no value at /components/schemas/Tag");
  const allOf = contract();
  allOf.components.schemas.Owner = { allOf: [{ type: 'object' }, { $ref: '#/components/schemas/Base' }] };
  await assertFails(allOf, "Cannot resolve $ref '#/components/schemas/Base' used at openapi.json#/components/schemas/Owner/allOf/1 (reached from GET /pets): no value at /components/schemas/Base");
});

test('a response: the response itself and its schema (the mock never answers for a schema that does not resolve)', async () => {
  const doc = contract();
  doc.paths['/pets'].get.responses['200'].content['application/json'].schema = { type: 'array', items: { $ref: '#/components/schemas/Pets' } };
  await assertFails(doc, "Cannot resolve $ref '#/components/schemas/Pets' used at openapi.json#/paths/~1pets/get/responses/200/content/application~1json/schema/items (reached from GET /pets): no value at /components/schemas/Pets");
  const response = contract();
  response.paths['/pets'].get.responses['404'] = { $ref: '#/components/responses/NotFound' };
  await assertFails(response, "Cannot resolve $ref '#/components/responses/NotFound' used at openapi.json#/paths/~1pets/get/responses/404 (reached from GET /pets): no value at /components/responses/NotFound");
});

test('a response header: the header and its schema', async () => {
  const doc = contract();
  doc.paths['/pets'].get.responses['200'].headers = { 'X-Rate-Limit': { $ref: '#/components/headers/RateLimit' } };
  await assertFails(doc, "Cannot resolve $ref '#/components/headers/RateLimit' used at openapi.json#/paths/~1pets/get/responses/200/headers/X-Rate-Limit (reached from GET /pets): no value at /components/headers/RateLimit");
  const schema = contract();
  schema.components.headers = { RateLimit: { schema: { $ref: '#/components/schemas/Limit' } } };
  schema.paths['/pets'].get.responses['200'].headers = { 'X-Rate-Limit': { $ref: '#/components/headers/RateLimit' } };
  await assertFails(schema, "Cannot resolve $ref '#/components/schemas/Limit' used at openapi.json#/components/headers/RateLimit/schema (reached from GET /pets): no value at /components/schemas/Limit");
});

test('an example: of a media type and of a parameter', async () => {
  const doc = contract();
  doc.paths['/pets'].get.responses['200'].content['application/json'].examples = { rex: { $ref: '#/components/examples/Rex' } };
  await assertFails(doc, "Cannot resolve $ref '#/components/examples/Rex' used at openapi.json#/paths/~1pets/get/responses/200/content/application~1json/examples/rex (reached from GET /pets): no value at /components/examples/Rex");
  const param = contract();
  param.paths['/pets'].get.parameters = [{ name: 'limit', in: 'query', schema: { type: 'integer' }, examples: { ten: { $ref: '#/components/examples/Ten' } } }];
  await assertFails(param, "Cannot resolve $ref '#/components/examples/Ten' used at openapi.json#/paths/~1pets/get/parameters/0/examples/ten (reached from GET /pets): no value at /components/examples/Ten");
});

test('a link', async () => {
  const doc = contract();
  doc.paths['/pets'].post.responses['200'].links = { self: { $ref: '#/components/links/GetPet' } };
  await assertFails(doc, "Cannot resolve $ref '#/components/links/GetPet' used at openapi.json#/paths/~1pets/post/responses/200/links/self (reached from POST /pets): no value at /components/links/GetPet");
});

test('another file: a missing file, a missing pointer in a file that exists, and a broken $ref inside that file', async () => {
  const doc = contract();
  doc.components.schemas.Owner = { $ref: 'schemas/owner.json#/Owner' };
  await assertFails(doc, "Cannot resolve $ref 'schemas/owner.json#/Owner' used at openapi.json#/components/schemas/Owner (reached from GET /pets): file not found");
  await assertFails(doc, "Cannot resolve $ref 'schemas/owner.json#/Owner' used at openapi.json#/components/schemas/Owner (reached from GET /pets): no value at /Owner", { 'schemas/owner.json': JSON.stringify({ Person: {} }) });
  const inside = { Owner: { type: 'object', properties: { address: { $ref: 'address.json' } } } };
  await assertFails(doc, "Cannot resolve $ref 'address.json' used at schemas/owner.json#/Owner/properties/address (reached from GET /pets): file not found", { 'schemas/owner.json': JSON.stringify(inside) });
  assert.equal(await startup(doc, { 'schemas/owner.json': JSON.stringify(inside), 'schemas/address.json': JSON.stringify({ type: 'string' }) }), undefined);
});

test('3.1: a $ref by $id resolves; a broken one inside the identified schema is named from its $id', async () => {
  const doc = contract('3.1.0');
  doc.components.schemas.Owner = { $id: 'https://example.com/schemas/owner', type: 'object', properties: { name: { type: 'string' } } };
  doc.components.schemas.Pet.properties.owner = { $ref: 'https://example.com/schemas/owner' };
  assert.equal(await startup(doc), undefined);
  doc.components.schemas.Owner.properties.address = { $ref: '#/components/schemas/Address' };
  await assertFails(doc, "Cannot resolve $ref '#/components/schemas/Address' used at https://example.com/schemas/owner#/properties/address (reached from GET /pets): no value at /components/schemas/Address");
  doc.components.schemas.Owner.properties.address = { type: 'string' };
  doc.components.schemas.Pet.properties.vet = { $ref: 'https://example.com/schemas/vet' };
  await assertFails(doc, "Cannot resolve $ref 'https://example.com/schemas/vet' used at openapi.json#/components/schemas/Pet/properties/vet (reached from GET /pets): remote references are not fetched");
});

test('3.1 applies the siblings of a $ref, so their references are checked; 3.0 ignores them, as the validator does', async () => {
  const sibling = { $ref: '#/components/schemas/Owner', properties: { extra: { $ref: '#/components/schemas/Extra' } } };
  const v31 = contract('3.1.0');
  v31.components.schemas.Pet.properties.owner = sibling;
  await assertFails(v31, "Cannot resolve $ref '#/components/schemas/Extra' used at openapi.json#/components/schemas/Pet/properties/owner/properties/extra (reached from GET /pets): no value at /components/schemas/Extra");
  const v30 = contract();
  v30.components.schemas.Pet.properties.owner = structuredClone(sibling);
  assert.equal(await startup(v30), undefined);
});

test('only references a served operation reaches are checked, and only in reference positions', async () => {
  const doc = contract();
  // Data, not references: an example value and a default holding a `$ref` key.
  doc.components.schemas.Owner.example = { $ref: '#/nowhere' };
  doc.components.schemas.Owner.properties.name.default = { $ref: '#/nowhere' };
  doc.paths['/pets'].get.responses['200'].content['application/json'].example = { $ref: '#/nowhere' };
  // Not reachable from any operation.
  doc.components.schemas.Unused = { $ref: '#/components/schemas/Nothing' };
  // Callbacks are not served.
  doc.paths['/pets'].post.callbacks = { onAdded: { '{$request.body#/url}': { post: { requestBody: { $ref: '#/components/requestBodies/Nothing' }, responses: { '200': { description: 'ok' } } } } } };
  assert.equal(await startup(doc), undefined);
});

test('recursive schemas and references shared by many operations are walked once and start', async () => {
  const doc = contract();
  doc.components.schemas.Owner.properties.pets = { type: 'array', items: { $ref: '#/components/schemas/Pet' } };
  doc.components.schemas.Owner.properties.self = { $ref: '#/components/schemas/Owner' };
  assert.equal(await startup(doc), undefined);
});
