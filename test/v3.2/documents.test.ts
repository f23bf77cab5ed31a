// OpenAPI 3.2 documents: `$self` as the base URI of references (relative, absolute-path and absolute ones,
// `$self` + fragment being the document itself, schema `$id`s under it), the server `name` kept when the
// published contract's servers are rewritten, the documentation-only 3.2 fields published unchanged, and
// the OAI 3.2 tags example served (mocked) and published.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { Errors, type Exchange } from '../../lib/index.js';
import { CORPUS, ROOT, serve, tempDir } from '../helpers.js';
import { call } from '../validation/fixtures.js';

const CATALOG = join(ROOT, 'test/fixtures/openapi-3.2/openapi.yaml');
const CATALOG_DOC = parseYaml(readFileSync(CATALOG, 'utf8')) as Record<string, unknown>;
const TAGS = join(CORPUS, 'oai-examples/v3.2/3.2-tags-example.yaml');

function localIPv4(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

test('$self: the mock synthesizes through a $ref to "$self#/..." and through a file that refers back by the absolute $self URI', async () => {
  const app = await serve({ specification: CATALOG, missingOperation: 'mock', baseDir: tempDir() }, { env: {} });
  try {
    const res = await call(app, 'GET', '/catalog/products/3');
    assert.equal(res.status, 200);
    // schemas/product.yaml: id minimum 1, and category from the entry document's components (required name).
    assert.deepEqual(res.body, { id: 1, name: 'string', category: { name: 'string' } });
  } finally {
    await app.close();
  }
});

test('$self: response validation follows relative, absolute-path and absolute references to the same schemas', async () => {
  let answer: unknown;
  const route = (ex: Exchange) => {
    ex.message.body = answer;
  };
  const app = await serve(
    { specification: CATALOG, missingOperation: 'mock', baseDir: tempDir(), restConfiguration: { clientResponseValidation: true }, routes: { getProduct: route, searchProducts: route, listProducts: route } },
    { env: {} },
  );
  try {
    for (const [method, path] of [['GET', '/catalog/products/3'], ['QUERY', '/catalog/products'], ['GET', '/catalog/products']] as const) {
      const many = path !== '/catalog/products/3' || method !== 'GET';
      const prefix = many ? '/0' : '';
      answer = many ? [{ id: 1, name: 'lamp', category: { name: 'home' } }] : { id: 1, name: 'lamp', category: { name: 'home' } };
      const body = method === 'QUERY' ? { body: '{"text":"x"}', headers: { 'content-type': 'application/json' } } : {};
      assert.equal((await call(app, method, path, body)).status, 200, `${method} ${path}`);
      answer = many ? [{ id: 0, name: 'lamp', category: {} }] : { id: 0, name: 'lamp', category: {} };
      const bad = await call(app, method, path, body);
      assert.equal(bad.status, 500, `${method} ${path}`);
      assert.deepEqual(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort(), [`${prefix}/category/name`, `${prefix}/id`], `${method} ${path}`);
    }
  } finally {
    await app.close();
  }
});

/** A 3.2 contract with `$self` whose one response schema is `ref`, plus more files. */
function withSelf(self: string, ref: string, files: Record<string, string> = {}, components: object = {}) {
  const doc = {
    openapi: '3.2.0',
    $self: self,
    info: { title: 'self', version: '1' },
    paths: { '/x': { get: { operationId: 'getX', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: ref } } } } } } } },
    components,
  };
  const dir = tempDir({ 'api/openapi.json': JSON.stringify(doc), ...files });
  return join(dir, 'api/openapi.json');
}

async function synthesized(specification: string): Promise<unknown> {
  const app = await serve({ specification, missingOperation: 'mock', baseDir: tempDir() }, { env: {} });
  try {
    return (await call(app, 'GET', '/x')).body;
  } finally {
    await app.close();
  }
}

test('$self relative to the retrieval URI, and schema $ids resolved against $self', async () => {
  const relative = withSelf('/apis/v1/openapi.json', '/apis/v1/schemas/thing.json', { 'api/schemas/thing.json': '{"type":"object","required":["kind"],"properties":{"kind":{"const":"thing"}}}' });
  assert.deepEqual(await synthesized(relative), { kind: 'thing' });
  const byId = withSelf('https://example.test/api/openapi.json', 'schemas/by-id', {}, { schemas: { Found: { $id: 'schemas/by-id', type: 'object', required: ['found'], properties: { found: { const: true } } } } });
  assert.deepEqual(await synthesized(byId), { found: true }, 'found by the $id it has under $self, not as a file');
});

test('$self never widens what may be read: a reference outside the contract directory or to another origin is refused', async () => {
  const outside = withSelf('https://example.test/api/openapi.json', 'https://example.test/secret.json#/x', { 'secret.json': '{"x":{"type":"string"}}' });
  const remote = withSelf('https://example.test/api/openapi.json', 'https://elsewhere.test/api/thing.json');
  for (const [specification, reason] of [
    [outside, 'it points outside the contract directory'],
    [remote, 'remote references are not fetched'],
  ] as const) {
    // Every reference a served operation reaches is resolved at startup: it fails naming the reference and its place.
    await assert.rejects(serve({ specification, missingOperation: 'mock', baseDir: tempDir() }, { env: {} }), (err: Error & { code?: string }) => {
      assert.equal(err.code, Errors.SPEC_REF_UNRESOLVED.code);
      assert.ok(err.message.startsWith("Cannot resolve $ref 'https://") && err.message.endsWith(`used at openapi.json#/paths/~1x/get/responses/200/content/application~1json/schema (reached from GET /x): ${reason}`), err.message);
      return true;
    });
  }
});

test('published with hostNameResolver none: the 3.2 contract unchanged ($self, tag parent/kind/summary, response summary, deviceAuthorization, oauth2MetadataUrl, server name)', async () => {
  const app = await serve({ specification: CATALOG, missingOperation: 'mock', baseDir: tempDir(), restConfiguration: { apiContextPath: '/api-doc', hostNameResolver: 'none' } }, { env: {} });
  try {
    assert.deepEqual(await (await fetch(`${app.origin}/api-doc`)).json(), CATALOG_DOC);
    assert.deepEqual(parseYaml(await (await fetch(`${app.origin}/api-doc.yaml`)).text()), CATALOG_DOC);
  } finally {
    await app.close();
  }
});

test('published with hostNameResolver localIp: the rewritten server keeps the first server\'s name', async () => {
  const app = await serve({ specification: CATALOG, missingOperation: 'mock', baseDir: tempDir(), restConfiguration: { apiContextPath: '/api-doc' } }, { env: {} });
  try {
    const published = (await (await fetch(`${app.origin}/api-doc`)).json()) as Record<string, unknown>;
    const port = new URL(app.origin).port;
    assert.deepEqual(published.servers, [{ url: `http://${localIPv4()}:${port}/catalog`, name: 'local' }]);
    assert.deepEqual({ ...published, servers: CATALOG_DOC.servers }, CATALOG_DOC, 'everything else unchanged');
  } finally {
    await app.close();
  }
});

test('the OAI 3.2 tags example: every operation served by the mock, the contract published unchanged (parsed and as its bytes)', async () => {
  const app = await serve(
    { specification: TAGS, missingOperation: 'mock', baseDir: tempDir(), apiContextPath: '/openapi.yaml', restConfiguration: { apiContextPath: '/api-doc', hostNameResolver: 'none' } },
    { env: {} },
  );
  try {
    assert.deepEqual(app.facade.startupReport.filter((l) => l.includes(' -> ')), [
      'GET /flights -> direct:GENOPID_GET.flights [mock]',
      'GET /flights/international -> direct:GENOPID_GET.flights.international [mock]',
      'GET /flights/domestic -> direct:GENOPID_GET.flights.domestic [mock]',
      'GET /flights/delayed -> direct:GENOPID_GET.flights.delayed [mock]',
    ]);
    for (const path of ['/flights', '/flights/international', '/flights/domestic', '/flights/delayed']) {
      const res = await fetch(`${app.origin}${path}`);
      assert.equal(res.status, 204, `${path}: no response is declared, so nothing to answer with`);
    }
    const raw = readFileSync(TAGS);
    assert.deepEqual(await (await fetch(`${app.origin}/api-doc`)).json(), parseYaml(raw.toString('utf8')));
    const original = await fetch(`${app.origin}/openapi.yaml`);
    assert.equal(original.headers.get('content-type'), 'application/yaml');
    assert.ok(Buffer.from(await original.arrayBuffer()).equals(raw));
  } finally {
    await app.close();
  }
});
