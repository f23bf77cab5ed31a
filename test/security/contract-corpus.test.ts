// The contract's security on two public contracts: Redocly's Museum API (global HTTP Basic) and the Train
// Travel API (OAuth2 with read and write scopes), served from the mock as `svc-facade mock` serves them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { FacadeObjectConfig } from '../../lib/index.js';
import { CORPUS, serve, tempDir } from '../helpers.js';
import { basic, call, HMAC_SECRET } from './contract-security-fixture.js';
import { ISSUER, token } from './tokens.js';

const MUSEUM = join(CORPUS, 'redocly-museum/openapi.yaml');
const TRAIN = join(CORPUS, 'readme-oas-examples/3.1/train-travel.yaml');

const mocked = (specification: string, extra: Partial<FacadeObjectConfig> = {}): FacadeObjectConfig => ({
  specification,
  missingOperation: 'mock',
  ...extra,
  restConfiguration: { clientRequestValidation: true, clientSecurityValidation: true, ...extra.restConfiguration },
});

test('Museum API: every operation asks for HTTP Basic; present and well-formed is enough without a users file', async () => {
  const running = await serve(mocked(MUSEUM), { env: {} });
  try {
    const base = running.facade.basePath;
    const refused = await call(running.origin, `${base}/museum-hours`);
    assert.equal(refused.status, 401);
    assert.equal(refused.type, 'application/problem+json');
    assert.deepEqual(refused.challenges, ['Basic realm="MuseumPlaceholderAuth", charset="UTF-8"']);
    assert.equal((await call(running.origin, `${base}/museum-hours`, { authorization: basic('visitor', 'x') })).status, 200);
    assert.equal((await call(running.origin, `${base}/special-events`, { authorization: 'Bearer abc' })).status, 401);
  } finally {
    await running.close();
  }
});

test('Museum API with svc.security.basicUsers: only the users of the htpasswd file', async () => {
  const dir = tempDir({ 'users.htpasswd': 'curator:$2y$05$L7zt6SOxSBFv5gm9/XzE6u405txMPwy/ykgDtOAfuPUir/tkjXTBm\n' });
  const running = await serve(mocked(MUSEUM, { baseDir: dir, security: { basicUsers: 'users.htpasswd' } }), { env: {} });
  try {
    const base = running.facade.basePath;
    assert.equal((await call(running.origin, `${base}/museum-hours`, { authorization: basic('curator', 'secret') })).status, 200);
    assert.equal((await call(running.origin, `${base}/museum-hours`, { authorization: basic('curator', 'guess') })).status, 401);
    assert.equal((await call(running.origin, `${base}/museum-hours`, { authorization: basic('visitor', 'secret') })).status, 401);
  } finally {
    await running.close();
  }
});

test('Train Travel API: OAuth2 read at the root, write on bookings; with a profile the token scopes are checked', async () => {
  const properties = { 'svc.rest.endpointProperty.oauthProfile': 'trains', 'svc.oauth.trains.issuer': ISSUER, 'svc.oauth.trains.secret': HMAC_SECRET };
  const running = await serve(mocked(TRAIN, { properties }), { env: {} });
  const secret = new TextEncoder().encode(HMAC_SECRET);
  try {
    const reader = `Bearer ${await token(secret, { claims: { scope: 'read' }, audience: 'trains' })}`;
    const writer = `Bearer ${await token(secret, { claims: { scope: 'read write' }, audience: 'trains' })}`;
    assert.deepEqual((await call(running.origin, '/stations')).challenges, ['Bearer']);
    assert.equal((await call(running.origin, '/stations', { authorization: reader })).status, 200);
    const lacking = await call(running.origin, '/bookings/1725ff48-ab45-4bb5-9d02-88745177dedb', { authorization: reader });
    assert.equal(lacking.status, 200, 'get-booking needs read only');
    const remove = await fetch(`${running.origin}/bookings/1725ff48-ab45-4bb5-9d02-88745177dedb`, { method: 'DELETE', headers: { authorization: reader } });
    assert.equal(remove.status, 403);
    assert.equal(remove.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="write"');
    const removed = await fetch(`${running.origin}/bookings/1725ff48-ab45-4bb5-9d02-88745177dedb`, { method: 'DELETE', headers: { authorization: writer } });
    assert.equal(removed.status, 204);
  } finally {
    await running.close();
  }
});

test('Train Travel API without a profile: a well-formed bearer token is enough; clientSecurityValidation: false lets everyone in, with the warning', async () => {
  const presence = await serve(mocked(TRAIN), { env: {} });
  try {
    assert.equal((await call(presence.origin, '/stations')).status, 401);
    assert.equal((await call(presence.origin, '/stations', { authorization: 'Bearer opaque-token' })).status, 200);
  } finally {
    await presence.close();
  }
  const open = await serve(mocked(TRAIN, { restConfiguration: { clientSecurityValidation: false } }), { env: {} });
  try {
    assert.equal((await call(open.origin, '/stations')).status, 200);
    assert.ok(open.logger.lines.includes('WARN 7 operation(s) declare security requirements that nothing enforces: any client may call them. Set restConfiguration clientSecurityValidation: true (svc.rest.clientSecurityValidation=true) to enforce them (docs/security.md#contract-security)'), open.logger.lines.join('\n'));
  } finally {
    await open.close();
  }
});
