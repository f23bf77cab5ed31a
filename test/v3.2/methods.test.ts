// OpenAPI 3.2 methods over real HTTP: the `query` operation (HTTP QUERY) and `additionalOperations`, through
// routing, 405 Allow, the startup listing, direct:<operationId> and GENOPID names, request validation,
// binding, the mock (a QUERY is answered like a GET, never echoed) and backend forwarding; and the
// contract rules on additionalOperations keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createFacade, type Exchange, type SvcError } from '../../lib/index.js';
import { ROOT, serve, tempDir } from '../helpers.js';
import { call } from '../validation/fixtures.js';

const CATALOG = join(ROOT, 'test/fixtures/openapi-3.2/openapi.yaml');
const SEARCH = JSON.stringify({ text: 'lamp', limit: 5 });
const asJson = { 'content-type': 'application/json' };

function catalog(extra: Record<string, unknown> = {}) {
  return serve({ specification: CATALOG, missingOperation: 'mock', baseDir: tempDir(), ...extra }, { env: {} });
}

test('QUERY reaches direct:<operationId> with its body; the route sees SvcHttpMethod QUERY', async () => {
  let seen: { method: unknown; body: unknown } | undefined;
  const app = await catalog({
    routes: {
      searchProducts: (ex: Exchange) => {
        seen = { method: ex.header('SvcHttpMethod'), body: ex.message.body };
        ex.message.body = [{ id: 2, name: 'desk' }];
      },
    },
  });
  try {
    const res = await call(app, 'QUERY', '/catalog/products', { body: SEARCH, headers: asJson });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, [{ id: 2, name: 'desk' }]);
    assert.deepEqual(seen, { method: 'QUERY', body: SEARCH });
  } finally {
    await app.close();
  }
});

test('the startup listing names QUERY and additional operations; an additional one without operationId gets GENOPID_<METHOD><path>', async () => {
  const app = await catalog();
  try {
    const lines = app.facade.startupReport;
    for (const line of [
      'GET /catalog/products -> direct:listProducts [mock]',
      'QUERY /catalog/products -> direct:searchProducts [mock]',
      'PURGE /catalog/products -> direct:GENOPID_PURGE.products [mock]',
      'LINK /catalog/products -> direct:linkProducts [mock]',
      'SYNC /catalog/sync -> direct:syncCatalog [mock]',
    ]) assert.ok(lines.includes(line), `${line} in\n${lines.join('\n')}`);
    assert.deepEqual(app.facade.operations.map((o) => o.operation.method), ['GET', 'QUERY', 'PURGE', 'LINK', 'GET', 'GET', 'GET', 'SYNC']);
  } finally {
    await app.close();
  }
});

test('a method node cannot receive (SYNC) is a startup warning naming operation and method; sending it is a 400, never a hang', async () => {
  const app = await catalog();
  try {
    const warning = app.logger.lines.find((l) => l.startsWith('WARN SYNC /catalog/sync -> direct:syncCatalog'));
    assert.ok(warning, app.logger.lines.join('\n'));
    assert.match(warning, /does not accept the method SYNC/);
    assert.equal(app.logger.lines.filter((l) => /does not accept the method/.test(l)).length, 1, 'QUERY, PURGE and LINK are receivable');
    const res = await call(app, 'SYNC', '/catalog/sync');
    assert.equal(res.status, 400);
    assert.equal(res.body.detail, 'The request is not valid HTTP.');
  } finally {
    await app.close();
  }
});

test('unmapped operations: direct:GENOPID_PURGE.products and the others are named like any operation', async () => {
  await assert.rejects(createFacade({ specification: CATALOG, routes: { listProducts: () => undefined } }, { env: {}, logger: { info() {}, warn() {}, error() {} } }), (err: SvcError) => {
    assert.equal(err.code, 'SVC_UNMAPPED_OPERATIONS');
    assert.equal(err.exitCode, 1);
    assert.match(err.message, /\n\tdirect:GENOPID_PURGE\.products\n\tdirect:findJson\n\tdirect:getProduct\n\tdirect:linkProducts\n\tdirect:searchForm\n\tdirect:searchProducts\n\tdirect:syncCatalog$/);
    return true;
  });
});

test('405 lists GET, HEAD, then QUERY and the additional methods in contract order; HEAD is not served by QUERY', async () => {
  const app = await catalog();
  try {
    for (const method of ['DELETE', 'POST', 'OPTIONS', 'COPY']) {
      const res = await fetch(`${app.origin}/catalog/products`, { method });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'GET, HEAD, QUERY, PURGE, LINK', method);
      assert.equal(((await res.json()) as { detail: string }).detail, 'The path does not declare this method.');
    }
    const syncOnly = await fetch(`${app.origin}/catalog/sync`, { method: 'GET' });
    assert.equal(syncOnly.status, 405);
    assert.equal(syncOnly.headers.get('allow'), 'SYNC');
  } finally {
    await app.close();
  }
});

test('a QUERY-only path answers HEAD with 405 (HEAD stands in for GET only)', async () => {
  const dir = tempDir({
    'api.yaml': 'openapi: 3.2.0\ninfo: { title: q, version: "1" }\npaths:\n  /q:\n    query:\n      operationId: ask\n      responses:\n        "200": { description: ok }\n',
  });
  const app = await serve({ specification: join(dir, 'api.yaml'), missingOperation: 'mock' }, { env: {} });
  try {
    const head = await fetch(`${app.origin}/q`, { method: 'HEAD' });
    assert.equal(head.status, 405);
    assert.equal(head.headers.get('allow'), 'QUERY');
  } finally {
    await app.close();
  }
});

test('request validation checks a QUERY body like any body: required, schema, Content-Type', async () => {
  const app = await catalog({ restConfiguration: { clientRequestValidation: true } });
  try {
    const missing = await call(app, 'QUERY', '/catalog/products');
    assert.equal(missing.status, 400);
    assert.equal(missing.body.detail, 'The request body is missing.');
    const invalid = await call(app, 'QUERY', '/catalog/products', { body: JSON.stringify({ text: '', limit: 99, extra: 1 }), headers: asJson });
    assert.equal(invalid.status, 400);
    assert.deepEqual(invalid.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/extra', '/limit', '/text']);
    const wrongType = await call(app, 'QUERY', '/catalog/products', { body: 'text=lamp', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(wrongType.status, 415);
    const linkInvalid = await call(app, 'LINK', '/catalog/products', { body: '{}', headers: asJson });
    assert.equal(linkInvalid.status, 400);
    assert.deepEqual(linkInvalid.body.errors, [{ in: 'body', name: 'to', pointer: '/to', message: "must have required property 'to'" }]);
    const ok = await call(app, 'QUERY', '/catalog/products', { body: SEARCH, headers: asJson });
    assert.equal(ok.status, 200);
  } finally {
    await app.close();
  }
});

test('mock: a QUERY is answered like a GET (example, then synthesized), never echoed', async () => {
  const app = await catalog();
  try {
    const example = await call(app, 'QUERY', '/catalog/products', { body: SEARCH, headers: asJson });
    assert.equal(example.status, 200);
    assert.deepEqual(example.body, [{ id: 1, name: 'lamp', category: { name: 'home' } }], 'the example of the 200 response');
    const dynamic = await call(app, 'QUERY', '/catalog/products', { body: SEARCH, headers: { ...asJson, prefer: 'dynamic=true, seed=7' } });
    assert.equal(dynamic.status, 200);
    assert.ok(Array.isArray(dynamic.body) && dynamic.body.every((p: { id: unknown; name: unknown }) => Number.isInteger(p.id) && typeof p.name === 'string'), JSON.stringify(dynamic.body));
    // LINK is neither safe nor an echoing method (DELETE, PUT, POST, PATCH): without a file or Prefer, its
    // declared response as for a GET, never an undeclared 204 (SPEC §7 step 4).
    const link = await call(app, 'LINK', '/catalog/products', { body: '{"to":"x"}', headers: asJson });
    assert.equal(link.status, 200);
    assert.equal(typeof link.body.linked, 'string', 'synthesized from the declared Link schema, not the request body');
    const preferred = await call(app, 'LINK', '/catalog/products', { body: '{"to":"x"}', headers: { ...asJson, prefer: 'code=200' } });
    assert.equal(preferred.status, 200);
    assert.equal(typeof preferred.body.linked, 'string', 'synthesized from the declared Link schema');
  } finally {
    await app.close();
  }
});

test('mock: a QUERY whose response declares no content is answered like a GET (its 200, empty), not with the request body; a mock file answers first', async () => {
  const dir = tempDir({
    'api.yaml': 'openapi: 3.2.0\ninfo: { title: q, version: "1" }\npaths:\n  /reports/{name}:\n    query:\n      operationId: report\n      requestBody:\n        content:\n          application/json: {}\n      responses:\n        "200": { description: ok }\n',
    'svc-mock/reports/weekly.json': '{"from":"file"}',
  });
  const app = await serve({ specification: join(dir, 'api.yaml'), missingOperation: 'mock', baseDir: dir }, { env: {} });
  try {
    const none = await call(app, 'QUERY', '/reports/daily', { body: '{"ask":1}', headers: asJson });
    assert.equal(none.status, 200);
    assert.equal(none.body, '');
    assert.equal((await call(app, 'GET', '/reports/daily')).status, 405);
    const file = await call(app, 'QUERY', '/reports/weekly', { body: '{"ask":1}', headers: asJson });
    assert.equal(file.status, 200);
    assert.deepEqual(file.body, { from: 'file' });
  } finally {
    await app.close();
  }
});

test('binding: a QUERY body is bound like a POST body; the route answer is serialized', async () => {
  let bound: unknown;
  const app = await catalog({
    restConfiguration: { bindingMode: 'json' },
    routes: {
      searchProducts: (ex: Exchange) => {
        bound = ex.message.body;
        ex.message.body = [{ id: 3, name: (ex.message.body as { text: string }).text }];
      },
    },
  });
  try {
    const res = await call(app, 'QUERY', '/catalog/products', { body: SEARCH, headers: asJson });
    assert.equal(res.status, 200);
    assert.deepEqual(bound, { text: 'lamp', limit: 5 });
    assert.deepEqual(res.body, [{ id: 3, name: 'lamp' }]);
  } finally {
    await app.close();
  }
});

test('to: http forwards a QUERY with its method and body to the backend', async () => {
  const received: { method: string | undefined; url: string | undefined; body: string }[] = [];
  const backend = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method, url: req.url, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(200, { 'content-type': 'application/json' }).end('[{"id":9,"name":"from backend"}]');
    });
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const { port } = backend.address() as AddressInfo;
  const app = await catalog({ routes: { searchProducts: [{ kind: 'to', uri: `http://127.0.0.1:${port}/search` }] } });
  try {
    const res = await call(app, 'QUERY', '/catalog/products', { body: SEARCH, headers: asJson });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, [{ id: 9, name: 'from backend' }]);
    assert.deepEqual(received, [{ method: 'QUERY', url: '/search', body: SEARCH }]);
  } finally {
    await app.close();
    await new Promise((resolve) => backend.close(resolve));
  }
});

test('additionalOperations keys: a fixed method in any case, or a non-token, fails startup naming path and key', async () => {
  const contract = (key: string) => `openapi: 3.2.0\ninfo: { title: k, version: "1" }\npaths:\n  /things:\n    additionalOperations:\n      "${key}":\n        operationId: x\n        responses:\n          "200": { description: ok }\n`;
  for (const [key, reason] of [
    ['GET', /the GET operation belongs in the fixed field 'get'/],
    ['get', /the GET operation belongs in the fixed field 'get'/],
    ['Query', /the QUERY operation belongs in the fixed field 'query'/],
    ['BAD METHOD', /is not an HTTP method token/],
    ['', /is not an HTTP method token/],
  ] as const) {
    const dir = tempDir({ 'api.yaml': contract(key) });
    await assert.rejects(createFacade({ specification: join(dir, 'api.yaml'), missingOperation: 'mock' }, { env: {} }), (err: SvcError) => {
      assert.equal(err.code, 'SVC_ADDITIONAL_OPERATION_KEY', key);
      assert.equal(err.exitCode, 1);
      assert.ok(err.message.startsWith(`additionalOperations key ${key} of path /things is not allowed: `), err.message);
      assert.match(err.message, reason);
      return true;
    });
  }
});

test('OpenAPI 3.0/3.1: `query` and `additionalOperations` are not operation fields there and stay unserved', async () => {
  const dir = tempDir({
    'api.yaml': 'openapi: 3.1.0\ninfo: { title: o, version: "1" }\npaths:\n  /x:\n    get:\n      operationId: getX\n      responses:\n        "200": { description: ok }\n    query:\n      operationId: queryX\n      responses:\n        "200": { description: ok }\n    additionalOperations:\n      GET:\n        operationId: never\n',
  });
  const app = await serve({ specification: join(dir, 'api.yaml'), missingOperation: 'mock' }, { env: {} });
  try {
    assert.deepEqual(app.facade.operations.map((o) => `${o.operation.method} ${o.endpoint}`), ['GET direct:getX']);
    const res = await fetch(`${app.origin}/x`, { method: 'QUERY' });
    assert.equal(res.status, 405);
  } finally {
    await app.close();
  }
});
