// Base path (SPEC §3): component base-path > contextPath > the contract's FIRST server > '/'.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { joinPaths, normalizeBasePath, resolveBasePath } from '../../lib/contract/base-path.js';
import type { OpenApiDocument } from '../../lib/contract/load.js';
import { createFacade, silentLogger, type Exchange } from '../../lib/index.js';
import { CORPUS, PETSTORE, serve, tempDir } from '../helpers.js';

const doc = (servers?: OpenApiDocument['servers']): OpenApiDocument => ({ openapi: '3.0.0', ...(servers ? { servers } : {}) });
const fromServer = (url: string, variables?: Record<string, { default?: unknown }>) => resolveBasePath(doc([{ url, ...(variables ? { variables } : {}) }]), {});

test('from a server URL only the path is used', () => {
  assert.equal(fromServer('https://petstore3.swagger.io/api/v3'), '/api/v3');
  assert.equal(fromServer('http://localhost:8080/a/b?x=1#frag'), '/a/b');
  assert.equal(fromServer('https://api.example.com'), '/');
  assert.equal(fromServer('https://api.example.com/'), '/');
});

test('server variables take their default; a missing default is empty', () => {
  assert.equal(fromServer('{scheme}://{host}/{basePath}', { scheme: { default: 'https' }, host: { default: 'h' }, basePath: { default: '/api/v3' } }), '/api/v3', '//api/v3 collapses');
  assert.equal(fromServer('https://h/{version}/x', { version: { default: 'v2' } }), '/v2/x');
  assert.equal(fromServer('https://h/{version}/x'), '/x');
  assert.equal(fromServer('https://{region}.example.com/{stage}', { region: { default: 'eu' }, stage: { default: 7 } }), '/7');
});

test('a trailing slash is dropped, //x becomes /x, relative URLs are paths', () => {
  assert.equal(fromServer('https://h/api/'), '/api');
  assert.equal(fromServer('//x'), '/x');
  assert.equal(fromServer('/api/v1'), '/api/v1');
  assert.equal(fromServer('api/v1/'), '/api/v1');
  assert.equal(fromServer('/'), '/');
  assert.equal(fromServer(''), '/');
  assert.equal(fromServer('https://h//double//slashes/'), '/double/slashes');
});

test('the FIRST server wins (Camel takes the last one); no servers means /', () => {
  assert.equal(resolveBasePath(doc([{ url: 'https://a/first' }, { url: 'https://b/second' }]), {}), '/first');
  assert.equal(resolveBasePath(doc(), {}), '/');
  assert.equal(resolveBasePath(doc([]), {}), '/');
});

test('overrides: base-path beats contextPath beats the server; both are normalised', () => {
  const d = doc([{ url: 'https://h/from-server' }]);
  assert.equal(resolveBasePath(d, { contextPath: '/ctx/' }), '/ctx');
  assert.equal(resolveBasePath(d, { componentBasePath: 'component', contextPath: '/ctx' }), '/component');
  assert.equal(resolveBasePath(d, { componentBasePath: '/', contextPath: '/ctx' }), '/', 'an explicit / override serves at the root');
  assert.equal(normalizeBasePath('//a///b//'), '/a/b');
});

test('paths join without double slashes', () => {
  assert.equal(joinPaths('/', '/pet'), '/pet');
  assert.equal(joinPaths('/api', '/pet'), '/api/pet');
  assert.equal(joinPaths('/api', 'pet'), '/api/pet');
  assert.equal(joinPaths('/api', '//pet'), '/api/pet');
  assert.equal(joinPaths('/', 'pet'), '/pet');
});

test('contextPath and svc.component.rest-openapi.base-path move the served operations, with base-path winning', async () => {
  const dir = tempDir({
    'ctx.yaml': `- restConfiguration:\n    contextPath: /ctx\n- rest:\n    openApi:\n      specification: ${JSON.stringify(PETSTORE)}\n      missingOperation: ignore\n`,
    'base.properties': 'svc.component.rest-openapi.base-path=/component/\n',
  });
  const ctx = await serve([join(dir, 'ctx.yaml')], { env: {} });
  try {
    assert.equal(ctx.facade.basePath, '/ctx');
    assert.equal((await fetch(`${ctx.origin}/ctx/pet/findByStatus`)).status, 204);
    assert.equal((await fetch(`${ctx.origin}/api/v3/pet/findByStatus`)).status, 404, 'the contract base path is replaced, not added');
  } finally {
    await ctx.close();
  }
  const both = await serve([join(dir, 'ctx.yaml'), join(dir, 'base.properties')], { env: {} });
  try {
    assert.equal(both.facade.basePath, '/component');
    assert.equal((await fetch(`${both.origin}/component/pet/findByStatus`)).status, 204);
    assert.equal((await fetch(`${both.origin}/ctx/pet/findByStatus`)).status, 404);
    assert.ok(both.facade.startupReport.includes('GET /component/pet/{petId} -> direct:getPetById [ignored]'));
  } finally {
    await both.close();
  }
  const fromEnv = await createFacade([join(dir, 'ctx.yaml')], { env: { SVC_COMPONENT_REST_OPENAPI_BASE_PATH: '/env' }, logger: silentLogger });
  assert.equal(fromEnv.basePath, '/env');
  const fromObject = await createFacade({ specification: PETSTORE, missingOperation: 'ignore', basePath: '/obj', restConfiguration: { contextPath: '/ignored' } }, { env: {}, logger: silentLogger });
  assert.equal(fromObject.basePath, '/obj');
});

test('the served path and SvcHttpPath under a root base path and a relative server URL (Camel relative-server.yaml)', async () => {
  const running = await serve(
    { specification: join(CORPUS, 'camel-rest-openapi/relative-server.yaml'), missingOperation: 'ignore' },
    { env: {} },
  );
  try {
    assert.equal(running.facade.basePath, '/api/v1');
    const op = running.facade.operations[0]!;
    assert.ok(op.path.startsWith('/api/v1/'), op.path);
  } finally {
    await running.close();
  }
  const path = (ex: Exchange) => void (ex.message.body = `${String(ex.message.headers.get('SvcHttpPath'))} ${String(ex.message.headers.get('SvcHttpUri'))}`);
  const rooted = await serve({ specification: PETSTORE, basePath: '/', routes: { findPetsByStatus: path }, missingOperation: 'ignore' }, { env: {} });
  try {
    assert.equal(rooted.facade.basePath, '/');
    assert.equal(await (await fetch(`${rooted.origin}/pet/findByStatus?status=sold`)).text(), '/pet/findByStatus /pet/findByStatus');
  } finally {
    await rooted.close();
  }
  const nested = await serve({ specification: PETSTORE, restConfiguration: { contextPath: '/a/b/' }, routes: { findPetsByStatus: path }, missingOperation: 'ignore' }, { env: {} });
  try {
    assert.equal(await (await fetch(`${nested.origin}/a/b/pet/findByStatus`)).text(), '/pet/findByStatus /a/b/pet/findByStatus');
  } finally {
    await nested.close();
  }
});
