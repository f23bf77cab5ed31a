// Mock bodies synthesized from response schemas (SPEC §7 step 2 without an example): the order of values,
// formats and bounds, structure (allOf, oneOf, discriminator, nullable, readOnly/writeOnly, recursion),
// XML, headers, declared statuses, and dynamic mode with seeds, on contracts written for it. Every body is
// also checked with our response validation.
import { test, before, after } from 'node:test';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { createFacade, silentLogger } from '../../lib/index.js';
import { PETSTORE, serve, tempDir, type Running } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';
import { checkAnswer } from '../fixtures/response-check.js';

const ok = (schema: unknown, type = 'application/json') => ({ '200': { description: 'ok', content: { [type]: { schema } } } });
const get = (operationId: string, responses: unknown) => ({ get: { operationId, responses } });

const CONTRACT = {
  openapi: '3.1.0',
  info: { title: 'synthesis', version: '1' },
  servers: [{ url: '/api' }],
  paths: {
    '/values': get('values', ok({ $ref: '#/components/schemas/Values' })),
    '/formats': get('formats', ok({ $ref: '#/components/schemas/Formats' })),
    '/bounds': get('bounds', ok({ $ref: '#/components/schemas/Bounds' })),
    '/merged': get('merged', {
      ...ok({ allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', required: ['extra'], properties: { extra: { type: 'string', example: 'more' } } }] }),
      '404': { description: 'missing', content: { 'application/json': { schema: { type: 'object', required: ['code'], properties: { code: { type: 'integer', example: 404 } } } } } },
    }),
    '/impossible': get('impossible', ok({ allOf: [{ type: 'string' }, { type: 'integer' }] })),
    '/first-fitting': get('firstFitting', ok({ type: 'object', oneOf: [{ type: 'string' }, { properties: { kind: { const: 'second' } }, required: ['kind'] }] })),
    '/pets': get('pets', ok({ $ref: '#/components/schemas/Pet' })),
    '/lion': get('lion', ok({ $ref: '#/components/schemas/Lion' })),
    '/tiger': get('tiger', ok({ $ref: '#/components/schemas/Tiger' })),
    '/tree': get('tree', ok({ $ref: '#/components/schemas/Node' })),
    '/chain': get('chain', ok({ $ref: '#/components/schemas/Chain' })),
    '/xml': get('xml', ok({ $ref: '#/components/schemas/Item' }, 'application/xml')),
    '/headers': get('headers', {
      '200': {
        description: 'ok',
        headers: {
          'X-Rate-Limit': { schema: { type: 'integer', minimum: 100 } },
          'X-Request-Id': { schema: { type: 'string', format: 'uuid' } },
          'X-Tags': { schema: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
          'Content-Type': { schema: { type: 'string', example: 'not/ours' } },
        },
        content: { 'application/json': { schema: { type: 'object', properties: { fine: { type: 'boolean' } } } } },
      },
    }),
    '/redirect': get('redirect', { '302': { description: 'elsewhere', headers: { Location: { schema: { type: 'string', format: 'uri' } } } } }),
    '/no-content': get('noContent', { '200': { description: 'nothing to say' } }),
    '/patterns': get('patterns', ok({
      type: 'object',
      properties: {
        lookahead: { type: 'string', pattern: '^(?=.*\\d)[a-z\\d]{8}$' },
        backReference: { type: 'string', pattern: '^(\\w)\\1$', example: 'aa' },
        backReferenceNoExample: { type: 'string', pattern: '^(\\w)\\1$' },
      },
    })),
    '/things': {
      post: {
        operationId: 'createThing',
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '201': { description: 'created', content: { 'application/json': { schema: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } } } } } },
      },
    },
  },
  components: {
    schemas: {
      Values: {
        type: 'object',
        required: ['constant'],
        properties: {
          constant: { type: 'string', const: 'fixed', example: 'not this' },
          withExample: { type: 'string', example: 'from example', default: 'not this' },
          withExamples: { type: 'integer', examples: [7, 8] },
          withDefault: { type: 'boolean', default: false },
          withEnum: { type: 'string', enum: ['b', 'a'] },
          badExample: { type: 'integer', minimum: 5, example: 1 },
          onlyNull: { type: 'null' },
          stringOrNull: { type: ['null', 'string'] },
          map: { type: 'object', additionalProperties: { type: 'integer' } },
          labels: { type: 'object', patternProperties: { '^x-[a-z]{2}$': { type: 'string', maxLength: 3 } }, additionalProperties: false },
          secret: { type: 'string', writeOnly: true },
          id: { type: 'integer', readOnly: true },
        },
      },
      Formats: {
        type: 'object',
        properties: Object.fromEntries(['date-time', 'date', 'time', 'uuid', 'email', 'uri', 'hostname', 'ipv4', 'ipv6', 'byte'].map((f) => [f, { type: 'string', format: f }])),
      },
      Bounds: {
        type: 'object',
        properties: {
          int32: { type: 'integer', format: 'int32', minimum: 3 },
          between: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
          multiple: { type: 'integer', minimum: 7, multipleOf: 5 },
          cents: { type: 'number', minimum: 0.07, multipleOf: 0.01 },
          negative: { type: 'integer', maximum: -3 },
          short: { type: 'string', maxLength: 3 },
          long: { type: 'string', minLength: 10 },
          code: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
          list: { type: 'array', items: { type: 'integer' } },
          unique: { type: 'array', minItems: 3, uniqueItems: true, items: { type: 'integer', minimum: 1 } },
          none: { type: 'array', maxItems: 0, items: { type: 'string' } },
        },
      },
      Base: { type: 'object', required: ['id'], properties: { id: { type: 'integer', example: 1 }, name: { type: 'string' } } },
      Pet: {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: { propertyName: 'petType', mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' } },
      },
      Cat: { type: 'object', required: ['petType', 'lives'], properties: { petType: { type: 'string' }, lives: { type: 'integer', minimum: 1, maximum: 9 } } },
      Dog: { type: 'object', required: ['petType', 'bark'], properties: { petType: { type: 'string' }, bark: { type: 'boolean' } } },
      // A base schema's discriminator, inherited through allOf: each subtype names itself.
      Animal: {
        type: 'object',
        required: ['kind'],
        properties: { kind: { type: 'string' } },
        discriminator: { propertyName: 'kind', mapping: { lion: '#/components/schemas/Lion' } },
      },
      Lion: { allOf: [{ $ref: '#/components/schemas/Animal' }, { type: 'object', properties: { roar: { type: 'boolean' } } }] },
      Tiger: { allOf: [{ $ref: '#/components/schemas/Animal' }] },
      Node: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } },
      // Recursion through a required property has no finite instance: it is cut, never endless.
      Chain: { type: 'object', required: ['next'], properties: { next: { $ref: '#/components/schemas/Chain' } } },
      Item: {
        type: 'object',
        xml: { name: 'item' },
        properties: { id: { type: 'integer', xml: { attribute: true } }, tags: { type: 'array', xml: { wrapped: true }, items: { type: 'string', xml: { name: 'tag' } } } },
      },
    },
  },
};

let app: Running;
let dir: string;

before(async () => {
  dir = tempDir({ 'contract.json': JSON.stringify(CONTRACT) });
  app = await serve({ specification: 'contract.json', missingOperation: 'mock', baseDir: dir });
});
after(() => app.close());

/** GET (or another method) through the facade; the answer must conform to the contract. */
async function call(path: string, headers: Record<string, string | string[]> = {}, method = 'GET', running = app) {
  const res = await rawRequest(running.origin, `/api${path}`, { method, headers: { accept: 'application/json, application/xml;q=0.5', ...headers } });
  const served = running.facade.operations.find((o) => o.path === `/api${path}` && o.operation.method === method)!;
  const check = checkAnswer(running.facade.contract, served.operation, res.status, res.headers['content-type'], res.body);
  assert.ok(check.response !== undefined, `${path}: status ${res.status} is declared`);
  assert.deepEqual(check.violations, [], `${path}: ${res.body}`);
  return res;
}
const json = async (path: string, headers: Record<string, string | string[]> = {}) => JSON.parse((await call(path, headers)).body);

test('the Petstore GET /api/v3/pet/1 answers 200 with a Pet made of its property examples (issue 9)', async () => {
  const petstore = await serve({ specification: PETSTORE, missingOperation: 'mock', baseDir: tempDir() });
  try {
    const res = await fetch(`${petstore.origin}/api/v3/pet/1`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.deepEqual(await res.json(), { id: 10, name: 'doggie', category: { id: 1, name: 'Dogs' }, photoUrls: ['string'], tags: [{ id: 0, name: 'string' }], status: 'available' });
    const xml = await fetch(`${petstore.origin}/api/v3/pet/1`, { headers: { accept: 'application/xml' } });
    assert.equal(
      await xml.text(),
      '<?xml version="1.0" encoding="UTF-8"?><pet><id>10</id><name>doggie</name><category><id>1</id><name>Dogs</name></category><photoUrls><photoUrl>string</photoUrl></photoUrls><tags><tag><id>0</id><name>string</name></tag></tags><status>available</status></pet>',
    );
  } finally {
    await petstore.close();
  }
});

test('values: const, example, examples[0], default, first enum; an example contradicting its schema is skipped', async () => {
  assert.deepEqual(await json('/values'), {
    constant: 'fixed',
    withExample: 'from example',
    withExamples: 7,
    withDefault: false,
    withEnum: 'b',
    badExample: 5,
    onlyNull: null,
    stringOrNull: 'string',
    map: { additionalProp1: 0 },
    labels: { 'x-aa': 'str' },
    id: 0,
  });
});

test('formats get valid samples', async () => {
  assert.deepEqual(await json('/formats'), {
    'date-time': '2024-01-01T12:00:00Z',
    date: '2024-01-01',
    time: '12:00:00Z',
    uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
    email: 'user@example.com',
    uri: 'https://example.com/',
    hostname: 'example.com',
    ipv4: '192.0.2.1',
    ipv6: '2001:db8::1',
    byte: 'c3RyaW5n',
  });
});

test('bounds, exclusive bounds, multipleOf, lengths, pattern, item counts and uniqueItems are honoured', async () => {
  const body = await json('/bounds');
  assert.equal(body.int32, 3);
  assert.equal(body.between, 0.5);
  assert.equal(body.multiple, 10);
  assert.equal(body.cents, 0.08, '0.07 / 0.01 is 7.000000000000001 in floating point, so 0.07 fails multipleOf');
  assert.equal(body.negative, -3);
  assert.equal(body.short, 'str');
  assert.equal(body.long, 'stringxxxx');
  assert.equal(body.code, 'AAA-0000');
  assert.deepEqual(body.list, [0]);
  assert.equal(body.unique.length, 3);
  assert.equal(new Set(body.unique).size, 3);
  assert.deepEqual(body.none, []);
});

test('allOf is merged; oneOf takes the first branch that fits; a discriminator gets its mapping value', async () => {
  assert.deepEqual(await json('/merged'), { id: 1, name: 'string', extra: 'more' });
  assert.deepEqual(await json('/first-fitting'), { kind: 'second' });
  assert.deepEqual(await json('/pets'), { petType: 'cat', lives: 1 });
  assert.deepEqual(await json('/lion'), { kind: 'lion', roar: true }, 'the mapping key naming the subtype');
  assert.deepEqual(await json('/tiger'), { kind: 'Tiger' }, 'the component name');
});

test('Prefer: code= picks a declared response without example: its body is synthesized too', async () => {
  const res = await call('/merged', { prefer: 'code=404' });
  assert.equal(res.status, 404);
  assert.deepEqual(JSON.parse(res.body), { code: 404 });
});

test('a schema that admits no value answers a 500 problem naming the operation, never an undeclared empty 204', async () => {
  const res = await rawRequest(app.origin, '/api/impossible', { headers: { accept: 'application/json' } });
  assert.equal(res.status, 500);
  assert.equal(res.headers['content-type'], 'application/problem+json');
  assert.match(JSON.parse(res.body).detail, /^The mock can make no body for GET \/impossible in application\/json: /);
  assert.ok(app.logger.lines.some((l) => l.startsWith('ERROR GET /impossible (direct:impossible) failed')), app.logger.lines.join('\n'));
});

test('recursion is cut at a small depth without breaking required properties', async () => {
  let node = await json('/tree');
  let depth = 0;
  for (; node.children?.length > 0; depth++) {
    assert.equal(typeof node.name, 'string');
    node = node.children[0];
  }
  assert.ok(depth >= 2 && depth <= 8, `depth ${depth}`);
  assert.equal(typeof node.name, 'string', 'the innermost node keeps its required name');

  const res = await rawRequest(app.origin, '/api/chain', { headers: { accept: 'application/json' } });
  assert.equal(res.status, 200);
  let chain = JSON.parse(res.body);
  let links = 0;
  for (; chain.next !== undefined; links++) chain = chain.next;
  assert.ok(links > 5 && links < 64, `${links} links`);
});

test('XML media types are written by the codec with the schema xml hints', async () => {
  const res = await call('/xml');
  assert.equal(res.headers['content-type'], 'application/xml');
  assert.equal(res.body, '<?xml version="1.0" encoding="UTF-8"?><item id="0"><tags><tag>string</tag></tags></item>');
});

test('declared response headers get synthesized values; Content-Type stays the body type', async () => {
  const res = await call('/headers');
  assert.equal(res.headers['x-rate-limit'], '100');
  assert.equal(res.headers['x-request-id'], '3fa85f64-5717-4562-b3fc-2c963f66afa6');
  assert.equal(res.headers['x-tags'], 'a');
  assert.equal(res.headers['content-type'], 'application/json');
  const dynamic = await call('/headers', { prefer: 'dynamic=true' });
  assert.match(String(dynamic.headers['x-request-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.ok(Number(dynamic.headers['x-rate-limit']) >= 100);
});

test('only declared statuses: a GET declaring just 302 answers 302 with its headers; a 200 without content is empty', async () => {
  const redirect = await call('/redirect');
  assert.equal(redirect.status, 302);
  assert.equal(redirect.headers.location, 'https://example.com/');
  const empty = await call('/no-content');
  assert.equal(empty.status, 200);
  assert.equal(empty.body, '');
});

test('patterns: lookaheads are satisfied; a back-reference gets the example, else (optional) is left out, and one note', async () => {
  const res = await rawRequest(app.origin, '/api/patterns', { headers: { accept: 'application/json' } });
  const body = JSON.parse(res.body);
  assert.match(body.lookahead, /^(?=.*\d)[a-z\d]{8}$/);
  assert.equal(body.backReference, 'aa');
  // No string can be generated for it and validation would refuse a plain one: the body stays valid without it.
  assert.equal(Object.hasOwn(body, 'backReferenceNoExample'), false);
  await rawRequest(app.origin, '/api/patterns', { headers: { prefer: 'dynamic=true' } });
  const notes = app.logger.lines.filter((l) => l.includes('no string matching pattern "^(\\\\w)\\\\1$"'));
  assert.equal(notes.length, 1, app.logger.lines.join('\n'));
  assert.match(notes[0]!, /^WARN mock: .*\(it uses back-references\)/);
});

test('the static body is made once and kept: the same bytes on every request', async () => {
  const first = await call('/bounds');
  const second = await call('/bounds');
  assert.equal(second.body, first.body);
});

test('Prefer: dynamic=true makes fresh valid data per request; seed= repeats it, also after a restart', async () => {
  const bodies = new Set<string>();
  for (let i = 0; i < 5; i++) bodies.add((await call('/formats', { prefer: 'dynamic=true' })).body);
  assert.equal(bodies.size, 5, 'five different bodies');

  const seeded = (await call('/bounds', { prefer: 'dynamic=true, seed=42' })).body;
  assert.equal((await call('/bounds', { prefer: 'dynamic=true,seed="42"' })).body, seeded);
  assert.notEqual((await call('/bounds', { prefer: 'dynamic=true, seed=43' })).body, seeded);

  const restarted = await serve({ specification: 'contract.json', missingOperation: 'mock', baseDir: dir });
  try {
    assert.equal((await call('/bounds', { prefer: 'dynamic=true, seed=42' }, 'GET', restarted)).body, seeded);
  } finally {
    await restarted.close();
  }
});

test('dynamic mode varies discriminated branches and stays within every bound', async () => {
  const kinds = new Set<string>();
  const codes = new Set<string>();
  for (let seed = 0; seed < 20; seed++) {
    kinds.add((await json('/pets', { prefer: `dynamic=true, seed=${seed}` })).petType);
    // `json` checks every body against the schema; optional properties come and go in dynamic mode.
    const bounds = await json('/bounds', { prefer: `dynamic=true, seed=${seed}` });
    if (bounds.code !== undefined) codes.add(bounds.code);
  }
  assert.deepEqual([...kinds].sort(), ['cat', 'dog']);
  assert.ok(codes.size > 5, `varied pattern strings: ${[...codes].join(' ')}`);
});

test('Prefer preferences: several Prefer headers form one list; dynamic=false keeps the static body', async () => {
  const twoHeaders = await call('/bounds', { prefer: ['dynamic=true', 'seed=42'] });
  assert.equal(twoHeaders.body, (await call('/bounds', { prefer: 'dynamic=true, seed=42' })).body);
  assert.equal((await call('/bounds', { prefer: 'dynamic=false, seed=42' })).body, (await call('/bounds')).body);
});

test('Prefer: dynamic=true on a POST answers the declared response instead of the echo', async () => {
  const res = await call('/things', { prefer: 'dynamic=true', 'content-type': 'application/json' }, 'POST');
  assert.equal(res.status, 201);
  assert.match(JSON.parse(res.body).id, /^[0-9a-f-]{36}$/);
  // Without Prefer a body valid against the 201 schema is echoed as sent; one that is not gets the static body.
  const sent = '{ "id": "7d444840-9dc0-11d1-b245-5ffdce74fad2", "kept": 1 }';
  const echo = await rawRequest(app.origin, '/api/things', { method: 'POST', headers: { 'content-type': 'application/json' }, body: sent });
  assert.equal(echo.status, 201);
  assert.equal(echo.body, sent);
  const invalid = await rawRequest(app.origin, '/api/things', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"kept":1}' });
  assert.equal(invalid.status, 201);
  assert.equal(invalid.body, (await call('/things', { 'content-type': 'application/json' }, 'POST')).body);
  assert.match(JSON.parse(invalid.body).id, /^[0-9a-f-]{36}$/);
});

test('mockDynamic: true makes dynamic the default; Prefer: dynamic=false asks for the static body', async () => {
  const dynamic = await serve({ specification: 'contract.json', missingOperation: 'mock', baseDir: dir, mockDynamic: true });
  try {
    const a = await call('/formats', {}, 'GET', dynamic);
    const b = await call('/formats', {}, 'GET', dynamic);
    assert.notEqual(a.body, b.body);
    assert.equal((await call('/formats', { prefer: 'dynamic=false' }, 'GET', dynamic)).body, (await call('/formats')).body);
  } finally {
    await dynamic.close();
  }
});

test('mockDynamic is an option of every surface: YAML, properties, XML, environment; a bad value fails startup naming it', async () => {
  const yamlDir = tempDir({
    'contract.json': JSON.stringify(CONTRACT),
    'config.yaml': '- rest:\n    openApi:\n      specification: contract.json\n      missingOperation: mock\n      mockDynamic: true\n',
    'app.properties': 'svc.rest.openApi.specification=contract.json\nsvc.rest.openApi.missingOperation=mock\nsvc.rest.openApi.mock-dynamic=true\n',
    'config.xml': '<svc><rest><openApi specification="contract.json" missingOperation="mock" mockDynamic="true"/></rest></svc>',
  });
  for (const file of ['config.yaml', 'app.properties', 'config.xml']) {
    const running = await serve(`${yamlDir}/${file}`, { env: {} });
    try {
      assert.notEqual((await call('/formats', {}, 'GET', running)).body, (await call('/formats', {}, 'GET', running)).body, file);
    } finally {
      await running.close();
    }
  }
  const fromEnv = await serve(`${yamlDir}/config.yaml`, { env: { SVC_REST_OPENAPI_MOCKDYNAMIC: 'false' } });
  try {
    assert.equal((await call('/formats', {}, 'GET', fromEnv)).body, (await call('/formats')).body, 'the environment turns it off again');
  } finally {
    await fromEnv.close();
  }
  await assert.rejects(
    createFacade({ specification: 'contract.json', baseDir: dir, missingOperation: 'mock', mockDynamic: 'sometimes' as unknown as boolean }, { logger: silentLogger }),
    (err: Error & { code?: string }) => err.code === 'SVC_CONFIG_INVALID' && err.message.includes('mockDynamic') && err.message.includes('sometimes'),
  );
});

test('OpenAPI 3.0: nullable and boolean exclusive bounds', async () => {
  const contract = {
    openapi: '3.0.3',
    info: { title: 'thirty', version: '1' },
    paths: {
      '/n': get('n', ok({ type: 'object', properties: { maybe: { type: 'string', nullable: true }, above: { type: 'integer', minimum: 5, exclusiveMinimum: true } } })),
    },
  };
  const thirty = await serve({ specification: 'c.json', missingOperation: 'mock', baseDir: tempDir({ 'c.json': JSON.stringify(contract) }) });
  try {
    const res = await rawRequest(thirty.origin, '/n');
    assert.deepEqual(JSON.parse(res.body), { maybe: 'string', above: 6 });
  } finally {
    await thirty.close();
  }
});

test('a huge minItems does not make the mock build a huge body: arrays stop at the budget, with a note', async () => {
  const running = await serve({
    specification: join(tempDir({ 'c.json': JSON.stringify({ openapi: '3.0.3', info: { title: 'big', version: '1' }, paths: { '/many': get('many', ok({ type: 'array', minItems: 100_000_000, items: { type: 'integer' } })) } }) }), 'c.json'),
    missingOperation: 'mock',
  });
  try {
    const res = await fetch(`${running.origin}/many`);
    assert.equal(res.status, 200);
    const body = (await res.json()) as unknown[];
    assert.ok(body.length > 0 && body.length <= 1500, String(body.length));
    assert.ok(running.logger.lines.some((l) => /^WARN mock: minItems 100000000 is more than 1500 items/.test(l)), running.logger.lines.join('\n'));
  } finally {
    await running.close();
  }
});
