// `.properties` files, environment overrides, `{{placeholders}}` and the precedence of SPEC §12:
// later files override earlier ones; properties override the DSL; environment variables override properties.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFacade, Errors, silentLogger, SvcError, type CreateFacadeOptions } from '../../lib/index.js';
import { OAuthProfileDefinition } from '../../lib/config/fluent.js';
import { emptyConfig, findOAuthProfile } from '../../lib/config/model.js';
import { applyProperty } from '../../lib/config/properties.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';

const spec = JSON.stringify(PETSTORE);
const yamlSpec = (extra = '') => `- rest:\n    openApi:\n      specification: ${spec}\n      missingOperation: ignore\n${extra}`;
const build = (files: string[], env: NodeJS.ProcessEnv = {}, options: CreateFacadeOptions = {}) => createFacade(files, { env, logger: silentLogger, ...options });

test('properties set every area, in camelCase or kebab-case; a relative specification is found beside the first file', async () => {
  const dir = tempDir({
    'camel.properties': [
      'svc.rest.openApi.specification=petstore.json',
      'svc.rest.openApi.missingOperation = ignore',
      'svc.rest.contextPath: /props',
      'svc.rest.clientRequestValidation=false',
      'svc.server.maxBodySize=2KB',
      'svc.server.port=0',
      'svc.server.requestTimeout=5s',
      'svc.rest.endpointProperty.custom=value',
      '# a comment',
      '! another comment',
      'app.greeting=hello \\',
      '    world',
    ].join('\n'),
    'kebab.properties': [
      'svc.rest.open-api.specification=petstore.json',
      'svc.rest.open-api.missing-operation=IGNORE',
      'svc.rest.context-path=/kebab',
      'svc.rest.client-request-validation=false',
      'svc.server.max-body-size=1MiB',
      'svc.server.keep-alive-timeout=1m',
      'svc.server.shutdown-timeout=250ms',
    ].join('\n'),
  });
  copyFileSync(PETSTORE, join(dir, 'petstore.json'));
  const camel = await build([join(dir, 'camel.properties')]);
  assert.equal(camel.basePath, '/props');
  assert.equal(camel.contract.uri, join(dir, 'petstore.json'));
  assert.ok(camel.operations.every((o) => o.disposition === 'ignored'));
  assert.equal(camel.serverOptions.maxBodySize, 2000);
  assert.equal(camel.serverOptions.port, 0);
  assert.equal(camel.serverOptions.requestTimeout, 5000);
  assert.equal(camel.serverOptions.headersTimeout, 5000, 'the default headers timeout follows a shorter request timeout');
  const kebab = await build([join(dir, 'kebab.properties')]);
  assert.equal(kebab.basePath, '/kebab');
  assert.equal(kebab.serverOptions.maxBodySize, 1024 * 1024);
  assert.equal(kebab.serverOptions.keepAliveTimeout, 60_000);
  assert.equal(kebab.serverOptions.shutdownTimeout, 250);
});

test('a headers timeout set longer than the request timeout fails startup naming both options', async () => {
  const dir = tempDir({ 'bad.properties': 'svc.server.requestTimeout=2s\nsvc.server.headersTimeout=3s\n' });
  copyFileSync(PETSTORE, join(dir, 'petstore.json'));
  const file = join(dir, 'bad.properties');
  const facade = build([file], { SVC_REST_OPENAPI_SPECIFICATION: join(dir, 'petstore.json'), SVC_REST_OPENAPI_MISSINGOPERATION: 'ignore' });
  await assert.rejects(facade, (err: SvcError) => {
    assert.equal(err.code, Errors.CONFIG_INVALID.code);
    assert.equal(err.exitCode, 2);
    assert.match(err.message, /server\.headersTimeout has invalid value 3000; allowed: at most server\.requestTimeout \(2000 ms\)/);
    return true;
  });
});

test('a specification named in a properties file is found beside that file, not beside the first file', async () => {
  const dir = tempDir({
    'routes/app.yaml': '- restConfiguration:\n    contextPath: /split\n',
    'conf/app.properties': 'svc.rest.openApi.specification=contract.json\nsvc.rest.openApi.missingOperation=ignore\n',
  });
  copyFileSync(PETSTORE, join(dir, 'conf/contract.json'));
  const facade = await build([join(dir, 'routes/app.yaml'), join(dir, 'conf/app.properties')]);
  assert.equal(facade.contract.uri, join(dir, 'conf/contract.json'));
  assert.equal(facade.basePath, '/split');
});

test('application.properties beside the first file is loaded first; its keys feed {{placeholders}}; explicit files win', async () => {
  const dir = tempDir({
    'application.properties': 'svc.rest.contextPath=/app\ngreeting=hello from properties\nsvc.server.maxBodySize=100\n',
    'override.properties': 'svc.rest.contextPath=/override\n',
    'routes.yaml': yamlSpec(`
- route:
    from:
      uri: direct:logoutUser
      steps:
        - setBody:
            constant: '{{greeting}} / {{missing.key:fallback value}} / {{FROM_ENV}} / {{from.env.dotted}}'
`),
  });
  const env = { FROM_ENV: 'env value', FROM_ENV_DOTTED: 'dotted env value' };
  const running = await serve([join(dir, 'routes.yaml')], { env });
  try {
    assert.equal(running.facade.basePath, '/app');
    assert.equal(running.facade.serverOptions.maxBodySize, 100);
    assert.equal(await (await fetch(`${running.origin}/app/user/logout`)).text(), 'hello from properties / fallback value / env value / dotted env value');
  } finally {
    await running.close();
  }
  const overridden = await build([join(dir, 'routes.yaml'), join(dir, 'override.properties')], env);
  assert.equal(overridden.basePath, '/override');
  assert.equal(overridden.serverOptions.maxBodySize, 100, 'application.properties still applies underneath');
});

test('a placeholder without a value and without a default fails startup naming the file and the key', async () => {
  const dir = tempDir({ 'routes.yaml': yamlSpec('- restConfiguration:\n    contextPath: "{{ctx.path}}"\n') });
  const file = join(dir, 'routes.yaml');
  await assert.rejects(build([file]), (err: SvcError) => {
    assert.equal(err.code, Errors.CONFIG_FILE.code);
    assert.equal(err.exitCode, 2);
    assert.equal(err.message, `${file}: placeholder {{ctx.path}} has no value (set it as a property or environment variable, or write {{ctx.path:default}})`);
    return true;
  });
  assert.equal((await build([file], { CTX_PATH: '/from-env' })).basePath, '/from-env');
});

test('precedence: later files override earlier ones, properties override the DSL, the environment overrides properties', async () => {
  const dir = tempDir({
    'a.yaml': yamlSpec('- restConfiguration:\n    contextPath: /a\n'),
    'b.yaml': '- restConfiguration:\n    contextPath: /b\n',
    'c.properties': 'svc.rest.contextPath=/c\n',
    'd.properties': 'svc.rest.contextPath=/d\n',
  });
  const [a, b, c, d] = ['a.yaml', 'b.yaml', 'c.properties', 'd.properties'].map((f) => join(dir, f)) as [string, string, string, string];
  assert.equal((await build([a])).basePath, '/a');
  assert.equal((await build([a, b])).basePath, '/b', 'a later DSL file wins');
  assert.equal((await build([a, c])).basePath, '/c', 'properties win over the DSL');
  assert.equal((await build([c, a])).basePath, '/c', 'properties win over the DSL even when listed first');
  assert.equal((await build([a, c, d])).basePath, '/d', 'a later properties file wins');
  assert.equal((await build([a, d, c])).basePath, '/c');
  assert.equal((await build([a, c], { SVC_REST_CONTEXTPATH: '/env' })).basePath, '/env', 'the environment wins over properties');
  assert.equal((await build([a, c], { SVC_REST_CONTEXT_PATH: '/env2' })).basePath, '/env2', 'dashes and camel humps may be written as _');
});

test('environment overrides: SVC_REST_..., SVC_REST_OPENAPI_..., SVC_SERVER_..., SVC_COMPONENT_REST_OPENAPI_BASE_PATH', async () => {
  const dir = tempDir({ 'a.yaml': '- restConfiguration:\n    contextPath: /yaml\n' });
  const facade = await build([join(dir, 'a.yaml')], {
    SVC_REST_OPENAPI_SPECIFICATION: PETSTORE,
    SVC_REST_OPENAPI_MISSINGOPERATION: 'ignore',
    SVC_SERVER_MAX_BODY_SIZE: '64KiB',
    SVC_SERVER_PORT: '0',
    UNRELATED: 'x',
    SVC_SOMETHING_ELSE: 'not ours, ignored',
  });
  assert.equal(facade.contract.uri, PETSTORE);
  assert.equal(facade.basePath, '/yaml');
  assert.equal(facade.serverOptions.maxBodySize, 64 * 1024);
  assert.equal(facade.serverOptions.port, 0);
  // Object configs and route builders get the same overrides.
  const fromObject = await createFacade({ specification: PETSTORE, restConfiguration: { contextPath: '/obj' } }, { env: { SVC_REST_CONTEXTPATH: '/env', SVC_REST_OPENAPI_MISSING_OPERATION: 'ignore' }, logger: silentLogger });
  assert.equal(fromObject.basePath, '/env');
});

test('invalid values fail startup naming the source, the option and the allowed values (exit code 2)', async () => {
  const dir = tempDir({
    'enum.properties': 'svc.rest.bindingMode=jsonish\n',
    'unknown.properties': 'svc.rest.colour=blue\n',
    'port.properties': 'svc.server.port=eighty\n',
    'bool.yaml': '- restConfiguration:\n    clientRequestValidation: maybe\n',
    'size.properties': 'svc.server.maxBodySize=lots\n',
    'path.yaml': '- restConfiguration:\n    contextPath: no-slash\n',
    'top.yaml': '- beans:\n    x: 1\n',
    'yaml-syntax.yaml': '- rest: [unclosed\n',
    'valid.yaml': '- restConfiguration:\n    contextPath: /ok\n',
  });
  const cases: [string, string, NodeJS.ProcessEnv?][] = [
    ['enum.properties', `${join(dir, 'enum.properties')}: option bindingMode has invalid value "jsonish"; allowed: off, auto, json, xml, json_xml`],
    ['unknown.properties', `${join(dir, 'unknown.properties')}: unknown option svc.rest.colour; allowed: svc.server.<option>, svc.server.tls.<option>, svc.backend.<option>, svc.observe.<option>, svc.observe.tls.<option>, svc.security.<option>, svc.cors.<option>, svc.rest.<option>, svc.rest.openApi.<option>, svc.rest.endpointProperty.<key>, svc.rest.corsHeaders.<Access-Control-field>, svc.component.rest-openapi.base-path, svc.oauth.<profile>.<key>`],
    ['port.properties', `${join(dir, 'port.properties')}: option server.port has invalid value "eighty"; allowed: an integer from 0 to 65535`],
    ['bool.yaml', `${join(dir, 'bool.yaml')}: option clientRequestValidation has invalid value "maybe"; allowed: true, false`],
    ['size.properties', `${join(dir, 'size.properties')}: option server.maxBodySize has invalid value "lots"; allowed: bytes, or a number with KB, KiB, MB or MiB`],
    ['path.yaml', `${join(dir, 'path.yaml')}: option contextPath has invalid value "no-slash"; allowed: a path starting with /`],
    ['top.yaml', `${join(dir, 'top.yaml')}: unknown option beans; allowed: restConfiguration, rest, route, from, server, backend, observe, security, cors`],
    ['valid.yaml', 'environment variable SVC_REST_BINDING_MODE: option bindingMode has invalid value "sometimes"; allowed: off, auto, json, xml, json_xml', { SVC_REST_BINDING_MODE: 'sometimes' }],
  ];
  for (const [file, message, env] of cases) {
    await assert.rejects(build([join(dir, file)], env), (err: SvcError) => {
      assert.ok(err instanceof SvcError);
      assert.equal(err.message, message);
      assert.equal(err.exitCode, 2);
      return true;
    });
  }
  await assert.rejects(build([join(dir, 'yaml-syntax.yaml')]), (err: SvcError) => err.exitCode === 2 && err.message.startsWith(`${join(dir, 'yaml-syntax.yaml')}: not valid YAML`));
  await assert.rejects(build([join(dir, 'config.json')]), (err: SvcError) => err.exitCode === 2 && /unknown file type \.json; allowed: \.yaml, \.yml, \.xml, \.properties, \.js, \.mjs, \.ts/.test(err.message));
  await assert.rejects(build([join(dir, 'absent.yaml')]), { message: `${join(dir, 'absent.yaml')}: no such file` });
});

test('OAuth profiles are stored once under their lower-case name, whatever case each surface spells them in', () => {
  const config = emptyConfig();
  applyProperty(config, 'svc.oauth.Main.issuer', 'https://issuer.example', 'a.properties');
  applyProperty(config, 'svc.oauth.MAIN.secret', 's', 'env');
  new OAuthProfileDefinition(config, 'main').audience('one', 'two');
  assert.deepEqual(config.oauth, { main: { issuer: 'https://issuer.example', secret: 's', audience: 'one,two' } });
  assert.equal(findOAuthProfile(config, 'mAiN'), config.oauth.main);
  assert.equal(findOAuthProfile(config, 'other'), undefined);
  // Names are keys of a plain object: inherited ones are no profiles, and none reaches the prototype.
  assert.equal(findOAuthProfile(config, 'constructor'), undefined);
  applyProperty(config, 'svc.oauth.__proto__.issuer', 'x', 'a.properties');
  assert.deepEqual(findOAuthProfile(config, '__proto__'), { issuer: 'x' });
  assert.equal(({} as Record<string, unknown>).issuer, undefined);
});
