// The contract's security (clientSecurityValidation: true) on a contract of our own declaring every scheme
// type: presence and form without files, API keys and Basic users against real files, bearer tokens against
// a real OAuth profile with scopes, the embedder's handlers, and the OR-of-ANDs rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '../helpers.js';
import { basic, call, HMAC_SECRET, KEYS, securedConfig, securedDir } from './contract-security-fixture.js';
import { ISSUER, signingKey, token } from './tokens.js';

const PROBLEM = 'application/problem+json';

test('without files or a profile, each scheme asks for its credential to be present and well-formed', async () => {
  const dir = securedDir();
  const calls = { count: 0 };
  const running = await serve(securedConfig(dir, calls), { env: {} });
  try {
    // Open: security: [] and an anonymous alternative ({}).
    assert.equal((await call(running.origin, '/open')).status, 200);
    assert.equal((await call(running.origin, '/optional')).status, 200);
    const refusals: [string, string[]][] = [
      ['/default', ['ApiKey in="header", name="X-API-Key"']],
      ['/key', ['ApiKey in="header", name="X-API-Key"']],
      ['/query', ['ApiKey in="query", name="api_key"']],
      ['/cookie', ['ApiKey in="cookie", name="session"']],
      ['/basic', ['Basic realm="basicAuth", charset="UTF-8"']],
      ['/bearer', ['Bearer']],
      ['/scoped', ['Bearer']],
      ['/oidc', ['Bearer']],
      ['/mtls', ['MutualTLS']],
      ['/digest', ['Digest']],
      ['/custom', ['ApiKey in="header", name="X-Custom"']],
    ];
    for (const [path, challenges] of refusals) {
      const res = await call(running.origin, path);
      assert.equal(res.status, 401, path);
      assert.equal(res.type, PROBLEM, path);
      assert.deepEqual(res.challenges, challenges, path);
      assert.equal(res.body.status, 401);
      assert.match(String(res.body.detail), /^The request does not meet the security requirements of this operation: no /, path);
    }
    assert.equal(calls.count, 2, 'no refused request reached its route');

    const admitted: [string, Record<string, string>][] = [
      ['/default', { 'x-api-key': 'anything' }],
      ['/key', { 'x-api-key': 'anything' }],
      ['/query?api_key=anything', {}],
      ['/cookie', { cookie: 'theme=dark; session=abc' }],
      ['/basic', { authorization: basic('someone', 'anything') }],
      ['/bearer', { authorization: 'Bearer abc.def.ghi' }],
      ['/scoped', { authorization: 'bearer abc' }],
      ['/oidc', { authorization: 'Bearer abc' }],
      ['/digest', { authorization: 'Digest username="x", response="y"' }],
      ['/custom', { 'x-custom': 'v' }],
    ];
    for (const [path, headers] of admitted) assert.equal((await call(running.origin, path, headers)).status, 200, path);
    // Basic without a users file: the user name is the principal; the Authorization field never reaches the route.
    const seen = await call(running.origin, '/basic', { authorization: basic('someone', 'anything') });
    assert.deepEqual(seen.body, { principal: 'someone', subject: null, authorization: null });

    const malformed: [string, Record<string, string>, string][] = [
      ['/basic', { authorization: 'Basic not base64!' }, 'the Authorization field is not of the form Basic'],
      ['/basic', { authorization: `Basic ${Buffer.from('no-colon').toString('base64')}` }, 'the Authorization field is not of the form Basic'],
      ['/basic', { authorization: 'Bearer abc' }, 'the Authorization field is not of the form Basic'],
      ['/bearer', { authorization: 'Bearer a b' }, 'the Authorization field is not of the form Bearer'],
      ['/bearer', { authorization: basic('a', 'b') }, 'the Authorization field is not of the form Bearer'],
      ['/key', { 'x-api-key': '' }, 'no API key X-API-Key'],
      ['/digest', { authorization: 'Basic abc' }, 'no Digest credentials'],
    ];
    for (const [path, headers, reason] of malformed) {
      const res = await call(running.origin, path, headers);
      assert.equal(res.status, 401, `${path} ${JSON.stringify(headers)}`);
      assert.ok(String(res.body.detail).includes(reason), `${path}: ${String(res.body.detail)}`);
    }
  } finally {
    await running.close();
  }
});

test('OR of ANDs: a requirement is met only in full; the 401 challenges the requirement the client came closest to', async () => {
  const dir = securedDir();
  const calls = { count: 0 };
  const running = await serve(securedConfig(dir, calls), { env: {} });
  try {
    const both = ['ApiKey in="header", name="X-API-Key"', 'ApiKey in="query", name="api_key"'];
    // Nothing sent: a tie, so the first requirement, with one challenge per scheme.
    assert.deepEqual((await call(running.origin, '/either')).challenges, both);
    // Half of the first requirement: still refused, and challenged for all of it (the header it met too).
    const half = await call(running.origin, '/either', { 'x-api-key': 'k' });
    assert.equal(half.status, 401);
    assert.deepEqual(half.challenges, both);
    assert.equal(half.body.detail, 'The request does not meet the security requirements of this operation: no API key api_key (in query).');
    // A malformed Basic field is closer than nothing: the second requirement is the one challenged.
    const wrongBasic = await call(running.origin, '/either', { authorization: 'Basic ???' });
    assert.deepEqual(wrongBasic.challenges, ['Basic realm="basicAuth", charset="UTF-8"']);
    assert.equal(calls.count, 0);
    // Either requirement in full is enough.
    assert.equal((await call(running.origin, '/either?api_key=q', { 'x-api-key': 'k' })).status, 200);
    assert.equal((await call(running.origin, '/either', { authorization: basic('u', 'p') })).status, 200);
    assert.equal(calls.count, 2);
  } finally {
    await running.close();
  }
});

test('svc.security.apiKeys: named, sha256-stored and unnamed keys; a key not in the file is refused and never echoed', async () => {
  const dir = securedDir();
  const calls = { count: 0 };
  // The access log's fields, as the text logger writes them (key=value).
  const lines: string[] = [];
  const fields = (m: string, f?: Record<string, unknown>) => void lines.push(`${m}${Object.entries(f ?? {}).map(([k, v]) => (v === undefined ? '' : ` ${k}=${v}`)).join('')}`);
  const logger = { info: fields, warn: fields, error: fields };
  const running = await serve(securedConfig(dir, calls, { security: { apiKeys: 'api-keys.txt' }, observe: { accessLog: true } }), { env: {}, logger });
  try {
    assert.deepEqual((await call(running.origin, '/key', { 'x-api-key': KEYS.alice })).body.principal, 'alice');
    assert.deepEqual((await call(running.origin, '/query?api_key=' + KEYS.hashed)).body.principal, 'bob');
    assert.deepEqual((await call(running.origin, '/cookie', { cookie: `session=${KEYS.unnamed}` })).body.principal, null);
    for (const wrong of ['alice-key-012345678', `${KEYS.alice}x`, 'sha256:' + 'a'.repeat(64), 'alice']) {
      const res = await call(running.origin, '/key', { 'x-api-key': wrong });
      assert.equal(res.status, 401, wrong);
      assert.equal(res.body.detail, 'The request does not meet the security requirements of this operation: the API key X-API-Key (in header) is not accepted.');
      assert.ok(!res.text.includes(wrong));
    }
    assert.equal(calls.count, 3);
    const log = lines.join('\n');
    assert.match(log, /GET \/key 200 .* principal="alice"/);
    assert.match(log, /GET \/query 200 .* principal="bob"/);
    assert.match(log, /GET \/cookie 200 [^\n]*requestId=[^\n ]+$/m, 'no principal for an unnamed key');
    for (const key of Object.values(KEYS)) assert.ok(!log.includes(key), 'no key in the log');
  } finally {
    await running.close();
  }
});

test('svc.security.basicUsers: bcrypt ($2y$) and {SHA} users; a wrong password, an unknown user are refused', async () => {
  const dir = securedDir();
  const calls = { count: 0 };
  const running = await serve(securedConfig(dir, calls, { security: { basicUsers: 'users.htpasswd' } }), { env: {} });
  try {
    for (const round of [1, 2]) {
      const carol = await call(running.origin, '/basic', { authorization: basic('carol', 'secret') });
      assert.equal(carol.status, 200, `round ${round}`);
      assert.equal(carol.body.principal, 'carol');
    }
    assert.equal((await call(running.origin, '/basic', { authorization: basic('dave', 'open sesame') })).body.principal, 'dave');
    for (const [user, password] of [['carol', 'Secret'], ['dave', 'open sesame!'], ['eve', 'secret'], ['carol', '']]) {
      const res = await call(running.origin, '/basic', { authorization: basic(user!, password!) });
      assert.equal(res.status, 401, `${user}:${password}`);
      assert.deepEqual(res.challenges, ['Basic realm="basicAuth", charset="UTF-8"']);
      assert.equal(res.body.detail, 'The request does not meet the security requirements of this operation: the user name or password is not accepted.');
      if (password !== '') assert.ok(!res.text.includes(password!), 'the password is not in the answer');
    }
    assert.equal(calls.count, 3);
  } finally {
    await running.close();
  }
});

test('bearer, oauth2 and openIdConnect schemes use the oauthProfile: the token is verified and the scopes checked (403 insufficient_scope)', async () => {
  const dir = securedDir();
  const calls = { count: 0 };
  const secret = new TextEncoder().encode(HMAC_SECRET);
  const properties = { 'svc.rest.endpointProperty.oauthProfile': 'main', 'svc.oauth.main.issuer': ISSUER, 'svc.oauth.main.secret': HMAC_SECRET };
  const running = await serve(securedConfig(dir, calls, { properties }), { env: {} });
  try {
    const writer = await token(secret, { claims: { scope: 'pets:write read' }, audience: 'any' });
    const reader = await token(secret, { claims: { scp: ['pets:read'] }, audience: 'any' });
    const ok = await call(running.origin, '/scoped', { authorization: `Bearer ${writer}` });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body, { principal: 'alice', subject: 'alice', authorization: null });
    assert.equal((await call(running.origin, '/oidc', { authorization: `Bearer ${writer}` })).status, 200);
    assert.equal((await call(running.origin, '/bearer', { authorization: `Bearer ${reader}` })).status, 200);

    const lacking = await call(running.origin, '/scoped', { authorization: `Bearer ${reader}` });
    assert.equal(lacking.status, 403);
    assert.equal(lacking.type, PROBLEM);
    assert.deepEqual(lacking.challenges, ['Bearer error="insufficient_scope", scope="pets:write"']);
    assert.equal(lacking.body.detail, 'The token lacks the scope(s) this operation requires: pets:write.');
    assert.equal((await call(running.origin, '/oidc', { authorization: `Bearer ${reader}` })).status, 403);

    const forged = await token(new TextEncoder().encode('another-secret-of-at-least-32-bytes!!'), {});
    const bad = await call(running.origin, '/bearer', { authorization: `Bearer ${forged}` });
    assert.equal(bad.status, 401);
    assert.deepEqual(bad.challenges, ['Bearer error="invalid_token", error_description="The token signature is invalid."']);
    assert.ok(!bad.text.includes(forged));
    // The profile no longer guards every operation: the contract decides (here, an API key).
    assert.equal((await call(running.origin, '/key', { 'x-api-key': 'k' })).status, 200);
    assert.equal((await call(running.origin, '/open')).status, 200);
    assert.equal(calls.count, 5);
  } finally {
    await running.close();
  }
});

test('securityHandlers decide their scheme with the requirement scopes; a principal they return is the exchange principal', async () => {
  const dir = securedDir();
  const calls = { count: 0 };
  const seen: unknown[] = [];
  const securityHandlers = {
    custom: async (ex: { header(name: string): unknown }, scopes: readonly string[]) => {
      seen.push(scopes);
      return ex.header('x-custom') === 'let-me-in' ? 'handler-user' : false;
    },
    basicAuth: (ex: { header(name: string): unknown }) => ex.header('authorization') === basic('h', 'h'),
  };
  const running = await serve(securedConfig(dir, calls, { securityHandlers }), { env: {} });
  try {
    const ok = await call(running.origin, '/custom', { 'x-custom': 'let-me-in' });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.principal, 'handler-user');
    assert.deepEqual(seen, [['admin']]);
    const refused = await call(running.origin, '/custom', { 'x-custom': 'no' });
    assert.equal(refused.status, 401);
    assert.deepEqual(refused.challenges, ['ApiKey']);
    assert.equal((await call(running.origin, '/basic', { authorization: basic('h', 'h') })).status, 200);
    const basicRefused = await call(running.origin, '/basic', { authorization: basic('u', 'p') });
    assert.equal(basicRefused.status, 401);
    assert.deepEqual(basicRefused.challenges, ['Basic']);
    assert.equal(calls.count, 2);
  } finally {
    await running.close();
  }
});

test('fail closed: an unreachable key source is 503, two Authorization fields are refused, a handler that throws is a 500, never an admission', async () => {
  const dir = securedDir();
  const calls = { count: 0 };
  // A port nothing listens on: the JWKS cannot be fetched.
  const closed = await new Promise<number>((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const properties = { 'svc.rest.endpointProperty.oauthProfile': 'main', 'svc.oauth.main.issuer': ISSUER, 'svc.oauth.main.jwks-uri': `http://127.0.0.1:${closed}/jwks.json` };
  const securityHandlers = {
    custom: () => {
      throw 'not an Error';
    },
  };
  const running = await serve(securedConfig(dir, calls, { properties, securityHandlers }), { env: {} });
  try {
    const key = await signingKey('k1');
    const unavailable = await call(running.origin, '/scoped', { authorization: `Bearer ${await token(key, { claims: { scope: 'pets:write' } })}` });
    assert.equal(unavailable.status, 503);
    assert.equal(unavailable.type, PROBLEM);
    const twice = await new Promise<number>((resolve, reject) => {
      // Two Authorization fields: node would keep the first; the facade refuses both.
      const req = request(`${running.origin}/basic`, { headers: { authorization: [basic('a', 'b'), basic('c', 'd')] } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(twice, 401);
    const thrown = await call(running.origin, '/custom', { 'x-custom': 'x' });
    assert.equal(thrown.status, 500);
    assert.equal(calls.count, 0);
    assert.ok(running.logger.lines.some((l) => l.startsWith('ERROR GET /custom (direct:custom) failed: not an Error')), running.logger.lines.join('\n'));
  } finally {
    await running.close();
  }
});

test('the JSON access log names the principal', async () => {
  const dir = securedDir();
  const lines: unknown[] = [];
  const logger = { info: (m: string, f?: Record<string, unknown>) => void lines.push({ m, ...f }), warn: () => {}, error: () => {} };
  const running = await serve(securedConfig(dir, { count: 0 }, { security: { apiKeys: 'api-keys.txt' }, observe: { accessLog: true, logFormat: 'json' } }), { env: {}, logger });
  try {
    assert.equal((await call(running.origin, '/key', { 'x-api-key': KEYS.alice })).status, 200);
    assert.ok(lines.some((l) => (l as { m: string; principal?: string }).m === 'access' && (l as { principal?: string }).principal === 'alice'), JSON.stringify(lines));
  } finally {
    await running.close();
  }
});
