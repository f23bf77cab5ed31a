// Bearer tokens on platform-http (SPEC §11): every row of the table, checked on a real server with real keys,
// and the Authorization header never reaching a route, a `to: http` backend or a log line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import type { Exchange, FacadeObjectConfig } from '../../lib/index.js';
import { PETSTORE, serve, tempDir, type Running } from '../helpers.js';
import { AUDIENCE, ISSUER, signingKey, sleep, token, unsignedToken } from './tokens.js';

const PET = '/api/v3/pet/1';
const key = await signingKey('main-key');
const stranger = await signingKey('main-key'); // same kid, other key: a forged signature
const ecKey = await signingKey('ec-key', 'ES256');
const psKey = await signingKey('main-key', 'PS256');
const keyDir = tempDir({ 'public.pem': key.publicPem });

/** A facade on petstore whose getPetById route answers with what it saw; profile `main` over `keys`. */
function config(keys: Record<string, string>, routes: FacadeObjectConfig['routes'] = {}): FacadeObjectConfig {
  const properties: Record<string, string> = { 'svc.rest.endpointProperty.oauthProfile': 'main' };
  for (const [k, v] of Object.entries(keys)) properties[`svc.oauth.main.${k}`] = v;
  return {
    specification: PETSTORE,
    missingOperation: 'ignore',
    properties,
    routes: {
      getPetById: (ex: Exchange) => {
        ex.message.body = {
          token: ex.properties.SvcOAuthTokenValidationResult,
          header: ex.header('authorization') ?? null,
          request: ex.request?.headers.authorization ?? null,
          raw: ex.request?.rawHeaders.some((h) => h.toLowerCase() === 'authorization') ?? null,
          all: ex.message.headers.toObject(),
        };
        ex.message.headers.set('content-type', 'application/json');
      },
      ...routes,
    },
  };
}

const RSA_PROFILE = { issuer: ISSUER, audience: AUDIENCE, 'public-key-file': join(keyDir, 'public.pem'), 'required-scopes': 'pets:read' };

async function get(running: Running, headers: Record<string, string> = {}) {
  const res = await fetch(`${running.origin}${PET}`, { headers });
  const text = await res.text();
  return { status: res.status, challenge: res.headers.get('www-authenticate'), type: res.headers.get('content-type'), requestId: res.headers.get('x-request-id'), body: JSON.parse(text) as Record<string, unknown> };
}

test('a valid token reaches the route as SvcOAuthTokenValidationResult; the Authorization header does not', async () => {
  const running = await serve(config(RSA_PROFILE), { env: {} });
  try {
    const jwt = await token(key, { claims: { scope: 'pets:read pets:write', scp: ['admin'], tenant: 't1' }, audience: [AUDIENCE, 'other'] });
    for (const round of [1, 2]) {
      const res = await get(running, { authorization: `Bearer ${jwt}` });
      assert.equal(res.status, 200, `round ${round}: ${JSON.stringify(res.body)}`);
      const seen = res.body.token as Record<string, unknown>;
      assert.equal(seen.subject, 'alice');
      assert.equal(seen.issuer, ISSUER);
      assert.deepEqual(seen.audiences, [AUDIENCE, 'other']);
      assert.deepEqual(seen.scopes, ['pets:read', 'pets:write', 'admin']);
      assert.equal((seen.claims as Record<string, unknown>).tenant, 't1');
      assert.equal(res.body.header, null);
      assert.equal(res.body.request, null);
      assert.equal(res.body.raw, false);
      assert.ok(!('authorization' in (res.body.all as object)));
    }
    // The scheme is case-insensitive and may be followed by several spaces (RFC 6750 §2.1: 1*SP).
    assert.equal((await get(running, { authorization: `bearer   ${jwt}` })).status, 200);
  } finally {
    await running.close();
  }
});

test('the route result is frozen: a route cannot change what the next request with the same token sees', async () => {
  const running = await serve(
    config(RSA_PROFILE, {
      getPetById: (ex: Exchange) => {
        const result = ex.properties.SvcOAuthTokenValidationResult as { scopes: string[] };
        assert.throws(() => result.scopes.push('root'));
        ex.message.body = result.scopes.join(' ');
      },
    }),
    { env: {} },
  );
  try {
    const jwt = await token(key, { claims: { scope: 'pets:read' } });
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${running.origin}${PET}`, { headers: { authorization: `Bearer ${jwt}` } });
      assert.equal(await res.text(), 'pets:read');
    }
  } finally {
    await running.close();
  }
});

test('no Authorization header: 401 with WWW-Authenticate: Bearer and a problem body', async () => {
  const running = await serve(config(RSA_PROFILE), { env: {} });
  try {
    const res = await get(running);
    assert.equal(res.status, 401);
    assert.equal(res.challenge, 'Bearer');
    assert.equal(res.type, 'application/problem+json');
    assert.deepEqual(res.body, { type: 'about:blank', title: 'Unauthorized', status: 401, detail: 'The request has no bearer token.', code: 'SVC_UNAUTHORIZED', instance: res.requestId });
  } finally {
    await running.close();
  }
});

test('malformed Authorization headers: 400 with WWW-Authenticate: Bearer error="invalid_request"', async () => {
  const running = await serve(config(RSA_PROFILE), { env: {} });
  const jwt = await token(key, { claims: { scope: 'pets:read' } });
  try {
    const cases: Record<string, string> = {
      'another scheme': 'Basic dXNlcjpwYXNz',
      'the scheme alone': 'Bearer',
      'the scheme and spaces': 'Bearer   ',
      'no space after the scheme': `Bearer${jwt}`,
      'two tokens': `Bearer ${jwt} ${jwt}`,
      'characters outside b64token': 'Bearer abc$def',
      'a quote': 'Bearer "abc"',
      'padding in the middle': 'Bearer ab=cd',
      'over 8192 characters': `Bearer ${'a'.repeat(8200)}`,
    };
    for (const [name, value] of Object.entries(cases)) {
      const res = await get(running, { authorization: value });
      assert.equal(res.status, 400, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.challenge, 'Bearer error="invalid_request"', `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.type, 'application/problem+json', name);
      assert.equal(res.body.status, 400, name);
      assert.equal(typeof res.body.detail, 'string', name);
    }
    // Two Authorization fields (node would silently keep the first): refused, not half-read.
    const twice = await rawGet(running, [`Bearer ${jwt}`, `Bearer ${jwt}`]);
    assert.equal(twice.status, 400);
    assert.equal(twice.headers['www-authenticate'], 'Bearer error="invalid_request"');
    assert.equal(JSON.parse(twice.body).detail, 'The request has more than one Authorization header.');
  } finally {
    await running.close();
  }
});

test('tokens that fail verification: 401 with WWW-Authenticate: Bearer error="invalid_token" and a description', async () => {
  const running = await serve(config({ ...RSA_PROFILE, algorithms: 'RS256' }), { env: {} });
  try {
    const scope = { scope: 'pets:read' };
    const cases: Record<string, [string, string]> = {
      'bad signature': [await token(stranger, { claims: scope }), 'The token signature is invalid.'],
      'a tampered payload': [tamper(await token(key, { claims: scope })), 'The token signature is invalid.'],
      expired: [await token(key, { claims: scope, expiresIn: -60 }), 'The token has expired.'],
      'not yet valid': [await token(key, { claims: scope, notBefore: 600 }), 'The token is not yet valid.'],
      'wrong issuer': [await token(key, { claims: scope, issuer: 'https://evil.test' }), 'The token issuer is not accepted.'],
      'wrong audience': [await token(key, { claims: scope, audience: 'someone-else' }), 'The token audience is not accepted.'],
      'alg none': [unsignedToken(), 'The token algorithm is not allowed.'],
      'an algorithm not allowed (PS256)': [await token(psKey, { claims: scope }), 'The token algorithm is not allowed.'],
      'RS/HS confusion (HS256 keyed with the public key)': [await token(new TextEncoder().encode(key.publicPem), { claims: scope }), 'The token algorithm is not allowed.'],
      'missing scope': [await token(key, { claims: { scope: 'pets:write' } }), 'The token lacks a required scope.'],
      'not a JWT': ['abc.def.ghi', 'The token is not a valid JWT.'],
      'a claim of the wrong type': [await new SignJWT({ ...scope, sub: 'alice', iss: ISSUER, aud: AUDIENCE, iat: 'yesterday', exp: Math.floor(Date.now() / 1000) + 3600 }).setProtectedHeader({ alg: 'RS256' }).sign(key.privateKey), 'The token claims are invalid.'],
    };
    for (const [name, [jwt, description]] of Object.entries(cases)) {
      const res = await get(running, { authorization: `Bearer ${jwt}` });
      assert.equal(res.status, 401, name);
      assert.equal(res.challenge, `Bearer error="invalid_token", error_description="${description}"`, name);
      assert.deepEqual(res.body, { type: 'about:blank', title: 'Unauthorized', status: 401, detail: description, code: 'SVC_UNAUTHORIZED', instance: res.requestId }, name);
    }
  } finally {
    await running.close();
  }
});

test('with the default algorithms a token of another key type is refused, and scp alone satisfies required scopes', async () => {
  const running = await serve(config(RSA_PROFILE), { env: {} });
  try {
    const ec = await get(running, { authorization: `Bearer ${await token(ecKey, { claims: { scope: 'pets:read' } })}` });
    assert.equal(ec.status, 401);
    assert.equal(ec.challenge, 'Bearer error="invalid_token", error_description="The token cannot be verified with the key of the issuer."');
    const scp = await get(running, { authorization: `Bearer ${await token(key, { claims: { scp: ['pets:read'] } })}` });
    assert.equal(scp.status, 200);
  } finally {
    await running.close();
  }
});

test('a cached token is refused once it expires (clock-tolerance counted)', async () => {
  const running = await serve(config({ ...RSA_PROFILE, 'clock-tolerance': '0' }), { env: {} });
  try {
    // exp is whole seconds after a whole-second iat: 2 s leaves at least 1 s for the first request.
    const jwt = await token(key, { claims: { scope: 'pets:read' }, expiresIn: 2 });
    assert.equal((await get(running, { authorization: `Bearer ${jwt}` })).status, 200);
    await sleep(3100);
    const res = await get(running, { authorization: `Bearer ${jwt}` });
    assert.equal(res.status, 401);
    assert.equal(res.body.detail, 'The token has expired.');
  } finally {
    await running.close();
  }
});

/** A token signed with `key` as token() makes it, but without `exp` (and with the given claims). */
function tokenWithoutExpiry(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ scope: 'pets:read', ...claims }).setProtectedHeader({ alg: 'RS256', kid: key.kid }).setIssuer(ISSUER).setAudience(AUDIENCE).setIssuedAt().sign(key.privateKey);
}

test('a token without exp is refused by default (it would never expire); require-exp: false accepts it; sub, when present, must be a string', async () => {
  const strict = await serve(config(RSA_PROFILE), { env: {} });
  const lenient = await serve(config({ ...RSA_PROFILE, 'require-exp': 'false' }), { env: {} });
  try {
    const endless = await tokenWithoutExpiry({ sub: 'alice' });
    const refused = await get(strict, { authorization: `Bearer ${endless}` });
    assert.equal(refused.status, 401);
    const description = 'The token has no expiry (exp claim); this issuer profile requires one.';
    assert.equal(refused.challenge, `Bearer error="invalid_token", error_description="${description}"`);
    assert.deepEqual(refused.body, { type: 'about:blank', title: 'Unauthorized', status: 401, detail: description, code: 'SVC_UNAUTHORIZED', instance: refused.requestId });
    assert.equal((await get(strict, { authorization: `Bearer ${await token(key, { claims: { scope: 'pets:read' } })}` })).status, 200, 'with exp: accepted');
    const accepted = await get(lenient, { authorization: `Bearer ${endless}` });
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.equal((accepted.body.token as Record<string, unknown>).subject, 'alice');
    for (const sub of [42, { id: 'alice' }, ['alice'], null]) {
      for (const running of [strict, lenient]) {
        const res = await get(running, { authorization: `Bearer ${await token(key, { claims: { scope: 'pets:read', sub: sub as string } })}` });
        assert.equal(res.status, 401, JSON.stringify(sub));
        assert.equal(res.body.detail, 'The token subject (sub claim) is not a string.', JSON.stringify(sub));
      }
    }
    assert.equal((await get(lenient, { authorization: `Bearer ${await tokenWithoutExpiry({})}` })).status, 200, 'no sub at all is fine');
  } finally {
    await strict.close();
    await lenient.close();
  }
});

test('require-exp takes true or false; anything else fails startup naming the profile, the key and the allowed values', async () => {
  await assert.rejects(serve(config({ ...RSA_PROFILE, 'require-exp': 'no' }), { env: {} }), (err: Error & { code?: string }) => {
    assert.equal(err.code, 'SVC_OAUTH_PROFILE');
    assert.equal(err.message, 'OAuth profile main: require-exp has invalid value "no"; allowed: true, false');
    return true;
  });
});

test('an HS256 profile with a secret accepts its tokens and nothing signed otherwise', async () => {
  const secret = 'a-secret-of-at-least-thirty-two-bytes!';
  const running = await serve(config({ issuer: ISSUER, secret }), { env: {} });
  try {
    const good = await get(running, { authorization: `Bearer ${await token(new TextEncoder().encode(secret))}` });
    assert.equal(good.status, 200);
    assert.deepEqual((good.body.token as { scopes: string[] }).scopes, []);
    const other = await get(running, { authorization: `Bearer ${await token(new TextEncoder().encode(`${secret}-other`))}` });
    assert.equal(other.status, 401);
    assert.equal(other.body.detail, 'The token signature is invalid.');
    const rsa = await get(running, { authorization: `Bearer ${await token(key)}` });
    assert.equal(rsa.body.detail, 'The token algorithm is not allowed.');
  } finally {
    await running.close();
  }
});

test('the token never reaches a to: http backend or a log line, accepted or not', async () => {
  const seen: IncomingHttpHeaders[] = [];
  const backend = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"id":1}');
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(backend.address() as AddressInfo).port}/pets`;
  const running = await serve(config(RSA_PROFILE, { getPetById: [{ kind: 'log', message: 'headers ${headers}' }, { kind: 'to', uri: target }] }), { env: {} });
  try {
    const jwt = await token(key, { claims: { scope: 'pets:read' } });
    const ok = await fetch(`${running.origin}${PET}`, { headers: { authorization: `Bearer ${jwt}`, 'x-trace': 'abc' } });
    assert.equal(ok.status, 200);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]!['x-trace'], 'abc', 'other headers are forwarded');
    assert.equal(seen[0]!.authorization, undefined);
    for (const bad of [await token(stranger), 'Basic x', `Bearer ${jwt}x`]) await fetch(`${running.origin}${PET}`, { headers: { authorization: bad } });
    assert.equal(seen.length, 1, 'refused requests never reach the backend');
    assert.ok(running.logger.lines.some((l) => l.includes('x-trace')), 'the log step ran');
    const signature = jwt.split('.')[2]!;
    assert.ok(!running.logger.lines.some((l) => l.includes(signature) || /authorization/i.test(l)), running.logger.lines.join('\n'));
  } finally {
    await running.close();
    backend.close();
  }
});

test('a request refused for its token is answered without waiting for its body, and the connection is closed', { timeout: 60_000 }, async () => {
  const running = await serve(config(RSA_PROFILE), { env: {} });
  const port = Number(new URL(running.origin).port);
  try {
    for (const authorization of [undefined, 'Bearer abc.def.ghi']) {
      // 50 MiB announced, one small chunk sent, then nothing: only an answer that does not wait for the body comes.
      const outcome = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const headers: Record<string, string | number> = { 'content-type': 'application/json', 'content-length': 50 * 1024 * 1024 };
        if (authorization) headers.authorization = authorization;
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v3/pet', headers });
        req.on('error', () => undefined); // EPIPE/ECONNRESET: the server closed while we were still sending
        req.on('response', (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('error', reject);
          // Resolves only once the server has closed the connection: an unread body must not keep it open.
          req.socket!.once('close', () => resolve({ status: res.statusCode!, body }));
        });
        req.write('{"name":"rex",');
      });
      assert.equal(outcome.status, 401);
      assert.equal(JSON.parse(outcome.body).status, 401);
    }
    assert.equal((await get(running)).status, 401, 'the server is still serving');
  } finally {
    await running.close();
  }
});

/** Flips one character of the payload, keeping it valid base64url. */
function tamper(jwt: string): string {
  const [h, p, s] = jwt.split('.') as [string, string, string];
  const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
  claims.sub = 'mallory';
  return `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
}

/** A GET with the given Authorization fields, each its own header line (fetch would join them), on a raw socket. */
function rawGet(running: Running, authorizations: string[]): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(running.origin).port), '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head, body] = received.split('\r\n\r\n') as [string, string];
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine!.split(' ')[1]), headers, body: body ?? '' });
    });
    socket.end(`GET ${PET} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${authorizations.map((a) => `Authorization: ${a}\r\n`).join('')}\r\n`);
  });
}
