// Typed routes at run time (lib/routes/typed.ts) on the Petstore: what a route reads is what the generated
// types say (numbers for integers, parsed JSON, query defaults, header parameters, class instances under
// binding), its answers reach the client with their statuses, and startup refuses what the types cannot hold.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createFacade, defineRoutes, RouteBuilder, type TypedRoutes } from '../../lib/index.js';
import { generateTypes } from '../../lib/types/generate.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PETSTORE, ROOT, serve } from '../helpers.js';
import type { Operations, Pet } from './fixtures/petstore-operations.js';

const FIXTURE = join(ROOT, 'test/types/fixtures/petstore-operations.ts');

// The runtime tests route a few operations; the rest are ignored (the compile-time check is typed-routes-compile.test.ts).
const some = (routes: Partial<TypedRoutes<Operations>>) => defineRoutes<Operations>(routes as TypedRoutes<Operations>);

const seen: Record<string, unknown> = {};
const routes = some({
  getPetById: (ex) => {
    seen.petId = ex.params.petId;
    if (ex.params.petId === 404) return ex.reply(404, undefined);
    return { id: ex.params.petId, name: 'Rex', photoUrls: [] };
  },
  addPet: async (ex) => {
    seen.body = ex.body;
    await new Promise((resolve) => setImmediate(resolve));
    return ex.body as Pet;
  },
  findPetsByStatus: (ex) => {
    seen.status = ex.query.status;
    return [];
  },
  getUserByName: (ex) => ({ username: ex.params.username }),
  // A string answer is sent as it is: JSON text here, for the JSON string the contract declares.
  loginUser: (ex) => ex.reply(200, JSON.stringify(`token-${ex.query.username}`), { contentType: 'application/json', headers: { 'X-Rate-Limit': 100, 'X-Expires-After': '2030-01-01T00:00:00Z' } }),
  deletePet: (ex) => {
    seen.apiKey = ex.headers.api_key;
    return ex.reply(400, undefined, { headers: { 'x-reason': 'kept' } });
  },
});

test('the generated Petstore module in test/types/fixtures is what generateTypes writes today', async () => {
  assert.equal(await generateTypes(PETSTORE), readFileSync(FIXTURE, 'utf8'));
});

test('a typed route reads parameters typed as the contract says and answers with the statuses it chose', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { clientRequestValidation: true }, routes });
  try {
    const found = await fetch(`${running.origin}/api/v3/pet/7`);
    assert.equal(found.status, 200);
    assert.deepEqual(await found.json(), { id: 7, name: 'Rex', photoUrls: [] });
    assert.equal(seen.petId, 7, 'the integer path parameter is a number');

    const missing = await fetch(`${running.origin}/api/v3/pet/404`);
    assert.equal(missing.status, 404);
    assert.equal(await missing.text(), '');

    const pet = { id: 3, name: 'Tom', photoUrls: ['a'], status: 'sold' };
    const added = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(pet) });
    assert.equal(added.status, 200);
    assert.deepEqual(await added.json(), pet);
    assert.deepEqual(seen.body, pet, 'the JSON body is parsed (binding is off)');

    // Without a Content-Type the body is the first declared media type's (JSON here), as validation read it.
    const bare = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', body: new TextEncoder().encode(JSON.stringify(pet)) });
    assert.equal(bare.status, 200);
    assert.deepEqual(seen.body, pet);
    await bare.arrayBuffer();

    await (await fetch(`${running.origin}/api/v3/pet/findByStatus`)).arrayBuffer();
    assert.equal(seen.status, 'available', 'an absent query parameter has its schema default');
    await (await fetch(`${running.origin}/api/v3/pet/findByStatus?status=sold`)).arrayBuffer();
    assert.equal(seen.status, 'sold');

    const deleted = await fetch(`${running.origin}/api/v3/pet/9`, { method: 'DELETE', headers: { api_key: 'k-1' } });
    assert.equal(deleted.status, 400);
    assert.equal(deleted.headers.get('x-reason'), 'kept');
    assert.equal(seen.apiKey, 'k-1');

    const login = await fetch(`${running.origin}/api/v3/user/login?username=ann`);
    assert.equal(login.status, 200);
    assert.equal(login.headers.get('x-rate-limit'), '100');
    assert.equal(login.headers.get('x-expires-after'), '2030-01-01T00:00:00Z');
    assert.equal(login.headers.get('content-type'), 'application/json');
    assert.equal(await login.json(), 'token-ann');

    // A path parameter is percent-decoded once, as the router matched it; a trailing slash changes nothing.
    const user = await fetch(`${running.origin}/api/v3/user/ann%20o%2Fbrien/`);
    assert.equal(user.status, 200);
    assert.deepEqual(await user.json(), { username: 'ann o/brien' });

    // Validation ran before the route: a petId that is no integer never reaches it.
    seen.petId = undefined;
    const invalid = await fetch(`${running.origin}/api/v3/pet/seven`);
    assert.equal(invalid.status, 400);
    assert.equal(seen.petId, undefined);
  } finally {
    await running.close();
  }
});

test('under bindingMode json with classes, a typed route gets the class instance', async () => {
  class PetClass {
    name = '';
    photoUrls: string[] = [];
    shout(): string {
      return this.name.toUpperCase();
    }
  }
  Object.defineProperty(PetClass, 'name', { value: 'Pet' });
  let received: unknown;
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    restConfiguration: { clientRequestValidation: true, bindingMode: 'json' },
    bindingClasses: [PetClass],
    routes: some({
      addPet: (ex) => {
        received = ex.body;
        return ex.body;
      },
    }),
  });
  try {
    const res = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'rex', photoUrls: [] }) });
    assert.equal(res.status, 200);
    assert.ok(received instanceof PetClass);
    assert.equal((received as PetClass).shout(), 'REX');
  } finally {
    await running.close();
  }
});

test('a RouteBuilder takes a typed route as the one step of its operation\'s route', async () => {
  class TypedPetRoutes extends RouteBuilder {
    override configure(): void {
      this.restConfiguration().clientRequestValidation(true);
      this.rest().openApi().specification(PETSTORE).missingOperation('ignore');
      this.from('direct:getPetById').process(routes.getPetById!);
    }
  }
  const running = await serve(TypedPetRoutes, { env: {} });
  try {
    const res = await fetch(`${running.origin}/api/v3/pet/12`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { id: 12, name: 'Rex', photoUrls: [] });
  } finally {
    await running.close();
  }
  class Mixed extends RouteBuilder {
    override configure(): void {
      this.restConfiguration().clientRequestValidation(true);
      this.rest().openApi().specification(PETSTORE).missingOperation('ignore');
      this.from('direct:getPetById').log('first').process(routes.getPetById!);
    }
  }
  await assert.rejects(createFacade(Mixed, { env: {} }), /The typed route for operation getPetById \(defineRoutes\) is used as a step of direct:getPetById \(fluent\)/);
});

test('startup refuses typed routes without request validation, under another name, or for no operation', async () => {
  await assert.rejects(
    createFacade({ specification: PETSTORE, missingOperation: 'ignore', routes }),
    (err: Error) => err.message.startsWith('Typed routes (defineRoutes) need clientRequestValidation: true') && err.message.includes('addPet, deletePet, findPetsByStatus, getPetById, getUserByName, loginUser'),
  );
  await assert.rejects(
    createFacade({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { clientRequestValidation: true }, routes: { deletePet: routes.getPetById! } }),
    /The typed route for operation getPetById \(defineRoutes\) is used as a step of direct:deletePet/,
  );
  const unknown = defineRoutes<{ getPetByIdentifier: Operations['getPetById'] }>({ getPetByIdentifier: () => ({ name: 'x', photoUrls: [] }) });
  await assert.rejects(
    createFacade({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { clientRequestValidation: true }, routes: unknown }),
    /Typed route direct:getPetByIdentifier: the contract has no operation getPetByIdentifier/,
  );
  // Still checked at startup: an operation without a route fails as it always did.
  await assert.rejects(createFacade({ specification: PETSTORE, restConfiguration: { clientRequestValidation: true }, routes }), /unmapped operations/);
});

test('a typed route called outside a facade says so instead of running without its operation', () => {
  assert.throws(() => routes.getPetById!({} as never), /used as a function called outside the facade/);
});
