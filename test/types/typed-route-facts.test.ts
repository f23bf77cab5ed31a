// Typed routes read what the pipeline read for their request (lib/routes/typed-runtime.ts): the parameters
// validation typed (a copy the route may change without changing the exchange's headers), never another
// operation's. A typed route reached with a request its own operation did not receive (passed on with
// `to: direct:`) refuses to run: its types hold only for requests checked against its operation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defineRoutes, RouteBuilder, type TypedRoutes } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';
import type { Operations } from './fixtures/petstore-operations.js';

const some = (routes: Partial<TypedRoutes<Operations>>) => defineRoutes<Operations>(routes as TypedRoutes<Operations>);

test('a typed route gets its own copy of the parameters validation typed', async () => {
  const seen: Record<string, unknown> = {};
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    restConfiguration: { clientRequestValidation: true },
    routes: some({
      // deletePet's header parameter takes it off validation's text-only path: validation types petId itself.
      deletePet: (ex) => {
        seen.petId = ex.params.petId;
        (ex.params as { petId: number }).petId = 10;
        seen.header = ex.exchange.header('petId');
        seen.apiKey = ex.headers.api_key;
        return ex.reply(200, undefined);
      },
    }),
  });
  try {
    const res = await fetch(`${running.origin}/api/v3/pet/9`, { method: 'DELETE', headers: { api_key: 'k-2' } });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    assert.deepEqual(seen, { petId: 9, header: 9, apiKey: 'k-2' });
  } finally {
    await running.close();
  }
});

test('a typed route passed a request of another operation refuses it instead of reading that operation\'s parameters', async () => {
  const routes = some({ getPetById: (ex) => ({ id: ex.params.petId, name: 'Rex', photoUrls: [] }) });
  class Passing extends RouteBuilder {
    override configure(): void {
      this.restConfiguration().clientRequestValidation(true);
      this.rest().openApi().specification(PETSTORE).missingOperation('ignore');
      this.from('direct:getPetById').process(routes.getPetById!);
      this.from('direct:findPetsByStatus').to('direct:getPetById');
    }
  }
  const running = await serve(Passing, { env: {} });
  try {
    const own = await fetch(`${running.origin}/api/v3/pet/12`);
    assert.equal(own.status, 200);
    assert.deepEqual(await own.json(), { id: 12, name: 'Rex', photoUrls: [] });
    const passed = await fetch(`${running.origin}/api/v3/pet/findByStatus?status=sold`);
    assert.equal(passed.status, 500);
    assert.equal(((await passed.json()) as { code?: string }).code, 'SVC_ROUTE_FAILED');
    assert.ok(
      running.logger.lines.some((l) => l.includes('The typed route for operation getPetById (defineRoutes) is used as the route of an exchange its operation did not receive')),
      running.logger.lines.join('\n'),
    );
  } finally {
    await running.close();
  }
});
