// Keys from a JWKS server (`jwks-uri`, SPEC §11): cached, a new kid picked up without a restart, a flood of
// unknown kids rate-limited, 503 while the server is down and recovery once it is back. Real server on loopback.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { SignJWT } from 'jose';
import { PETSTORE, serve, type Running } from '../helpers.js';
import { AUDIENCE, ISSUER, JwksServer, signingKey, sleep, token } from './tokens.js';

const PET = '/api/v3/pet/1';
const first = await signingKey('first');
const second = await signingKey('second', 'ES256');

function facade(jwks: JwksServer, extra: Record<string, string> = {}): Promise<Running> {
  const properties: Record<string, string> = {
    'svc.rest.endpointProperty.oauthProfile': 'idp',
    'svc.oauth.idp.issuer': ISSUER,
    'svc.oauth.idp.audience': AUDIENCE,
    'svc.oauth.idp.jwks-uri': jwks.url,
  };
  for (const [k, v] of Object.entries(extra)) properties[`svc.oauth.idp.${k}`] = v;
  return serve({ specification: PETSTORE, missingOperation: 'ignore', properties, routes: { getPetById: (ex) => void (ex.message.body = (ex.properties.SvcOAuthTokenValidationResult as { subject: string }).subject) } }, { env: {} });
}

async function call(running: Running, jwt: string): Promise<{ status: number; body: string; challenge: string | null; type: string | null; requestId: string | null }> {
  const res = await fetch(`${running.origin}${PET}`, { headers: { authorization: `Bearer ${jwt}` } });
  return { status: res.status, body: await res.text(), challenge: res.headers.get('www-authenticate'), type: res.headers.get('content-type'), requestId: res.headers.get('x-request-id') };
}

test('keys are fetched once and cached; a rotated-in kid is picked up without a restart', async () => {
  const jwks = await new JwksServer([first.publicJwk]).up();
  const running = await facade(jwks, { 'jwks-cooldown': '0.1' });
  try {
    assert.equal(jwks.hits, 0, 'keys are fetched when first needed');
    for (const subject of ['a', 'b', 'c']) {
      const res = await call(running, await token(first, { claims: { sub: subject } }));
      assert.deepEqual([res.status, res.body], [200, subject]);
    }
    assert.equal(jwks.hits, 1, 'three distinct tokens, one fetch');
    // Rotation: the issuer publishes a new key (another type, too) and signs with it.
    jwks.keys = [first.publicJwk, second.publicJwk];
    await sleep(150); // past the cooldown since the last fetch
    const rotated = await call(running, await token(second, { claims: { sub: 'rotated' } }));
    assert.deepEqual([rotated.status, rotated.body], [200, 'rotated']);
    assert.equal(jwks.hits, 2);
    assert.equal((await call(running, await token(first, { claims: { sub: 'old' } }))).status, 200, 'the old key still works while published');
  } finally {
    await running.close();
    await jwks.down();
  }
});

test('a flood of tokens with unknown kids costs at most one extra fetch per cooldown, and each is 401', async () => {
  const jwks = await new JwksServer([first.publicJwk]).up();
  const running = await facade(jwks); // default cooldown: 30 s
  try {
    assert.equal((await call(running, await token(first))).status, 200);
    assert.equal(jwks.hits, 1);
    const forged = await Promise.all(Array.from({ length: 40 }, async () => call(running, await token(first, { kid: randomUUID() }))));
    for (const res of forged) {
      assert.equal(res.status, 401);
      assert.equal(res.challenge, 'Bearer error="invalid_token", error_description="No key of the issuer matches the token."');
    }
    assert.ok(jwks.hits <= 2, `the JWKS server was asked ${jwks.hits} times`);
    const later = await Promise.all(Array.from({ length: 20 }, async () => call(running, await token(first, { kid: randomUUID() }))));
    assert.ok(later.every((r) => r.status === 401));
    assert.ok(jwks.hits <= 2, `the JWKS server was asked ${jwks.hits} times`);
  } finally {
    await running.close();
    await jwks.down();
  }
});

test('a JWKS server that is down: 503 problem, and tokens pass again once it is back', async () => {
  const jwks = new JwksServer([first.publicJwk]);
  await jwks.up();
  await jwks.down(); // a port that refuses connections
  const running = await facade(jwks, { 'jwks-cooldown': '0.1' });
  try {
    const jwt = await token(first);
    const down = await call(running, jwt);
    assert.equal(down.status, 503);
    assert.equal(down.type, 'application/problem+json');
    assert.equal(down.challenge, null);
    assert.deepEqual(JSON.parse(down.body), { type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'The key source for token validation is unavailable.', code: 'SVC_KEYS_UNAVAILABLE', instance: down.requestId });
    assert.ok(running.logger.lines.some((l) => l.startsWith('WARN JWKS http://127.0.0.1:') && l.includes('unavailable')), running.logger.lines.join('\n'));
    await jwks.up();
    await sleep(150); // past the retry delay after a failed fetch
    const back = await call(running, jwt);
    assert.deepEqual([back.status, back.body], [200, 'alice']);
    assert.ok(running.logger.lines.some((l) => l.includes('reachable again')));
  } finally {
    await running.close();
    await jwks.down();
  }
});

test('when the JWKS server goes down, fetched keys keep working and an unknown kid is 503, not 401', async () => {
  const jwks = await new JwksServer([first.publicJwk]).up();
  const running = await facade(jwks, { 'jwks-cooldown': '0.1', 'jwks-max-age': '0.1' });
  try {
    assert.equal((await call(running, await token(first, { claims: { sub: 'before' } }))).status, 200);
    await jwks.down();
    await sleep(150); // the keys are now older than jwks-max-age: a refresh is attempted and fails
    const known = await call(running, await token(first, { claims: { sub: 'during' } }));
    assert.deepEqual([known.status, known.body], [200, 'during']);
    await sleep(150);
    const unknown = await call(running, await token(second));
    assert.equal(unknown.status, 503);
  } finally {
    await running.close();
    await jwks.down();
  }
});

test('a JWKS server answering something else than a key set is unavailable too', async () => {
  const jwks = await new JwksServer([first.publicJwk]).up();
  const running = await facade(jwks, { 'jwks-cooldown': '0.05' });
  const broken: Record<string, (res: ServerResponse) => void> = {
    'status 500': (res) => res.writeHead(500).end('oops'),
    'not JSON': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('<html>'),
    'not a key set': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":"none"}'),
    'over 1 MiB (announced)': (res) => res.writeHead(200, { 'content-type': 'application/json', 'content-length': 2 * 1024 * 1024 }).end(),
    'over 1 MiB (chunked)': (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`{"keys":[],"pad":"${'x'.repeat(1024 * 1024)}"}`),
  };
  try {
    const jwt = await token(first);
    for (const [name, answer] of Object.entries(broken)) {
      jwks.answer = answer;
      await sleep(100); // past the retry delay of the previous failure
      const res = await call(running, jwt);
      assert.equal(res.status, 503, name);
    }
    jwks.answer = undefined;
    await sleep(100);
    assert.equal((await call(running, jwt)).status, 200);
  } finally {
    await running.close();
    await jwks.down();
  }
});

test('jwks-uri profile: an ES256 token without exp is refused unless require-exp is false; a numeric sub is refused either way', async () => {
  const jwks = await new JwksServer([second.publicJwk]).up();
  const strict = await facade(jwks);
  const lenient = await facade(jwks, { 'require-exp': 'false' });
  try {
    const endless = await new SignJWT({ sub: 'carol' }).setProtectedHeader({ alg: 'ES256', kid: second.kid }).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().sign(second.privateKey);
    const refused = await call(strict, endless);
    assert.equal(refused.status, 401);
    assert.equal(refused.challenge, 'Bearer error="invalid_token", error_description="The token has no expiry (exp claim); this issuer profile requires one."');
    assert.deepEqual([(await call(lenient, endless)).status, (await call(lenient, endless)).body], [200, 'carol']);
    const numeric = await token(second, { claims: { sub: 7 as unknown as string } });
    for (const running of [strict, lenient]) assert.equal((await call(running, numeric)).challenge, 'Bearer error="invalid_token", error_description="The token subject (sub claim) is not a string."');
  } finally {
    await strict.close();
    await lenient.close();
    await jwks.down();
  }
});
