// Contract loading (SPEC §2): 3.0 and 3.1, JSON or YAML by content, resource roots, file:/classpath:,
// relative-file and circular $refs, and the startup errors for everything that is not a usable contract.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { stringify as toYaml } from 'yaml';
import { createFacade, Errors, silentLogger, SvcError, type Exchange } from '../../lib/index.js';
import { CORPUS, PETSTORE, ROOT, serve, tempDir } from '../helpers.js';

const SPLIT = join(ROOT, 'test/fixtures/split/openapi.yaml');
const petstoreText = readFileSync(PETSTORE, 'utf8');
const minimal = (title: string, extra: Record<string, unknown> = {}) => ({
  openapi: '3.0.3',
  info: { title, version: '1' },
  paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } } },
  ...extra,
});
const load = (specification: string, baseDir?: string) => createFacade({ specification, missingOperation: 'ignore', ...(baseDir ? { baseDir } : {}) }, { logger: silentLogger });

/** Asserts a startup failure with the SPEC_LOAD message for `location` and a reason matching `reason`. */
async function assertCannotLoad(specification: string, reason: RegExp, baseDir?: string): Promise<void> {
  await assert.rejects(load(specification, baseDir), (err: SvcError) => {
    assert.ok(err instanceof SvcError);
    assert.equal(err.code, Errors.SPEC_LOAD.code);
    assert.equal(err.exitCode, 1);
    assert.ok(err.message.startsWith(`The given OpenApi specification cannot be loaded from: ${specification}. `), err.message);
    assert.match(err.message, reason);
    return true;
  });
}

test('an OpenAPI 3.1 contract with a components/pathItems $ref and server variables (Camel petstore-3.1)', async () => {
  const running = await serve({
    specification: join(CORPUS, 'camel-rest-openapi/petstore-3.1.yaml'),
    routes: {
      listPets: [{ kind: 'setBody', expression: { json: [{ id: 1, name: 'cat' }] } }],
      createPets: [{ kind: 'setHeader', name: 'SvcHttpResponseCode', expression: { constant: 201 } }],
      getPetById: [{ kind: 'setBody', expression: { simple: '{"id": ${header.petId}}' } }, { kind: 'setHeader', name: 'content-type', expression: { constant: 'application/json' } }],
    },
  });
  try {
    assert.equal(running.facade.contract.version, '3.1');
    assert.equal(running.facade.basePath, '/api/v3', '{basePath} takes its default and the doubled slash collapses');
    assert.deepEqual(running.facade.operations.map((o) => `${o.operation.method} ${o.path} ${o.endpoint}`), [
      'GET /api/v3/pets direct:listPets',
      'POST /api/v3/pets direct:createPets',
      'GET /api/v3/pet/{petId} direct:getPetById',
    ]);
    assert.ok(running.facade.startupReport.includes('skipped 1 webhook(s): webhooks are not served'));
    assert.deepEqual(await (await fetch(`${running.origin}/api/v3/pet/9`)).json(), { id: 9 });
    assert.equal((await fetch(`${running.origin}/api/v3/pets`, { method: 'POST' })).status, 201);
    assert.equal((await fetch(`${running.origin}/api/v3/newPet`, { method: 'POST' })).status, 404, 'webhooks are not served');
  } finally {
    await running.close();
  }
});

test('a contract split over several files: path items, parameters, bodies, responses and recursive schemas by relative $ref', async () => {
  const running = await serve({
    specification: SPLIT,
    routes: {
      listThings: (ex: Exchange) => void (ex.message.body = { limit: ex.message.headers.get('limit') }),
      getThing: [{ kind: 'setBody', expression: { simple: 'thing ${header.thingId}' } }],
      createThing: [{ kind: 'setHeader', name: 'SvcHttpResponseCode', expression: { constant: 201 } }, { kind: 'setBody', expression: { simple: '${body}' } }],
      deleteThing: () => undefined,
    },
  });
  try {
    const ops = running.facade.operations.map((o) => o.operation);
    assert.deepEqual(ops.map((o) => `${o.method} ${o.path} ${o.id}`), ['GET /things listThings', 'POST /things createThing', 'GET /things/{thingId} getThing', 'DELETE /things/{thingId} deleteThing']);
    const create = ops.find((o) => o.id === 'createThing')!;
    assert.deepEqual(create.consumes, ['application/json', 'application/xml']);
    assert.equal(create.requestBody?.value.required, true);
    assert.ok(create.requestBody?.uri.endsWith('components/bodies.yaml'), 'the body remembers the file it came from');
    const get = ops.find((o) => o.id === 'getThing')!;
    assert.deepEqual(get.parameters.map((p) => `${p.in}:${p.name}`), ['path:thingId'], 'path-level parameters from another file apply');
    // The recursive schema is reachable through the resolver, one hop at a time, without expanding it.
    const schema = running.facade.contract.refs.deref<{ properties: { children: { items: unknown } } }>(get.responses['200']!.value.content!['application/json']!.schema, get.responses['200']!.uri);
    const child = running.facade.contract.refs.deref<{ properties: unknown }>(schema.value.properties.children.items, schema.uri);
    assert.equal(child.value, schema.value, 'Thing.children.items is Thing itself');

    assert.deepEqual(await (await fetch(`${running.origin}/split/v1/things`)).json(), { limit: '20' }, 'the default comes from a schema two files away');
    assert.deepEqual(await (await fetch(`${running.origin}/split/v1/things?limit=3`)).json(), { limit: '3' });
    assert.equal(await (await fetch(`${running.origin}/split/v1/things/a%2Fb`)).text(), 'thing a/b');
    const created = await fetch(`${running.origin}/split/v1/things`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id":"x"}' });
    assert.equal(created.status, 201);
    assert.equal(await created.text(), '{"id":"x"}');
    assert.equal((await fetch(`${running.origin}/split/v1/things/1`, { method: 'DELETE' })).status, 204);
  } finally {
    await running.close();
  }
});

test('multi-file corpus contracts: Redocly starter (3.1, dangling x-codeSamples refs tolerated) and DigitalOcean', async () => {
  const redocly = await serve({ specification: join(CORPUS, 'redocly-openapi-starter/openapi/openapi.yaml'), missingOperation: 'ignore', routes: { listMenuItems: (ex: Exchange) => void (ex.message.body = { limit: ex.message.headers.get('limit') }) } });
  try {
    assert.equal(redocly.facade.operations.length, 12);
    assert.ok(redocly.facade.operations.some((o) => o.endpoint === 'direct:getOrderById' && o.path === '/orders/{orderId}'));
    assert.deepEqual(await (await fetch(`${redocly.origin}/menu`)).json(), { limit: '10' }, 'default from components/parameters/Limit.yaml');
  } finally {
    await redocly.close();
  }
  const digitalocean = await load(join(CORPUS, 'digitalocean/specification/DigitalOcean-public.v2.yaml'));
  assert.equal(digitalocean.operations.length, 25, 'the slice kept in test/corpus');
  const account = digitalocean.operations.find((o) => o.path === '/v2/account');
  assert.equal(account?.endpoint, 'direct:account_get', 'an operation that is itself a $ref to another file keeps its operationId');
  assert.ok(account?.operation.source.uri.endsWith('resources/account/account_get.yml'));
});

test('circular schemas load (corpus schema-circular, circular-paths with a ~1 pointer, Kubernetes)', async () => {
  for (const entry of ['readme-oas-examples/3.0/schema-circular.yaml', 'readme-oas-examples/3.0/circular-paths.yaml', 'kubernetes-v3/v3_apiextensions.k8s.io.v1.json']) {
    const facade = await load(join(CORPUS, entry));
    assert.ok(facade.operations.length > 0, entry);
  }
});

test('a $ref chain that loops on itself fails startup naming the ref', async () => {
  const dir = tempDir({
    'loop.yaml': toYaml({ ...minimal('loop'), paths: { '/a': { $ref: '#/x-items/a' } }, 'x-items': { a: { $ref: '#/x-items/b' }, b: { $ref: '#/x-items/a' } } }),
  });
  await assert.rejects(load(join(dir, 'loop.yaml')), (err: SvcError) => err.code === Errors.SPEC_REF_UNRESOLVED.code && /^Cannot resolve \$ref '#\/x-items\/[ab]' used at loop\.yaml#\/x-items\/[ab] \(reached from path \/a\): reference chain is circular$/.test(err.message));
});

test('a relative $ref escaping the contract directory fails startup with a clear message', async () => {
  const dir = tempDir({
    'secret.yaml': 'get:\n  operationId: leak\n  responses: {"200": {description: ok}}\n',
    'contract/openapi.yaml': toYaml({ ...minimal('escape'), paths: { '/leak': { $ref: '../secret.yaml' } } }),
    'contract/params.yaml': toYaml({ id: { name: 'id', in: 'query', schema: { type: 'string' } } }),
    'contract/param-escape.yaml': toYaml({ ...minimal('escape'), paths: { '/p': { get: { operationId: 'p', parameters: [{ $ref: '../../../../../../../etc/passwd#/x' }], responses: { '200': { description: 'ok' } } } } } }),
  });
  await assert.rejects(load(join(dir, 'contract/openapi.yaml')), (err: SvcError) => {
    assert.equal(err.code, Errors.SPEC_REF_UNRESOLVED.code);
    assert.equal(err.message, `Cannot resolve $ref '../secret.yaml' used at openapi.yaml#/paths/~1leak (reached from path /leak): it points outside the contract directory`);
    return true;
  });
  await assert.rejects(load(join(dir, 'contract/param-escape.yaml')), /\/etc\/passwd#\/x' used at param-escape\.yaml#\/paths\/~1p\/get\/parameters\/0 .*it points outside the contract directory/);
});

test('a symlink inside the contract directory cannot carry a relative $ref outside it; one pointing inside is fine', async () => {
  const outside = tempDir({ 'secret.yaml': 'get:\n  operationId: leak\n  responses: {"200": {description: ok}}\n' });
  const dir = tempDir({
    'paths/real.yaml': 'get:\n  operationId: real\n  responses: {"200": {description: ok}}\n',
    'openapi.yaml': toYaml({ ...minimal('links'), paths: { '/leak': { $ref: 'linked/secret.yaml' } } }),
    'inside.yaml': toYaml({ ...minimal('links'), paths: { '/real': { $ref: 'alias/real.yaml' } } }),
  });
  symlinkSync(outside, join(dir, 'linked'));
  symlinkSync(join(dir, 'paths'), join(dir, 'alias'));
  await assert.rejects(load(join(dir, 'openapi.yaml')), /Cannot resolve \$ref 'linked\/secret\.yaml' .*it points outside the contract directory/);
  const facade = await load(join(dir, 'inside.yaml'));
  assert.deepEqual(facade.operations.map((o) => o.operation.id), ['real']);
});

test('absolute refs: a file: URL written in the contract is allowed, a bare absolute path is refused', async () => {
  const shared = tempDir({ 'shared.yaml': toYaml({ item: { get: { operationId: 'shared', responses: { '200': { description: 'ok' } } } } }) });
  const dir = tempDir({
    'ok.yaml': toYaml({ ...minimal('abs'), paths: { '/s': { $ref: `${pathToFileURL(join(shared, 'shared.yaml')).href}#/item` } } }),
    'bare.yaml': toYaml({ ...minimal('abs'), paths: { '/s': { $ref: `${join(shared, 'shared.yaml')}#/item` } } }),
  });
  assert.deepEqual((await load(join(dir, 'ok.yaml'))).operations.map((o) => o.endpoint), ['direct:shared']);
  await assert.rejects(load(join(dir, 'bare.yaml')), /absolute paths must be written as file: URLs/);
});

test('a $ref to a missing file (a stray `%` included) or a missing pointer fails startup naming both', async () => {
  const dir = tempDir({
    'missing-file.yaml': toYaml({ ...minimal('m'), paths: { '/a': { $ref: 'nope.yaml' } } }),
    'missing-pointer.yaml': toYaml({ ...minimal('m'), paths: { '/a': { $ref: '#/components/pathItems/nope' } } }),
    // A stray `%` does not percent-decode: the name is read as written, like a pointer's.
    'stray-percent.yaml': toYaml({ ...minimal('m'), paths: { '/a': { $ref: 'nope%zz.yaml' } } }),
    'percent-named.yaml': toYaml({ ...minimal('m'), paths: { '/a': { $ref: '50%.yaml#/item' } } }),
    '50%.yaml': toYaml({ item: { get: { operationId: 'fifty', responses: { '200': { description: 'ok' } } } } }),
  });
  await assert.rejects(load(join(dir, 'missing-file.yaml')), { message: "Cannot resolve $ref 'nope.yaml' used at missing-file.yaml#/paths/~1a (reached from path /a): file not found" });
  await assert.rejects(load(join(dir, 'stray-percent.yaml')), { message: "Cannot resolve $ref 'nope%zz.yaml' used at stray-percent.yaml#/paths/~1a (reached from path /a): file not found" });
  assert.deepEqual((await load(join(dir, 'percent-named.yaml'))).operations.map((o) => o.operation.id), ['fifty']);
  await assert.rejects(load(join(dir, 'missing-pointer.yaml')), { message: "Cannot resolve $ref '#/components/pathItems/nope' used at missing-pointer.yaml#/paths/~1a (reached from path /a): no value at /components/pathItems/nope" });
});

test('JSON or YAML is decided by content, not by the file extension', async () => {
  const dir = tempDir({
    'petstore-really-json.yaml': petstoreText,
    'yaml-in-disguise.json': toYaml(minimal('yaml')),
    'flow-yaml.json': `{openapi: 3.0.0, info: {title: flow, version: '1'}, paths: {/ping: {get: {operationId: ping, responses: {'200': {description: ok}}}}}}`,
  });
  assert.equal((await load(join(dir, 'petstore-really-json.yaml'))).operations.length, 19);
  assert.equal((await load(join(dir, 'yaml-in-disguise.json'))).operations[0]!.endpoint, 'direct:ping');
  assert.equal((await load(join(dir, 'flow-yaml.json'))).operations[0]!.endpoint, 'direct:ping', 'flow-style YAML starting with a brace');
});

test('an OpenAPI 3.2 contract loads with the 2020-12 schema dialect (OAI tags example)', async () => {
  const running = await serve({ specification: join(CORPUS, 'oai-examples/v3.2/3.2-tags-example.yaml'), missingOperation: 'mock' });
  try {
    assert.equal(running.facade.contract.version, '3.2');
    assert.deepEqual(running.facade.operations.map((o) => `${o.operation.method} ${o.path} ${o.disposition}`), [
      'GET /flights mock',
      'GET /flights/international mock',
      'GET /flights/domestic mock',
      'GET /flights/delayed mock',
    ]);
    for (const op of running.facade.operations) {
      // No responses declared: the mock's answer is an empty 204, the one status that promises nothing.
      const res = await fetch(`${running.origin}${op.path}`);
      assert.deepEqual([res.status, await res.text()], [204, ''], op.path);
    }
  } finally {
    await running.close();
  }
});

test('anything but OpenAPI 3.0/3.1/3.2 fails with "The given OpenApi specification cannot be loaded from: ..."', async () => {
  const dir = tempDir({
    'swagger.json': JSON.stringify({ swagger: '2.0', info: { title: 's', version: '1' }, paths: {} }),
    'no-version.yaml': 'info:\n  title: x\npaths: {}\n',
    'four.yaml': 'openapi: 4.0.0\npaths: {}\n',
    'number.yaml': 'openapi: 3.0\npaths: {}\n',
    'broken.yaml': 'openapi: 3.0.0\npaths: [unclosed\n',
    'list.yaml': '- openapi: 3.0.0\n',
    'bad-paths.yaml': 'openapi: 3.0.0\ninfo: {title: x, version: "1"}\npaths: 12\n',
    'empty.yaml': '',
    'duplicate.yaml': 'openapi: 3.0.0\ninfo: {title: x, version: "1"}\npaths: {}\npaths: {}\n',
  });
  await assertCannotLoad(join(dir, 'swagger.json'), /Version 2\.0 is not supported; only OpenAPI 3\.0, 3\.1 and 3\.2 are\.$/);
  await assertCannotLoad(join(dir, 'four.yaml'), /Version 4\.0\.0 is not supported/);
  await assertCannotLoad(join(dir, 'no-version.yaml'), /It has no openapi field/);
  await assertCannotLoad(join(dir, 'number.yaml'), /only OpenAPI 3\.0, 3\.1 and 3\.2/);
  await assertCannotLoad(join(dir, 'broken.yaml'), /It is neither JSON nor YAML/);
  await assertCannotLoad(join(dir, 'list.yaml'), /no openapi field/);
  await assertCannotLoad(join(dir, 'bad-paths.yaml'), /paths is not an object/);
  await assertCannotLoad(join(dir, 'empty.yaml'), /no openapi field/);
  await assertCannotLoad(join(dir, 'duplicate.yaml'), /It is neither JSON nor YAML: Map keys must be unique \(line 4, column 1\)$/);
  await assertCannotLoad('does-not-exist.yaml', /No such file in the resource roots \(config directory, its src\/main\/resources, the working directory, its src\/main\/resources\)\./);
  await assertCannotLoad(join(dir, 'absent.json'), /No such file/);
  await assertCannotLoad('classpath:absent.json', /No such file/);
});

test('resource roots: config dir, its src/main/resources, the working directory, its src/main/resources, in that order', async () => {
  const spec = (title: string) => JSON.stringify(minimal(title));
  const root = tempDir({
    'conf/both.json': spec('conf'),
    'conf/src/main/resources/both.json': spec('conf resources'),
    'conf/src/main/resources/res-only.json': spec('conf resources'),
    'conf/src/main/resources/res-and-cwd.json': spec('conf resources'),
    'work/res-and-cwd.json': spec('cwd'),
    'work/cwd-only.json': spec('cwd'),
    'work/src/main/resources/cwd-res-only.json': spec('cwd resources'),
    'elsewhere/abs.json': spec('absolute'),
  });
  const conf = join(root, 'conf');
  const previous = process.cwd();
  process.chdir(join(root, 'work'));
  try {
    const title = async (location: string) => ((await load(location, conf)).contract.doc.info as { title: string }).title;
    assert.equal(await title('both.json'), 'conf');
    assert.equal(await title('classpath:both.json'), 'conf');
    assert.equal(await title('classpath:/both.json'), 'conf', 'a leading slash after classpath: is tolerated');
    assert.equal(await title('res-only.json'), 'conf resources');
    assert.equal(await title('classpath:res-and-cwd.json'), 'conf resources', 'the config dir resources come before the working directory');
    assert.equal(await title('cwd-only.json'), 'cwd');
    assert.equal(await title('classpath:cwd-res-only.json'), 'cwd resources');
    assert.equal(await title(join(root, 'elsewhere/abs.json')), 'absolute');
    assert.equal(await title(`file:${join(root, 'elsewhere/abs.json')}`), 'absolute');
    assert.equal(await title(pathToFileURL(join(root, 'elsewhere/abs.json')).href), 'absolute');
    assert.equal(await title('file:cwd-only.json'), 'cwd', 'a relative file: path is relative to the working directory');
    await assertCannotLoad('file:both.json', /No such file/, conf);
  } finally {
    process.chdir(previous);
  }
});

test('duplicate operationIds fail startup naming both operations', async () => {
  const dir = tempDir({
    'dup.yaml': toYaml({
      openapi: '3.0.0',
      info: { title: 'dup', version: '1' },
      paths: {
        '/a': { get: { operationId: 'same', responses: { '200': { description: 'ok' } } } },
        '/b/{id}': { post: { operationId: 'same', parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }], responses: { '200': { description: 'ok' } } } },
      },
    }),
  });
  await assert.rejects(load(join(dir, 'dup.yaml')), (err: SvcError) => {
    assert.equal(err.code, Errors.DUPLICATE_OPERATION_ID.code);
    assert.equal(err.message, 'Duplicate operationId same: GET /a and POST /b/{id}');
    assert.equal(err.exitCode, 1);
    return true;
  });
});

test('a contract without paths, or with only webhooks, loads and serves nothing', async () => {
  const dir = tempDir({ 'nopaths.yaml': 'openapi: 3.1.0\ninfo: {title: x, version: "1"}\n' });
  const facade = await load(join(dir, 'nopaths.yaml'));
  assert.deepEqual(facade.operations, []);
  const webhooks = await load(join(CORPUS, 'apisguru-adyen-marketpay-webhooks-3.1/openapi.yaml'));
  assert.deepEqual(webhooks.operations, []);
  assert.ok(webhooks.startupReport.includes('skipped 19 webhook(s): webhooks are not served'));
});

test('$ref keys inside example values are data, never fetched (GitHub SCIM examples)', async () => {
  const dir = tempDir({
    'examples.yaml': toYaml({
      ...minimal('examples'),
      paths: {
        '/scim': {
          get: {
            operationId: 'scim',
            responses: { '200': { description: 'ok', content: { 'application/json': { example: { $ref: 'https://api.github.com/scim/v2/Users/1' }, examples: { one: { value: { $ref: '../../etc/passwd' } } } } } } },
          },
        },
      },
    }),
  });
  assert.deepEqual((await load(join(dir, 'examples.yaml'))).operations.map((o) => o.endpoint), ['direct:scim']);
});

test('3.1 $id, $anchor, $id#anchor and $id#/pointer refs resolve (a query default reached through each)', async () => {
  const param = (name: string, ref: string) => ({ name, in: 'query', schema: { $ref: ref } });
  const dir = tempDir({
    'ids.yaml': toYaml({
      openapi: '3.1.0',
      info: { title: 'ids', version: '1' },
      paths: {
        '/q': {
          get: {
            operationId: 'q',
            parameters: [param('byId', 'https://example.com/schemas/limit'), param('byAnchor', '#size'), param('byIdAnchor', 'https://example.com/schemas/limit#inner'), param('byIdPointer', 'https://example.com/schemas/limit#/$defs/inner')],
            responses: { '200': { description: 'ok' } },
          },
        },
      },
      components: {
        schemas: {
          Limit: { $id: 'https://example.com/schemas/limit', type: 'integer', default: 25, $defs: { inner: { $anchor: 'inner', type: 'string', default: 'deep' } } },
          Size: { $anchor: 'size', type: 'string', default: 'M' },
        },
      },
    }),
  });
  const running = await serve({ specification: join(dir, 'ids.yaml'), routes: { q: (ex: Exchange) => void (ex.message.body = ['byId', 'byAnchor', 'byIdAnchor', 'byIdPointer'].map((n) => ex.message.headers.get(n))) } });
  try {
    assert.deepEqual(await (await fetch(`${running.origin}/q`)).json(), ['25', 'M', 'deep', 'deep']);
  } finally {
    await running.close();
  }
});

test('an http:// specification is fetched once at startup; a failed fetch or a remote relative ref is a clear error', async () => {
  let fetches = 0;
  const server = createServer((req, res) => {
    fetches++;
    if (req.url === '/petstore.json') res.writeHead(200, { 'content-type': 'application/json' }).end(petstoreText);
    else if (req.url === '/split.yaml') res.writeHead(200).end(toYaml({ ...minimal('remote'), paths: { '/a': { $ref: 'paths/a.yaml' } } }));
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const running = await serve({ specification: `${base}/petstore.json`, missingOperation: 'ignore' });
    try {
      assert.equal(running.facade.contract.uri, `${base}/petstore.json`);
      assert.equal(running.facade.operations.length, 19);
      assert.equal((await fetch(`${running.origin}/api/v3/pet/findByStatus`)).status, 204);
      assert.equal(fetches, 1, 'fetched once, at startup');
    } finally {
      await running.close();
    }
    await assertCannotLoad(`${base}/missing.json`, /Fetching it failed: HTTP 404/);
    await assert.rejects(load(`${base}/split.yaml`), { message: `Cannot resolve $ref 'paths/a.yaml' used at ${base}/split.yaml#/paths/~1a (reached from path /a): remote references are not fetched` });
  } finally {
    server.close();
  }
});
