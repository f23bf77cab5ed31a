// Publishing the contract (SPEC §10): rest configuration apiContextPath (JSON, YAML by Accept or suffix,
// hostNameResolver localIp/none), openApi.apiContextPath (the original bytes), and neither when unset.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { FacadeObjectConfig } from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

const PETSTORE_DOC = JSON.parse(readFileSync(PETSTORE, 'utf8')) as Record<string, unknown>;

function petstore(restConfiguration: Record<string, unknown>, extra: Partial<FacadeObjectConfig> = {}) {
  return serve({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration, ...extra });
}

function expectedHost(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

test('apiContextPath with hostNameResolver none: the contract as JSON, servers as in the file', async () => {
  const app = await petstore({ apiContextPath: '/api-doc', hostNameResolver: 'none' });
  try {
    const res = await fetch(`${app.origin}/api-doc`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), PETSTORE_DOC);
  } finally {
    await app.close();
  }
});

test('YAML by Accept (application/yaml, text/yaml, q-values) and by the .yaml suffix; .json suffix is JSON', async () => {
  const app = await petstore({ apiContextPath: '/api-doc', hostNameResolver: 'none' });
  try {
    for (const [accept, type] of [
      ['application/yaml', 'application/yaml'],
      ['text/yaml', 'text/yaml'],
      ['application/json;q=0.5, application/yaml', 'application/yaml'],
      ['application/yaml;q=0.5, application/json', 'application/json'],
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'application/json'],
      ['text/html', 'application/json'],
    ]) {
      const res = await fetch(`${app.origin}/api-doc`, { headers: { accept: accept! } });
      assert.equal(res.headers.get('content-type'), type, accept);
      const text = await res.text();
      assert.deepEqual(type === 'application/json' ? JSON.parse(text) : parseYaml(text), PETSTORE_DOC, accept);
    }
    const yaml = await fetch(`${app.origin}/api-doc.yaml`, { headers: { accept: 'application/json' } });
    assert.equal(yaml.headers.get('content-type'), 'application/yaml');
    const yamlText = await yaml.text();
    assert.ok(!yamlText.trimStart().startsWith('{'), 'block YAML, not JSON');
    assert.deepEqual(parseYaml(yamlText), PETSTORE_DOC);
    const json = await fetch(`${app.origin}/api-doc.json`, { headers: { accept: 'application/yaml' } });
    assert.equal(json.headers.get('content-type'), 'application/json');
    assert.deepEqual(await json.json(), PETSTORE_DOC);
  } finally {
    await app.close();
  }
});

test('hostNameResolver localIp (the default): servers is this host, the request port and the base path', async () => {
  const app = await petstore({ apiContextPath: '/api-doc' });
  try {
    const port = new URL(app.origin).port;
    const doc = (await (await fetch(`${app.origin}/api-doc`)).json()) as Record<string, unknown>;
    assert.deepEqual(doc.servers, [{ url: `http://${expectedHost()}:${port}/api/v3` }]);
    assert.deepEqual(Object.keys(doc), Object.keys(PETSTORE_DOC), 'servers keeps its place');
    assert.deepEqual({ ...doc, servers: PETSTORE_DOC.servers }, PETSTORE_DOC, 'nothing else changes');
    const yaml = parseYaml(await (await fetch(`${app.origin}/api-doc.yaml`)).text()) as Record<string, unknown>;
    assert.deepEqual(yaml.servers, doc.servers);
    // Repeated requests answer the same bytes (the serialized document is kept per port).
    const a = await (await fetch(`${app.origin}/api-doc`)).text();
    const b = await (await fetch(`${app.origin}/api-doc`)).text();
    assert.equal(a, b);
  } finally {
    await app.close();
  }
});

test('localIp with a contextPath and a contract without servers: servers is added after info', async () => {
  const contract = { openapi: '3.1.0', info: { title: 'no servers', version: '1' }, paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } } } };
  const dir = tempDir({ 'contract.json': JSON.stringify(contract) });
  const app = await serve({ specification: 'contract.json', baseDir: dir, missingOperation: 'mock', restConfiguration: { apiContextPath: '/docs/openapi', contextPath: '/svc' } });
  try {
    const port = new URL(app.origin).port;
    const doc = (await (await fetch(`${app.origin}/docs/openapi`)).json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(doc), ['openapi', 'info', 'servers', 'paths']);
    assert.deepEqual(doc.servers, [{ url: `http://${expectedHost()}:${port}/svc` }]);
    assert.equal((await fetch(`${app.origin}/svc/docs/openapi`)).status, 404, 'the rest apiContextPath is absolute, not under the base path');
  } finally {
    await app.close();
  }
});

test('HEAD works; other methods answer 405 with Allow', async () => {
  const app = await petstore({ apiContextPath: '/api-doc', hostNameResolver: 'none' });
  try {
    const head = await rawRequest(app.origin, '/api-doc', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-type'], 'application/json');
    assert.ok(Number(head.headers['content-length']) > 1000);
    assert.equal(head.body, '');
    const post = await fetch(`${app.origin}/api-doc`, { method: 'POST', body: 'x' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'GET, HEAD');
  } finally {
    await app.close();
  }
});

test('not served when apiContextPath is unset', async () => {
  const app = await petstore({});
  try {
    for (const path of ['/api-doc', '/api-doc.yaml', '/api/v3/api-doc', '/api/v3/openapi.json']) {
      const res = await fetch(`${app.origin}${path}`);
      assert.equal(res.status, 404, path);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
    }
  } finally {
    await app.close();
  }
});

test('openApi.apiContextPath serves the original file byte for byte under the base path', async () => {
  const app = await petstore({}, { apiContextPath: '/openapi.json' });
  try {
    const res = await fetch(`${app.origin}/api/v3/openapi.json`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), readFileSync(PETSTORE));
    assert.equal((await fetch(`${app.origin}/openapi.json`)).status, 404);
  } finally {
    await app.close();
  }
});

test('openApi.apiContextPath of a YAML contract: its bytes (comments and all) as application/yaml', async () => {
  const yaml = '# a comment that only the original keeps\nopenapi: 3.0.3\ninfo: {title: yaml, version: "1"}\nservers:\n  - url: http://example.com/base\npaths:\n  /ping:\n    get:\n      operationId: ping\n      responses:\n        "200": {description: ok}\n';
  const dir = tempDir({ 'api.yaml': yaml });
  const app = await serve({ specification: 'api.yaml', baseDir: dir, missingOperation: 'mock', apiContextPath: '/spec', restConfiguration: { apiContextPath: '/api-doc' } });
  try {
    const original = await fetch(`${app.origin}/base/spec`);
    assert.equal(original.headers.get('content-type'), 'application/yaml');
    assert.equal(await original.text(), yaml);
    const published = (await (await fetch(`${app.origin}/api-doc`)).json()) as { servers: { url: string }[] };
    assert.match(published.servers[0]!.url, /^http:\/\/[\d.]+:\d+\/base$/);
  } finally {
    await app.close();
  }
});

test('the YAML DSL sets both options', async () => {
  const dir = tempDir({
    'config.yaml': [
      '- restConfiguration:',
      '    apiContextPath: /api-doc',
      '    hostNameResolver: none',
      '- rest:',
      '    openApi:',
      `      specification: ${PETSTORE}`,
      '      missingOperation: mock',
      '      apiContextPath: /openapi.json',
      '',
    ].join('\n'),
  });
  const app = await serve(join(dir, 'config.yaml'));
  try {
    assert.deepEqual(await (await fetch(`${app.origin}/api-doc`)).json(), PETSTORE_DOC);
    assert.deepEqual(Buffer.from(await (await fetch(`${app.origin}/api/v3/openapi.json`)).arrayBuffer()), readFileSync(PETSTORE));
  } finally {
    await app.close();
  }
});

test('a contract JSON cannot represent (a YAML alias cycle): YAML still works, JSON is a 500 problem, logged', async () => {
  const dir = tempDir({ 'api.yaml': 'openapi: 3.0.3\ninfo: {title: cycle, version: "1"}\nx-cycle: &a {self: *a}\npaths: {}\n' });
  const app = await serve({ specification: 'api.yaml', baseDir: dir, restConfiguration: { apiContextPath: '/api-doc', hostNameResolver: 'none' } });
  try {
    const yaml = await fetch(`${app.origin}/api-doc.yaml`);
    assert.equal(yaml.status, 200);
    const doc = parseYaml(await yaml.text()) as { 'x-cycle': { self: unknown } };
    assert.equal(doc['x-cycle'].self, doc['x-cycle']);
    const json = await fetch(`${app.origin}/api-doc`);
    assert.equal(json.status, 500);
    assert.equal(json.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await json.json()) as { detail: string }).detail, 'The contract could not be serialized for publishing.');
    assert.ok(app.logger.lines.some((l) => l.startsWith('ERROR /api-doc: TypeError')));
  } finally {
    await app.close();
  }
});

test('an apiContextPath that an operation already answers keeps the operation, with a startup warning', async () => {
  const app = await petstore({}, { apiContextPath: '/store/inventory', routes: { getInventory: (ex) => void (ex.body = { sold: 1 }) } });
  try {
    const res = await fetch(`${app.origin}/api/v3/store/inventory`);
    assert.deepEqual(await res.json(), { sold: 1 });
    assert.ok(
      app.logger.lines.some((l) => l === 'WARN the contract is not published at /api/v3/store/inventory: an operation of the contract already answers GET there'),
      app.logger.lines.join('\n'),
    );
  } finally {
    await app.close();
  }
});
