// Schema dialects and keywords through real HTTP: OpenAPI 3.0 rules (nullable, readOnly, boolean exclusive
// bounds, $ref siblings ignored), 3.1 (type arrays, const, prefixItems, $ref siblings, unevaluated*),
// recursive schemas, $refs across files, discriminators, unknown formats and uncompilable schemas.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CORPUS } from '../helpers.js';
import { call, json, serveContract, serveFile, where } from './fixtures.js';

const info = { title: 't', version: '1' };
/** A contract with one `POST /things` whose JSON body has `schema`, and optional components. */
function bodyContract(version: '3.0.3' | '3.1.0', schema: object, schemas: object = {}): object {
  return {
    openapi: version,
    info,
    paths: {
      '/things': {
        post: {
          operationId: 'postThing',
          requestBody: { required: true, content: { 'application/json': { schema } } },
          responses: { '204': { description: 'none' } },
        },
      },
    },
    components: { schemas },
  };
}

/** Sends each body and returns the statuses, in order. */
async function statuses(doc: object, bodies: unknown[]): Promise<number[]> {
  const r = await serveContract(doc);
  try {
    const out: number[] = [];
    for (const body of bodies) out.push((await call(r, 'POST', '/things', json(body))).status);
    return out;
  } finally {
    await r.close();
  }
}

test('3.0 nullable: null is allowed besides the type, in enums, and around composed schemas', async () => {
  const doc = bodyContract('3.0.3', {
    type: 'object',
    properties: {
      a: { type: 'string', nullable: true },
      b: { type: 'string', enum: ['x'], nullable: true },
      c: { nullable: true, allOf: [{ $ref: '#/components/schemas/Id' }] },
      d: { type: 'integer' },
    },
  }, { Id: { type: 'integer' } });
  assert.deepEqual(await statuses(doc, [{ a: null, b: null, c: null }, { a: 's', b: 'x', c: 3 }, { d: null }, { b: 'y' }, { c: 'x' }]), [200, 200, 400, 400, 400]);
});

test('3.0 readOnly properties are not required in requests (writeOnly ones are)', async () => {
  const doc = bodyContract('3.0.3', { $ref: '#/components/schemas/User' }, {
    User: {
      type: 'object',
      required: ['id', 'name', 'password'],
      properties: { id: { $ref: '#/components/schemas/Id' }, name: { type: 'string' }, password: { type: 'string', writeOnly: true } },
    },
    Id: { type: 'integer', readOnly: true },
  });
  assert.deepEqual(await statuses(doc, [{ name: 'n', password: 'p' }, { id: 1, name: 'n', password: 'p' }, { id: 1, name: 'n' }]), [200, 200, 400]);
});

test('3.0 boolean exclusiveMinimum/Maximum and $ref siblings ignored', async () => {
  const doc = bodyContract('3.0.3', {
    type: 'object',
    properties: {
      n: { type: 'number', minimum: 0, exclusiveMinimum: true, maximum: 10, exclusiveMaximum: false },
      r: { $ref: '#/components/schemas/Small', maximum: 1 },
    },
  }, { Small: { type: 'integer', maximum: 5 } });
  assert.deepEqual(await statuses(doc, [{ n: 0.1, r: 5 }, { n: 10 }, { n: 0 }, { r: 6 }]), [200, 200, 400, 400]);
});

test('3.1: type arrays, const, prefixItems, numeric exclusiveMinimum; nullable means nothing', async () => {
  const doc = bodyContract('3.1.0', {
    type: 'object',
    properties: {
      t: { type: ['string', 'null'] },
      k: { const: 'fixed' },
      p: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'string' }], items: false },
      e: { type: 'number', exclusiveMinimum: 0 },
      n: { type: 'string', nullable: true },
    },
  });
  const bodies = [{ t: null, k: 'fixed', p: [1, 'a'], e: 0.5 }, { t: 1 }, { k: 'other' }, { p: ['a', 1] }, { p: [1, 'a', 'extra'] }, { e: 0 }, { n: null }];
  assert.deepEqual(await statuses(doc, bodies), [200, 400, 400, 400, 400, 400, 400]);
});

test('3.1: $ref siblings apply, and unevaluatedProperties beside a $ref sees what it evaluated', async () => {
  const doc = bodyContract('3.1.0', { $ref: '#/components/schemas/Base', unevaluatedProperties: false, required: ['extra'], properties: { extra: { type: 'boolean' } } }, {
    Base: { type: 'object', properties: { id: { type: 'integer' } } },
  });
  assert.deepEqual(await statuses(doc, [{ id: 1, extra: true }, { id: 1 }, { id: 1, extra: true, stray: 1 }, { id: 'x', extra: true }]), [200, 400, 400, 400]);
});

test('a recursive schema validates at every depth', async () => {
  const doc = bodyContract('3.0.3', { $ref: '#/components/schemas/Tree' }, {
    Tree: { type: 'object', required: ['value'], properties: { value: { type: 'integer' }, children: { type: 'array', items: { $ref: '#/components/schemas/Tree' } } } },
  });
  const deep = (n: number, leaf: unknown): unknown => (n === 0 ? { value: leaf } : { value: n, children: [deep(n - 1, leaf)] });
  const r = await serveContract(doc);
  try {
    assert.equal((await call(r, 'POST', '/things', json(deep(50, 1)))).status, 200);
    const bad = await call(r, 'POST', '/things', json(deep(3, 'x')));
    assert.equal(bad.status, 400);
    assert.deepEqual(where(bad), ['body:value /children/0/children/0/children/0/value']);
    // Deeper than the stack: a 400, not a crash.
    const nested = `${'{"value":1,"children":['.repeat(20000)}{"value":1}${']}'.repeat(20000)}`;
    const tooDeep = await call(r, 'POST', '/things', { body: nested, headers: { 'content-type': 'application/json' } });
    assert.equal(tooDeep.status, 400);
    assert.deepEqual(tooDeep.body.errors, [{ in: 'body', name: '', pointer: '', message: 'nests too deeply to be checked' }]);
  } finally {
    await r.close();
  }
});

test('an empty enum allows no value: the property may be left out, never sent (Discord\'s join-request action)', async () => {
  const schema = { type: 'object', properties: { action: { type: 'string', enum: [] }, reason: { type: 'string' } } };
  assert.deepEqual(await statuses(bodyContract('3.1.0', schema), [{}, { reason: 'r' }, { action: 'APPROVED' }, { action: '' }]), [200, 200, 400, 400]);
  assert.deepEqual(await statuses(bodyContract('3.0.3', schema), [{ reason: 'r' }, { action: 'APPROVED' }]), [200, 400]);
  const nullable = { type: 'object', properties: { action: { type: 'string', enum: [], nullable: true } } };
  assert.deepEqual(await statuses(bodyContract('3.0.3', nullable), [{ action: null }, { action: 'x' }]), [200, 400], '3.0 nullable: null still allowed');
});

test('the corpus\' circular schemas load and validate: valid bodies pass at any depth, a wrong value deep in the cycle is named by its pointer', async () => {
  const r = await serveFile(join(CORPUS, 'readme-oas-examples/3.0/schema-circular.yaml'), { missingOperation: 'mock' });
  try {
    assert.deepEqual(r.facade.operations.map((op) => `${op.operation.method} ${op.path}`), ['PUT /nestedTest', 'PUT /circular', 'POST /not-quite-circular']);
    // ZoneRules → transitions → ZoneOffsetTransition → offsetBefore → ZoneOffset → rules → ZoneRules, twice round.
    const zone = (id: unknown) => ({ rules: { transitions: [{ offsetBefore: { id: 'a', rules: { transitions: [{ offsetAfter: { id, rules: { transitions: [] } } }] } }, dateTimeAfter: '2020-01-01T00:00:00Z' }] } });
    assert.equal((await call(r, 'POST', '/not-quite-circular', json(zone('b')))).status, 200);
    const deep = await call(r, 'POST', '/not-quite-circular', json(zone(5)));
    assert.equal(deep.status, 400);
    assert.deepEqual(where(deep), ['body:id /rules/transitions/0/offsetBefore/rules/transitions/0/offsetAfter/id']);
    const date = await call(r, 'POST', '/not-quite-circular', json({ rules: { transitions: [{ dateTimeAfter: 'yesterday' }] } }));
    assert.deepEqual(where(date), ['body:dateTimeAfter /rules/transitions/0/dateTimeAfter']);

    const nested = (leaf: unknown) => ({ foo: 'f', arr: [[[[[[[[[leaf]]]]]]]]] });
    assert.equal((await call(r, 'PUT', '/nestedTest', json(nested('s')))).status, 200);
    assert.deepEqual(where(await call(r, 'PUT', '/nestedTest', json(nested(1)))), ['body:0 /arr/0/0/0/0/0/0/0/0/0']);

    // The multipart operation whose `file` part reaches MultiPart → parent → MultiPart (its Authorization
    // header parameter is one OpenAPI says to ignore): a text part is accepted, a text `file` is not an object.
    const multipart = (name: string) => ({ body: `--b\r\ncontent-disposition: form-data; name="${name}"\r\n\r\nx\r\n--b--\r\n`, headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    assert.equal((await call(r, 'PUT', '/circular', multipart('typename'))).status, 200);
    const file = await call(r, 'PUT', '/circular', multipart('file'));
    assert.deepEqual([file.status, where(file)], [400, ['body:file /file']]);
  } finally {
    await r.close();
  }
});

test('$refs into another file resolve, and refs inside that file resolve against it', async () => {
  const doc = bodyContract('3.0.3', { $ref: 'models/pet.yaml#/Pet' });
  const files = {
    'models/pet.yaml': 'Pet:\n  type: object\n  required: [name, owner]\n  properties:\n    name: {type: string}\n    owner: {$ref: "./people.yaml#/Person"}\n',
    'models/people.yaml': 'Person:\n  type: object\n  required: [age]\n  properties:\n    age: {type: integer, minimum: 0}\n',
  };
  const r = await serveContract(doc, { files });
  try {
    assert.equal((await call(r, 'POST', '/things', json({ name: 'rex', owner: { age: 3 } }))).status, 200);
    const bad = await call(r, 'POST', '/things', json({ name: 'rex', owner: { age: -1 } }));
    assert.deepEqual(where(bad), ['body:age /owner/age']);
  } finally {
    await r.close();
  }
});

test('discriminator: the mapping picks the branch (plain oneOf would match both); unknown values are named', async () => {
  const r = await serveFile(join(CORPUS, 'readme-oas-examples/3.0/discriminators.yaml'));
  try {
    const send = (path: string, body: unknown) => call(r, 'PATCH', `/anything${path}`, json(body));
    assert.equal((await send('/discriminator-with-mapping', { discrim: 'Option One', optionone: 1 })).status, 200);
    const wrong = await send('/discriminator-with-mapping', { discrim: 'Option One', optionone: 'x' });
    assert.equal(wrong.status, 400);
    assert.deepEqual(where(wrong), ['body:optionone /optionone'], 'only the picked branch reports');
    const unknown = await send('/discriminator-with-mapping', { discrim: 'Option Three' });
    assert.deepEqual(where(unknown), ['body:discrim /discrim']);
    assert.match(unknown.body.errors[0].message, /"Option One", "Option Two"/);
    const missing = await send('/discriminator-with-mapping', { optionone: 1 });
    assert.deepEqual(where(missing), ['body:discrim /discrim']);
    // No mapping: the schema names are the values.
    assert.equal((await send('/discriminator-with-no-mapping', { discrim: 'OptionTwoNoDisc', optiontwo: 'y' })).status, 200);
    assert.equal((await send('/discriminator-with-no-mapping', { discrim: 'OptionTwoNoDisc', optiontwo: 2 })).status, 400);
    // Bare schema names in the mapping.
    assert.equal((await send('/mapping-of-schema-names', { discrim: 'Option Two', optiontwo: 'y' })).status, 200);
    // Several values for one schema.
    assert.equal((await send('/mapping-with-duplicate-schemas', { discrimValue: 'oneB', discrim: 'd', optionone: 2 })).status, 200);
    assert.equal((await send('/mapping-with-duplicate-schemas', { discrimValue: 'twoA', discrim: 'd', optiontwo: 2 })).status, 400);
  } finally {
    await r.close();
  }
});

test('discriminator: without a mapping, a branch\'s schema name is its $ref\'s last token, percent-decoded and unescaped', async () => {
  const branch = (prop: string) => ({ type: 'object', required: ['kind', prop], properties: { kind: { type: 'string' }, [prop]: { type: 'integer' } } });
  const schema = { oneOf: [{ $ref: '#/components/schemas/a~1b' }, { $ref: '#/components/schemas/c%20d~0' }, { $ref: '#/components/schemas/50%' }], discriminator: { propertyName: 'kind' } };
  const doc = bodyContract('3.0.3', schema, { 'a/b': branch('x'), 'c d~': branch('y'), '50%': branch('z') });
  // Each value picks its branch only; a branch's value with another's property fails, and so does the escaped
  // spelling, which names no schema. A token that does not percent-decode is the name as written, as the
  // resolver reads it.
  const bodies = [{ kind: 'a/b', x: 1 }, { kind: 'c d~', y: 1 }, { kind: '50%', z: 1 }, { kind: 'a/b', y: 1 }, { kind: 'c d~', x: 1 }, { kind: '50%', x: 1 }, { kind: 'a~1b', x: 1 }];
  assert.deepEqual(await statuses(doc, bodies), [200, 200, 200, 400, 400, 400, 400]);
});

test('discriminator: one embedded in the branches\' allOf base dispatches too; a misplaced one is ignored', async () => {
  const r = await serveFile(join(CORPUS, 'readme-oas-examples/3.0/discriminators.yaml'));
  try {
    const embedded = r.facade.operations.find((o) => o.operation.path === '/embedded-discriminator')!;
    const send = (body: unknown) => call(r, embedded.operation.method, embedded.path, json(body));
    const cat = await send({ pet_type: 'Cat', hunts: true, age: 3 });
    assert.equal(cat.status, 200, JSON.stringify(cat.body));
    const dog = await send({ pet_type: 'Dog', breed: 'Poodle' });
    assert.equal(dog.status, 400);
    assert.deepEqual(where(dog), ['body:breed /breed']);
    // The discriminator names a property its branches do not have: plain oneOf semantics, no crash.
    const misplaced = await call(r, 'PATCH', '/anything/improper-discriminator-placement', json({ connector_type: 's3Import' }));
    assert.equal(misplaced.status, 200);
  } finally {
    await r.close();
  }
});

test('unknown formats are accepted (warned once); known ones are checked', async () => {
  const doc = bodyContract('3.0.3', { type: 'object', properties: { a: { type: 'string', format: 'acme-id' }, b: { type: 'string', format: 'email' }, c: { type: 'integer', format: 'int32' } } });
  const r = await serveContract(doc);
  try {
    assert.equal((await call(r, 'POST', '/things', json({ a: 'anything', b: 'a@b.example', c: 5 }))).status, 200);
    assert.equal((await call(r, 'POST', '/things', json({ a: 'again' }))).status, 200);
    const bad = await call(r, 'POST', '/things', json({ b: 'not an email', c: 2 ** 40 }));
    assert.deepEqual(where(bad).sort(), ['body:b /b', 'body:c /c']);
    assert.equal(r.logger.lines.filter((l) => l.includes('unknown format "acme-id"')).length, 1);
  } finally {
    await r.close();
  }
});

test('a schema ajv cannot compile never lets a request through: 500 problem, one ERROR line, a metric; other operations are unaffected', async () => {
  // ajv refuses a bound that is no number, and a pattern that is no regular expression (even without the u flag).
  for (const broken of [{ type: 'number', minimum: 'zero' }, { type: 'string', pattern: '([a-z' }]) {
    const doc = bodyContract('3.0.3', { type: 'object', properties: { n: broken } }) as { paths: Record<string, unknown> };
    doc.paths['/other'] = { post: { operationId: 'postOther', requestBody: { content: { 'application/json': { schema: { type: 'object', required: ['a'] } } } }, responses: { '204': { description: 'none' } } } };
    const r = await serveContract(doc);
    try {
      for (const body of [{ n: 'invalid whatever the schema says' }, { n: 1 }, {}]) {
        const res = await call(r, 'POST', '/things', json(body));
        assert.equal(res.status, 500, `${JSON.stringify(broken)}: ${JSON.stringify(body)}`);
        assert.equal(res.type, 'application/problem+json');
        assert.equal(res.body.detail, 'A schema of the contract for this operation cannot be compiled, so the request is refused rather than passed unchecked.');
        assert.doesNotMatch(JSON.stringify(res.body), /zero|\(\[a-z|ajv|at /, 'the client is not told the contract internals or a stack');
      }
      assert.equal((await call(r, 'POST', '/things', { body: '{', headers: { 'content-type': 'application/json' } })).status, 400, 'a body that is no JSON is still a 400');
      assert.equal((await call(r, 'POST', '/other', json({}))).status, 400, 'other operations validate as before');
      assert.equal((await call(r, 'POST', '/other', json({ a: 1 }))).status, 200);
      const compileErrors = r.logger.lines.filter((l) => l.startsWith('ERROR validation: POST /things request application/json: the schema cannot be compiled'));
      assert.equal(compileErrors.length, 1, r.logger.lines.join('\n'));
      assert.match(compileErrors[0]!, broken.minimum ? /minimum/ : /pattern "\(\[a-z": it is not a valid regular expression/);
      const metrics = await call(r, 'GET', '/observe/metrics');
      assert.match(metrics.body, /^svc_validation_uncompilable_total\{operationId="postThing",method="POST"\} 3$/m);
      assert.match(metrics.body, /^svc_validation_rejections_total\{operationId="postThing",method="POST"\} 1$/m, 'the invalid JSON is a rejection, the 500s are not');
    } finally {
      await r.close();
    }
  }
});

test('a parameter schema ajv cannot compile refuses the request too (500), valid value or not', async () => {
  const doc = {
    openapi: '3.0.3',
    info,
    paths: { '/things': { get: { operationId: 'getThings', parameters: [{ name: 'q', in: 'query', schema: { type: 'string', pattern: '(?<' } }], responses: { '200': { description: 'ok' } } } } },
  };
  const r = await serveContract(doc);
  try {
    assert.equal((await call(r, 'GET', '/things?q=abc')).status, 500);
    assert.equal((await call(r, 'GET', '/things')).status, 500);
  } finally {
    await r.close();
  }
});

test('clientResponseValidation: a response schema ajv cannot compile refuses the route\'s answer (500), counted apart from rejections', async () => {
  const doc = {
    openapi: '3.0.3',
    info,
    paths: { '/things': { get: { operationId: 'getThings', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'integer', maximum: 'ten' } } } } } } } } } },
  };
  const r = await serveContract(doc, { responses: true, routes: { getThings: (ex) => void (ex.message.body = { n: 5 }) } });
  try {
    const res = await call(r, 'GET', '/things');
    assert.equal(res.status, 500);
    assert.equal(res.body.detail, 'A schema of the contract for this operation cannot be compiled, so the request is refused rather than passed unchecked.');
    assert.equal(r.logger.lines.filter((l) => l.startsWith('ERROR validation: GET /things response application/json: the schema cannot be compiled')).length, 1, r.logger.lines.join('\n'));
    assert.match((await call(r, 'GET', '/observe/metrics')).body, /^svc_validation_uncompilable_total\{operationId="getThings",method="GET"\} 1$/m);
  } finally {
    await r.close();
  }
});

test('a catastrophic contract pattern cannot hang a request', async () => {
  const doc = bodyContract('3.0.3', { type: 'object', properties: { s: { type: 'string', pattern: '^(a+)+$' }, t: { type: 'string', pattern: '([a-z]+)*@' } } });
  const r = await serveContract(doc);
  try {
    const evil = `${'a'.repeat(50_000)}!`;
    const started = performance.now();
    const res = await call(r, 'POST', '/things', json({ s: evil, t: evil }));
    const elapsed = performance.now() - started;
    assert.equal(res.status, 400);
    assert.deepEqual(where(res).sort(), ['body:s /s', 'body:t /t']);
    assert.ok(elapsed < 5000, `answered in ${elapsed.toFixed(0)} ms`);
    assert.equal((await call(r, 'POST', '/things', json({ s: 'a'.repeat(50_000), t: 'abc@' }))).status, 200);
  } finally {
    await r.close();
  }
});
