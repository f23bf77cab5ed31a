// Consumer components and OAuth profiles at startup (SPEC §11): the registry, fail-closed with a component
// that does not enforce oauthProfile, and profiles that are unknown or incomplete failing with their name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  createFacade,
  Errors,
  registerConsumerComponent,
  silentLogger,
  SvcError,
  type ConsumerComponentFactory,
  type ConsumerComponentOptions,
  type FacadeObjectConfig,
} from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';
import { ISSUER, signingKey, token } from './tokens.js';

const key = await signingKey('k');
const dir = tempDir({ 'public.pem': key.publicPem, 'private.pem': 'x\n-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n', 'jwks.json': JSON.stringify({ keys: [key.publicJwk] }), 'bad.json': '{"keys": 3}' });

function config(component: string | undefined, properties: Record<string, string> = {}): FacadeObjectConfig {
  return {
    specification: PETSTORE,
    missingOperation: 'ignore',
    ...(component === undefined ? {} : { restConfiguration: { component } }),
    properties,
  };
}

const withProfile = (extra: Record<string, string> = {}) => ({
  'svc.rest.endpointProperty.oauthProfile': 'main',
  'svc.oauth.main.issuer': ISSUER,
  'svc.oauth.main.public-key-file': join(dir, 'public.pem'),
  ...extra,
});

async function startupError(input: FacadeObjectConfig): Promise<SvcError> {
  try {
    await createFacade(input, { env: {}, logger: silentLogger });
  } catch (err) {
    assert.ok(err instanceof SvcError, String(err));
    return err;
  }
  assert.fail('startup should have failed');
}

test('an unknown consumer component fails startup, from the rest configuration or the rest-openapi URI', async () => {
  const err = await startupError(config('netty-http'));
  assert.equal(err.message, 'No consumer component named netty-http');
  assert.equal(err.code, Errors.UNKNOWN_COMPONENT.code);
  assert.equal(err.exitCode, 1);
  const dsl = tempDir({ 'app.yaml': `- from:\n    uri: rest-openapi:${PETSTORE}?consumerComponentName=undertow&missingOperation=ignore\n` });
  await assert.rejects(createFacade([join(dsl, 'app.yaml')], { env: {}, logger: silentLogger }), { message: 'No consumer component named undertow' });
});

test('an embedder component that does not declare supportsOAuthProfile never starts with a profile (fail closed)', async () => {
  let created = 0;
  const silent = { create: () => ((created += 1), {}) } as unknown as ConsumerComponentFactory;
  registerConsumerComponent('legacy-http', silent);
  registerConsumerComponent('plain-http', { supportsOAuthProfile: false, create: () => ((created += 1), {}) });
  for (const name of ['legacy-http', 'plain-http']) {
    const err = await startupError(config(name, withProfile()));
    assert.equal(err.message, `The oauthProfile option is not supported by the resolved consumer component (${name}); select a consumer component that enforces oauthProfile`);
    assert.equal(err.code, Errors.OAUTH_UNSUPPORTED.code);
  }
  assert.equal(created, 0, 'the component is not even created');
  // Without a profile the same components serve as usual.
  const running = await serve(config('legacy-http'), { env: {} });
  try {
    assert.equal((await fetch(`${running.origin}/api/v3/user/logout`)).status, 204);
  } finally {
    await running.close();
  }
});

test('a component that declares support but gives no authenticate stage does not start either', async () => {
  registerConsumerComponent('boasting-http', { supportsOAuthProfile: true, create: () => ({}) });
  const err = await startupError(config('boasting-http', withProfile()));
  assert.equal(err.code, Errors.OAUTH_UNSUPPORTED.code);
  assert.match(err.message, /\(boasting-http\)/);
});

test('an embedder component that enforces the profile gets its name and keys, and its verdict is the route\'s', async () => {
  const given: ConsumerComponentOptions[] = [];
  registerConsumerComponent('api-key-http', {
    supportsOAuthProfile: true,
    create(options) {
      given.push(options);
      return {
        authenticate(authorization) {
          if (authorization !== 'Key opensesame') throw new SvcError(Errors.UNAUTHORIZED, ['Wrong key.'], undefined, { 'www-authenticate': 'Key' });
          return Promise.resolve({ subject: 'embedder' });
        },
      };
    },
  });
  const running = await serve(
    {
      ...config('api-key-http', withProfile({ 'svc.rest.endpointProperty.custom': 'x' })),
      routes: { getPetById: (ex) => void (ex.message.body = JSON.stringify([ex.properties.SvcOAuthTokenValidationResult, ex.header('authorization') ?? null])) },
    },
    { env: {} },
  );
  try {
    assert.equal(given.length, 1);
    assert.equal(given[0]!.name, 'api-key-http');
    assert.deepEqual(given[0]!.oauthProfile, { name: 'main', properties: { issuer: ISSUER, 'public-key-file': join(dir, 'public.pem') } });
    assert.equal(given[0]!.endpointProperties.custom, 'x');
    const ok = await fetch(`${running.origin}/api/v3/pet/1`, { headers: { authorization: 'Key opensesame' } });
    assert.equal(await ok.text(), '[{"subject":"embedder"},null]');
    const refused = await fetch(`${running.origin}/api/v3/pet/1`, { headers: { authorization: 'Key guess' } });
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Key');
    assert.equal(((await refused.json()) as { detail: string }).detail, 'Wrong key.');
  } finally {
    await running.close();
  }
});

test('an authenticate stage that throws something else is a 500, logged, not a crash', async () => {
  registerConsumerComponent('buggy-http', { supportsOAuthProfile: true, create: () => ({ authenticate: () => { throw new Error('boom'); } }) });
  const running = await serve(config('buggy-http', withProfile()), { env: {} });
  try {
    const res = await fetch(`${running.origin}/api/v3/pet/1`);
    assert.equal(res.status, 500);
    assert.ok(running.logger.lines.some((l) => l.startsWith('ERROR') && l.includes('boom')));
  } finally {
    await running.close();
  }
});

test('platform-http cannot be replaced, and a factory needs create()', () => {
  assert.throws(() => registerConsumerComponent('platform-http', { supportsOAuthProfile: true, create: () => ({}) }), TypeError);
  assert.throws(() => registerConsumerComponent('x', {} as ConsumerComponentFactory), TypeError);
  assert.throws(() => registerConsumerComponent('', { supportsOAuthProfile: false, create: () => ({}) }), TypeError);
});

test('unknown or incomplete profiles fail startup naming the profile and the key', async () => {
  const profile = (keys: Record<string, string>) => ({ 'svc.rest.endpointProperty.oauthProfile': 'main', ...Object.fromEntries(Object.entries(keys).map(([k, v]) => [`svc.oauth.main.${k}`, v])) });
  const pem = join(dir, 'public.pem');
  const cases: [Record<string, string>, RegExp][] = [
    [{}, /^OAuth profile main: no svc\.oauth\.main\.\* keys are set/],
    [{ 'public-key-file': pem }, /^OAuth profile main: missing key issuer \(svc\.oauth\.main\.issuer\)$/],
    [{ issuer: ISSUER }, /^OAuth profile main: missing key source: set one of svc\.oauth\.main\.jwks-uri, svc\.oauth\.main\.jwks-file, svc\.oauth\.main\.public-key-file, svc\.oauth\.main\.secret$/],
    [{ issuer: ISSUER, 'public-key-file': pem, secret: 'x'.repeat(40) }, /more than one key source \(public-key-file, secret\); set exactly one/],
    [{ issuer: ISSUER, 'jwks-url': 'https://x' }, /unknown key svc\.oauth\.main\.jwks-url; allowed: issuer, jwks-uri/],
    [{ issuer: ISSUER, 'public-key-file': pem, algorithms: 'RS256,HS256' }, /algorithms has HS256, which a public-key-file profile cannot use/],
    [{ issuer: ISSUER, 'public-key-file': pem, algorithms: 'none' }, /algorithms has none/],
    [{ issuer: ISSUER, secret: 'x'.repeat(40), algorithms: 'RS256' }, /algorithms has RS256, which a secret profile cannot use; allowed: HS256, HS384, HS512/],
    [{ issuer: ISSUER, secret: 'short' }, /secret has 5 bytes; HS256 needs at least 32/],
    [{ issuer: ISSUER, secret: 'x'.repeat(40), algorithms: 'HS512' }, /secret has 40 bytes; HS512 needs at least 64/],
    [{ issuer: ISSUER, 'public-key-file': pem, 'clock-tolerance': 'soon' }, /clock-tolerance has invalid value "soon"/],
    [{ issuer: ISSUER, 'jwks-uri': 'ftp://keys' }, /jwks-uri has invalid value "ftp:\/\/keys"; allowed: an http:\/\/ or https:\/\/ URL/],
    [{ issuer: ISSUER, 'public-key-file': join(dir, 'missing.pem') }, /public-key-file .*missing\.pem: cannot read: ENOENT/],
    [{ issuer: ISSUER, 'public-key-file': join(dir, 'private.pem') }, /holds a private key/],
    [{ issuer: ISSUER, 'public-key-file': join(dir, 'jwks.json') }, /not a PEM public key or certificate/],
    [{ issuer: ISSUER, 'jwks-file': join(dir, 'bad.json') }, /jwks-file .*bad\.json: not a JSON Web Key Set/],
  ];
  for (const [keys, message] of cases) {
    const err = await startupError(config(undefined, profile(keys)));
    assert.equal(err.code, Errors.OAUTH_PROFILE.code, err.message);
    assert.match(err.message, message);
    assert.equal(err.exitCode, 1);
  }
});

test('profile keys in camelCase, a profile name in another case (environment variables), and a relative jwks-file', async () => {
  const running = await serve(
    {
      specification: PETSTORE,
      missingOperation: 'ignore',
      baseDir: dir,
      properties: { 'svc.rest.endpointProperty.oauthProfile': 'Main', 'svc.oauth.Main.jwksFile': 'jwks.json', 'svc.oauth.Main.clockTolerance': '30' },
    },
    { env: { SVC_OAUTH_MAIN_ISSUER: ISSUER } },
  );
  try {
    assert.equal((await fetch(`${running.origin}/api/v3/pet/1`)).status, 401);
    const jwt = await token(key, { issuer: ISSUER, audience: 'anyone', expiresIn: -20 });
    assert.equal((await fetch(`${running.origin}/api/v3/pet/1`, { headers: { authorization: `Bearer ${jwt}` } })).status, 204, 'accepted (ignore echoes an empty body): any audience, and 20 s late is within the clock tolerance');
  } finally {
    await running.close();
  }
});
