// Mock files (SPEC §7 step 1) on the Swagger Petstore: Camel's mock scenarios, per-segment matching, the
// path-template file, JSON/XML by negotiation, where the folder comes from, the bundled example, and --dev.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFacade, type Exchange } from '../../lib/index.js';
import { PETSTORE, ROOT, serve, tempDir } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

const PET_444 = '{\n  "id": 444,\n  "name": "Tiger",\n  "status": "available",\n  "photoUrls": ["http://example.com/tiger.jpg"]\n}\n';

/** The Petstore's Pet as the mock synthesizes it: property examples, first enum value, one array item. */
const SYNTHESIZED_PET = { id: 10, name: 'doggie', category: { id: 1, name: 'Dogs' }, photoUrls: ['string'], tags: [{ id: 0, name: 'string' }], status: 'available' };

const inventory = (ex: Exchange) => {
  ex.message.body = { available: 1 };
};

/** The Petstore in mock mode with its config directory `dir`. */
function petstore(dir: string, extra: Record<string, unknown> = {}) {
  return serve({ specification: PETSTORE, missingOperation: 'mock', baseDir: dir, routes: { getInventory: inventory }, ...extra });
}

test('Camel scenario: svc-mock/pet/444.json answers GET /pet/444 with exactly its bytes', async () => {
  const app = await petstore(tempDir({ 'svc-mock/pet/444.json': PET_444 }));
  try {
    const res = await fetch(`${app.origin}/api/v3/pet/444`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(await res.text(), PET_444);
    assert.ok(app.facade.startupReport.includes('GET /api/v3/pet/{petId} -> direct:getPetById [mock]'));
  } finally {
    await app.close();
  }
});

test('Camel scenario: GET /pet/findByTags with no file and no example answers a body synthesized from its schema', async () => {
  const app = await petstore(tempDir({ 'svc-mock/pet/444.json': PET_444 }));
  try {
    const res = await fetch(`${app.origin}/api/v3/pet/findByTags?tags=a`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), [SYNTHESIZED_PET]);
  } finally {
    await app.close();
  }
});

test('Camel scenario: an operation with a route runs its route in mock mode, even when a mock file exists', async () => {
  const app = await petstore(tempDir({ 'svc-mock/store/inventory.json': '{"from":"file"}' }));
  try {
    const res = await fetch(`${app.origin}/api/v3/store/inventory`);
    assert.deepEqual(await res.json(), { available: 1 });
    assert.ok(app.facade.startupReport.includes('GET /api/v3/store/inventory -> direct:getInventory [route]'));
  } finally {
    await app.close();
  }
});

test('matching is per segment: carpet/123.json never answers pet/123 (Camel suffix-match defect)', async () => {
  const app = await petstore(tempDir({ 'svc-mock/carpet/123.json': '{"carpet":true}', 'svc-mock/x/pet/123.json': '{"nested":true}' }));
  try {
    const res = await fetch(`${app.origin}/api/v3/pet/123`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), SYNTHESIZED_PET, 'synthesized, not a file');
  } finally {
    await app.close();
  }
});

test('the exact path file wins over the template file; the template file answers the rest', async () => {
  const app = await petstore(tempDir({ 'svc-mock/pet/5.json': '{"exact":5}', 'svc-mock/pet/{petId}.json': '{"template":true}' }));
  try {
    assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/5`)).json(), { exact: 5 });
    assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/99`)).json(), { template: true });
    // A trailing slash is the same path; the literal operation /pet/findByStatus is not the template's.
    assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/5/`)).json(), { exact: 5 });
    assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/findByStatus`)).json(), [SYNTHESIZED_PET]);
  } finally {
    await app.close();
  }
});

test('.json or .xml by Accept (q-values, q=0), falling back to the other acceptable kind', async () => {
  const app = await petstore(
    tempDir({ 'svc-mock/pet/7.json': '{"id":7}', 'svc-mock/pet/7.xml': '<pet><id>7</id></pet>', 'svc-mock/pet/8.json': '{"id":8}' }),
  );
  try {
    const ask = async (path: string, accept: string) => {
      const res = await fetch(`${app.origin}/api/v3/pet/${path}`, { headers: { accept } });
      return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    };
    assert.deepEqual(await ask('7', 'application/xml'), { status: 200, type: 'application/xml', body: '<pet><id>7</id></pet>' });
    assert.deepEqual(await ask('7', 'application/xml;q=0.2, application/json'), { status: 200, type: 'application/json', body: '{"id":7}' });
    assert.deepEqual(await ask('7', 'application/json;q=0, */*'), { status: 200, type: 'application/xml', body: '<pet><id>7</id></pet>' });
    // Only a JSON file: XML preferred, JSON still acceptable → the JSON file.
    assert.deepEqual(await ask('8', 'application/xml, application/json;q=0.5'), { status: 200, type: 'application/json', body: '{"id":8}' });
    // JSON excluded: the JSON file is not served; the XML body is synthesized from the schema.
    const xml = await ask('8', 'application/xml, application/json;q=0');
    assert.equal(xml.type, 'application/xml');
    assert.match(xml.body, /^<\?xml [^>]*\?><pet><id>10<\/id><name>doggie<\/name>/);
    const noAccept = await rawRequest(app.origin, '/api/v3/pet/7');
    assert.equal(noAccept.headers['content-type'], 'application/json');
  } finally {
    await app.close();
  }
});

test('file bytes go out unchanged (non-UTF-8 too); the folder is indexed and files are read once', async () => {
  const latin1 = Buffer.concat([Buffer.from('<?xml version="1.0" encoding="ISO-8859-1"?><pet><name>'), Buffer.from([0xe9, 0xe8]), Buffer.from('</name></pet>')]);
  const dir = tempDir({ 'svc-mock/pet/1.xml': latin1, 'svc-mock/pet/2.json': '{"version":1}' });
  const app = await petstore(dir);
  try {
    const xml = await fetch(`${app.origin}/api/v3/pet/1`, { headers: { accept: 'application/xml' } });
    assert.deepEqual(Buffer.from(await xml.arrayBuffer()), latin1);
    assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/2`)).json(), { version: 1 });
    writeFileSync(join(dir, 'svc-mock/pet/2.json'), '{"version":2}');
    writeFileSync(join(dir, 'svc-mock/pet/3.json'), '{"added":"after startup"}');
    assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/2`)).json(), { version: 1 });
    assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/3`)).json(), SYNTHESIZED_PET, 'a file added after startup is not seen');
  } finally {
    await app.close();
  }
});

test('Prefer: code= sets the status of a file answer when the contract declares it', async () => {
  const app = await petstore(tempDir({ 'svc-mock/pet/404.json': '{"message":"gone"}' }));
  try {
    const res = await fetch(`${app.origin}/api/v3/pet/404`, { headers: { prefer: 'code=404' } });
    assert.equal(res.status, 404);
    assert.deepEqual(await res.json(), { message: 'gone' });
    assert.equal((await fetch(`${app.origin}/api/v3/pet/404`, { headers: { prefer: 'code=418' } })).status, 200);
  } finally {
    await app.close();
  }
});

test('a POST with a mock file answers the file instead of the echo', async () => {
  const app = await petstore(tempDir({ 'svc-mock/pet.json': '{"created":true}' }));
  try {
    const res = await fetch(`${app.origin}/api/v3/pet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { created: true });
    const put = await fetch(`${app.origin}/api/v3/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    assert.deepEqual(await put.json(), { created: true }, 'the file is per path, for every method');
  } finally {
    await app.close();
  }
});

test('mock folder location: beside the config, else src/main/resources/svc-mock', async () => {
  const beside = tempDir({ 'svc-mock/pet/1.json': '{"from":"beside"}', 'src/main/resources/svc-mock/pet/1.json': '{"from":"resources"}' });
  const resources = tempDir({ 'src/main/resources/svc-mock/pet/1.json': '{"from":"resources"}' });
  for (const [dir, from] of [
    [beside, 'beside'],
    [resources, 'resources'],
  ] as const) {
    const app = await petstore(dir);
    try {
      assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/1`)).json(), { from });
    } finally {
      await app.close();
    }
  }
});

test('mockIncludePattern: classpath:<dir>/**, file:<dir>/**, and a comma-separated list (first folder wins)', async () => {
  const other = tempDir({ 'pet/1.json': '{"from":"file pattern"}', 'pet/2.json': '{"from":"file pattern 2"}' });
  const dir = tempDir({ 'svc-mock/pet/1.json': '{"from":"default"}', 'my-mocks/pet/1.json': '{"from":"classpath pattern"}' });

  const classpath = await petstore(dir, { mockIncludePattern: 'classpath:my-mocks/**' });
  try {
    assert.deepEqual(await (await fetch(`${classpath.origin}/api/v3/pet/1`)).json(), { from: 'classpath pattern' });
  } finally {
    await classpath.close();
  }

  const list = await petstore(dir, { mockIncludePattern: `file:${other}/**, classpath:svc-mock/**` });
  try {
    assert.deepEqual(await (await fetch(`${list.origin}/api/v3/pet/1`)).json(), { from: 'file pattern' });
    assert.deepEqual(await (await fetch(`${list.origin}/api/v3/pet/2`)).json(), { from: 'file pattern 2' });
  } finally {
    await list.close();
  }

  const missing = await petstore(dir, { mockIncludePattern: 'classpath:nowhere/**' });
  try {
    assert.deepEqual(await (await fetch(`${missing.origin}/api/v3/pet/1`)).json(), SYNTHESIZED_PET);
    assert.ok(missing.logger.lines.some((l) => l.startsWith('WARN mockIncludePattern classpath:nowhere/**: no such folder')));
  } finally {
    await missing.close();
  }
});

test('mockIncludePattern with other wildcards fails startup naming the option', async () => {
  await assert.rejects(
    createFacade({ specification: PETSTORE, missingOperation: 'mock', baseDir: tempDir(), mockIncludePattern: 'classpath:svc-mock/*.json' }),
    (err: Error & { code?: string }) => err.code === 'SVC_CONFIG_INVALID' && err.message.includes('mockIncludePattern') && err.message.includes('classpath:svc-mock/*.json'),
  );
});

test('the bundled example (config.yaml): routes run, mocked operations answer from svc-mock/', async () => {
  const app = await serve(join(ROOT, 'config.yaml'));
  try {
    const pet = await fetch(`${app.origin}/api/v3/pet/444`);
    assert.equal((await pet.json() as { id: number }).id, 444, 'getPetById has a route');
    // Validation is on in the demo: a petId that is no integer never reaches the route (which would write {"id": abc}).
    const notAnId = await fetch(`${app.origin}/api/v3/pet/abc`);
    assert.equal(notAnId.status, 400);
    assert.match(await notAnId.text(), /petId/);
    const byStatus = await fetch(`${app.origin}/api/v3/pet/findByStatus?status=available`);
    assert.equal(byStatus.status, 200);
    assert.ok(Array.isArray(await byStatus.json()));
    assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/findByTags?tags=x`)).json(), [SYNTHESIZED_PET]);
    const order = await fetch(`${app.origin}/api/v3/store/order/5`);
    assert.equal(((await order.json()) as { status: string }).status, 'approved', 'from svc-mock/store/order/{orderId}.json');
    const xml = await fetch(`${app.origin}/api/v3/user/user1`, { headers: { accept: 'application/xml' } });
    assert.equal(xml.headers.get('content-type'), 'application/xml');
    assert.match(await xml.text(), /<username>user1<\/username>/);
  } finally {
    await app.close();
  }
});

test('with clientRequestValidation, mocked operations are validated first (400, 406), then mocked', async () => {
  const app = await petstore(tempDir({ 'svc-mock/pet/{petId}.json': '{"template":true}' }), { restConfiguration: { clientRequestValidation: true } });
  try {
    assert.equal((await fetch(`${app.origin}/api/v3/pet/abc`)).status, 400);
    assert.equal((await fetch(`${app.origin}/api/v3/pet/1`, { headers: { accept: 'text/csv' } })).status, 406);
    assert.deepEqual(await (await fetch(`${app.origin}/api/v3/pet/1`)).json(), { template: true });
  } finally {
    await app.close();
  }
});

test('--dev makes mock the default missingOperation', async () => {
  const dir = tempDir({ 'svc-mock/pet/444.json': PET_444 });
  await assert.rejects(createFacade({ specification: PETSTORE, baseDir: dir }), /unmapped operations/);
  const app = await serve({ specification: PETSTORE, baseDir: dir }, { dev: true });
  try {
    assert.equal(await (await fetch(`${app.origin}/api/v3/pet/444`)).text(), PET_444);
    assert.ok(app.facade.operations.every((o) => o.disposition === 'mock'));
  } finally {
    await app.close();
  }
});
