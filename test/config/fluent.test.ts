// The fluent API (SPEC §12): a RouteBuilder subclass passed to createFacade, and modules as config files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createFacade, RouteBuilder, constant, json, simple, silentLogger, SvcError, type Exchange } from '../../lib/index.js';
import { PETSTORE, ROOT, serve } from '../helpers.js';

class PetRoutes extends RouteBuilder {
  override configure(): void {
    this.restConfiguration().contextPath('/builder').bindingMode('off').hostNameResolver('none').endpointProperty('custom', 'x');
    this.rest().openApi().specification(PETSTORE).missingOperation('ignore');
    this.from('direct:getPetById')
      .setProperty('seen', simple('${header.petId}'))
      .setHeader('X-Seen', (ex: Exchange) => `pet-${String(ex.properties.seen)}`)
      .setHeader('X-Temp', constant('t'))
      .removeHeader('X-Temp')
      .log('fetching ${header.petId}')
      .to('direct:lookup');
    this.from('direct:lookup').process((ex) => {
      ex.message.body = { id: Number(ex.message.headers.get('petId')), name: 'rex' };
    });
    this.from('direct:addPet').setHeader('SvcHttpResponseCode', constant(201)).setBody(json({ created: true })).to('log:pets');
  }
}

test('a RouteBuilder subclass (class or instance) configures rest, the contract and routes with every step', async () => {
  for (const input of [PetRoutes, new PetRoutes()]) {
    const running = await serve(input, { env: {} });
    try {
      assert.equal(running.facade.basePath, '/builder');
      assert.equal(running.facade.operations.find((o) => o.endpoint === 'direct:getPetById')?.disposition, 'route');
      const pet = await fetch(`${running.origin}/builder/pet/12`);
      assert.equal(pet.status, 200);
      assert.equal(pet.headers.get('x-seen'), 'pet-12');
      assert.equal(pet.headers.get('x-temp'), null);
      assert.deepEqual(await pet.json(), { id: 12, name: 'rex' });
      const added = await fetch(`${running.origin}/builder/pet`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
      assert.equal(added.status, 201);
      assert.deepEqual(await added.json(), { created: true });
      assert.ok(running.logger.lines.includes('INFO [getPetById] fetching 12'));
      assert.ok(running.logger.lines.includes('INFO [pets] {"created":true}'));
    } finally {
      await running.close();
    }
  }
});

test('a module whose default export is a RouteBuilder is a config file; its relative specification is beside it', async () => {
  const running = await serve([join(ROOT, 'test/fixtures/fluent/routes.mjs')], { env: {} });
  try {
    assert.equal(running.facade.contract.uri, PETSTORE);
    const pet = await fetch(`${running.origin}/fluent/pet/3`);
    assert.equal(pet.headers.get('x-pet'), '3');
    assert.deepEqual(await pet.json(), { id: 3, via: 'mjs' });
    assert.deepEqual(await (await fetch(`${running.origin}/fluent/store/inventory`)).json(), { available: 1 });
    assert.ok(running.logger.lines.includes('INFO [audit] inventory {"available":1}'));
  } finally {
    await running.close();
  }
  const typed = await serve([join(ROOT, 'test/fixtures/fluent/routes.ts')], { env: {} });
  try {
    assert.deepEqual(await (await fetch(`${typed.origin}/api/v3/pet/4`)).json(), { id: 4, via: 'ts' });
    assert.equal((await fetch(`${typed.origin}/api/v3/pet/4`, { method: 'DELETE' })).status, 202);
  } finally {
    await typed.close();
  }
});

test('invalid fluent configuration fails naming the option and the allowed values', async () => {
  class BadMode extends RouteBuilder {
    override configure(): void {
      this.restConfiguration().bindingMode('jsonish' as 'json');
    }
  }
  await assert.rejects(createFacade(BadMode, { env: {}, logger: silentLogger }), (err: SvcError) => {
    assert.equal(err.message, 'fluent: option bindingMode has invalid value "jsonish"; allowed: off, auto, json, xml, json_xml');
    assert.equal(err.exitCode, 2);
    return true;
  });
  class BadFrom extends RouteBuilder {
    override configure(): void {
      this.from('timer:tick');
    }
  }
  await assert.rejects(createFacade(BadFrom, { env: {}, logger: silentLogger }), {
    message: 'fluent: option from has invalid value "timer:tick"; allowed: direct:<operationId> or rest-openapi:<specification>',
  });
  class Unmapped extends RouteBuilder {
    override configure(): void {
      this.from(`rest-openapi:${PETSTORE}?consumerComponentName=platform-http`);
      this.from('direct:getPetById').process(() => undefined);
    }
  }
  await assert.rejects(createFacade(Unmapped, { env: {}, logger: silentLogger }), { message: /^OpenAPI specification has 18 unmapped operations to corresponding routes:\n\tdirect:addPet\n/ });
  class Twice extends RouteBuilder {
    override configure(): void {
      this.rest().openApi().specification(PETSTORE).missingOperation('ignore');
      this.from('direct:getPetById');
      this.from('direct:getPetById');
    }
  }
  await assert.rejects(createFacade(Twice, { env: {}, logger: silentLogger }), { message: 'Two routes consume from direct:getPetById (fluent and fluent)' });
  const builder = new PetRoutes();
  assert.throws(() => builder.from('direct:x'), /RouteBuilder methods can only be called from configure\(\)/);
});

test('a module that is not a route builder, or whose configure() throws, fails startup naming the file (exit code 2)', async () => {
  for (const [name, message] of [
    ['throws.mjs', 'configure() failed: no database configured'],
    ['not-a-builder.mjs', 'the default export must be a RouteBuilder subclass or instance'],
  ]) {
    const file = join(ROOT, 'test/fixtures/fluent', name);
    await assert.rejects(createFacade([file], { env: {}, logger: silentLogger }), (err: SvcError) => {
      assert.ok(err instanceof SvcError);
      assert.equal(err.message, `${file}: ${message}`);
      assert.equal(err.exitCode, 2);
      return true;
    });
  }
});
