// followRedirects to another origin: only what the client itself sent goes there, without its credentials;
// a key the route set for its own backend, query parameters turned headers and the forwarding trail stay behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PETSTORE, serve } from '../helpers.js';
import { rawBackend, rawGet } from './raw-peers.js';

test('a cross-origin redirect carries only the client\'s own unchanged fields minus Authorization and Cookie; a same-origin one carries everything', async () => {
  const third = await rawBackend(() => ({ body: 'third' }));
  const elsewhere = await rawBackend((request) => (request.target === '/onwards' ? { status: 308, lines: [`Location: ${third.origin}/end`], body: '' } : { body: 'elsewhere' }));
  const backend = await rawBackend((request) =>
    request.target.startsWith('/away') ? { status: 302, lines: [`Location: ${elsewhere.origin}/landing`], body: '' }
    : request.target.startsWith('/far') ? { status: 302, lines: [`Location: ${elsewhere.origin}/onwards`], body: '' }
    : request.target.startsWith('/near') ? { status: 307, lines: ['Location: /here'], body: '' }
    : { body: 'here' },
  );
  const redirectOrigins = `${elsewhere.origin},${third.origin}`;
  const route = (path: string) => [
    { kind: 'setHeader' as const, name: 'X-Api-Key', expression: { constant: 'backend-secret' } },
    { kind: 'setHeader' as const, name: 'X-Tenant', expression: { constant: 'route-tenant' } },
    { kind: 'to' as const, uri: `${backend.origin}${path}?followRedirects=true`, parameters: { redirectOrigins } },
  ];
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { findPetsByStatus: route('/away'), getPetById: route('/near'), getInventory: route('/far') } });
  const clientLines = ['Authorization: Basic dXNlcjpwYXNz', 'Cookie: session=abc', 'X-Client: yes', 'X-Tenant: client-tenant', 'Accept: application/json'];
  try {
    const away = await rawGet(running.origin, '/api/v3/pet/findByStatus?status=sold', clientLines);
    assert.equal(away.status, 200);
    assert.equal(away.body, 'elsewhere');
    const landed = elsewhere.received[0]!;
    assert.equal(landed.target, '/landing');
    const names = landed.fields.map(([name]) => name).sort();
    assert.deepEqual(names, ['accept', 'connection', 'host', 'via', 'x-client'], landed.bytes);
    assert.equal(landed.field('host'), new URL(elsewhere.origin).host);
    assert.equal(landed.field('x-client'), 'yes');
    assert.equal(backend.received[0]!.field('x-api-key'), 'backend-secret', 'the route\'s own backend got its key');
    assert.equal(backend.received[0]!.field('authorization'), 'Basic dXNlcjpwYXNz');

    const near = await rawGet(running.origin, '/api/v3/pet/7', clientLines);
    assert.equal(near.body, 'here');
    const followed = backend.received[2]!;
    assert.equal(followed.target, '/here');
    for (const [name, value] of [['x-api-key', 'backend-secret'], ['x-tenant', 'route-tenant'], ['authorization', 'Basic dXNlcjpwYXNz'], ['cookie', 'session=abc'], ['x-client', 'yes'], ['x-forwarded-for', '127.0.0.1']]) {
      assert.equal(followed.field(name!), value, `same origin keeps ${name}`);
    }
    // Two origins on: the third is judged like the second.
    const far = await rawGet(running.origin, '/api/v3/store/inventory', clientLines);
    assert.equal(far.body, 'third');
    assert.deepEqual(third.received.map((r) => r.fields.map(([name]) => name).sort()), [['accept', 'connection', 'host', 'via', 'x-client']], third.received[0]?.bytes);
  } finally {
    await running.close();
    await backend.close();
    await elsewhere.close();
    await third.close();
  }
});
