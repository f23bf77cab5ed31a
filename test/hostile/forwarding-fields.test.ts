// The forwarding family (X-Forwarded-*, X-Real-IP, True-Client-IP, X-Original-URL, X-HTTP-Method-Override,
// client-certificate fields...) from an untrusted client never reaches the backend, whether sent as header
// fields or as query parameters (which become exchange headers); a trusted proxy's fields do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PETSTORE, serve } from '../helpers.js';
import { rawBackend, rawGet, type ReceivedRequest } from './raw-peers.js';

const FAMILY: Record<string, string> = {
  'X-Forwarded-Port': '443', 'X-Forwarded-Prefix': '/admin', 'X-Forwarded-Server': 'forged', 'X-Forwarded-Scheme': 'https',
  'X-Forwarded-Ssl': 'on', 'X-Forwarded-Uri': '/internal', 'X-Forwarded-Client-Cert': 'Hash=1', 'X-Real-IP': '10.0.0.1',
  'True-Client-IP': '10.0.0.2', 'CF-Connecting-IP': '10.0.0.3', 'X-Original-URL': '/internal/admin', 'X-Rewrite-URL': '/internal/admin',
  'X-Original-Host': 'internal.example', 'X-HTTP-Method-Override': 'DELETE', 'X-HTTP-Method': 'DELETE', 'X-Method-Override': 'DELETE',
  'X-Client-IP': '10.0.0.4', 'X-Cluster-Client-IP': '10.0.0.5', 'Fastly-Client-IP': '10.0.0.6', 'X-ProxyUser-Ip': '10.0.0.7',
  'Forwarded-For': '10.0.0.8', 'X-Forwarded': 'for=10.0.0.9', 'X-Host': 'internal.example', 'Front-End-Https': 'on',
  'X-SSL-Client-Cert': 'forged', 'X-Client-Cert': 'forged', 'Ssl-Client-Verify': 'SUCCESS',
  // CGI, PHP, WSGI and Rack read `_` as `-` (HTTP_X_REAL_IP): the same fields.
  X_Real_IP: '10.0.1.1', 'X_Forwarded_Prefix': '/admin', 'X-Forwarded_Host': 'internal.example', 'True_Client_IP': '10.0.1.2',
};
const HEADER_LINES = Object.entries(FAMILY).map(([name, value]) => `${name}: ${value}`);
const QUERY = `status=sold&${Object.entries(FAMILY).map(([name, value]) => `${name.toLowerCase()}=${encodeURIComponent(value)}`).join('&')}`;

function familyReceived(request: ReceivedRequest): string[] {
  return Object.keys(FAMILY).filter((name) => request.field(name) !== undefined).map((name) => `${name}: ${request.field(name)}`);
}

test('an untrusted client\'s forwarding fields, as headers or as query parameters, never reach the backend; the facade\'s own X-Forwarded-For/-Proto/-Host and Forwarded do', async () => {
  const backend = await rawBackend();
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { findPetsByStatus: [{ kind: 'to', uri: `${backend.origin}/pets` }] } });
  try {
    assert.equal((await rawGet(running.origin, '/api/v3/pet/findByStatus?status=sold', HEADER_LINES)).status, 200);
    assert.equal((await rawGet(running.origin, `/api/v3/pet/findByStatus?${QUERY}`)).status, 200);
    for (const request of backend.received) {
      assert.deepEqual(familyReceived(request), [], request.bytes);
      assert.equal(request.field('x-forwarded-for'), '127.0.0.1');
      assert.equal(request.field('x-forwarded-proto'), 'http');
      assert.equal(request.field('x-forwarded-host'), new URL(running.origin).host);
      assert.equal(request.method, 'GET', 'no method override');
    }
    assert.equal(backend.received[1]!.field('status'), 'sold', 'other query parameters still travel as headers');
  } finally {
    await running.close();
    await backend.close();
  }
});

test('from a trusted proxy (svc.backend.trustedProxies) the forwarding fields pass; the same names as query parameters still do not; a route may set one itself', async () => {
  const backend = await rawBackend();
  const trusting = await serve({ specification: PETSTORE, missingOperation: 'ignore', backend: { trustedProxies: 'loopback' }, routes: { findPetsByStatus: [{ kind: 'to', uri: `${backend.origin}/pets` }] } });
  const routeSets = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: { findPetsByStatus: [{ kind: 'setHeader', name: 'X-Real-IP', expression: { simple: '${header.x-client-seen}' } }, { kind: 'to', uri: `${backend.origin}/pets` }] },
  });
  try {
    assert.equal((await rawGet(trusting.origin, '/api/v3/pet/findByStatus?status=sold', HEADER_LINES)).status, 200);
    assert.deepEqual(familyReceived(backend.received[0]!), HEADER_LINES);
    assert.equal((await rawGet(trusting.origin, `/api/v3/pet/findByStatus?${QUERY}`)).status, 200);
    assert.deepEqual(familyReceived(backend.received[1]!), [], 'a query parameter is the client\'s word, whoever relays it');
    assert.equal((await rawGet(routeSets.origin, '/api/v3/pet/findByStatus?status=sold', ['X-Client-Seen: 192.0.2.1', 'X-Real-IP: 6.6.6.6'])).status, 200);
    assert.equal(backend.received[2]!.field('x-real-ip'), '192.0.2.1', 'the route\'s own value');
  } finally {
    await trusting.close();
    await routeSets.close();
    await backend.close();
  }
});
