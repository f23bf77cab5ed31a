// Parameter styles (OpenAPI "Style Values") through real HTTP, on ReadMe's parameters-style contract from
// the corpus with its schemas tightened (exact values, closed objects), so that a value deserialized the
// wrong way is a 400 and the right way passes; plus typed coercion on a small contract and the
// deserializers on their own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { RefResolver } from '../../lib/contract/refs.js';
import { shapeOf } from '../../lib/schema/coerce.js';
import { parseQuery } from '../../lib/http/query.js';
import { fromPairs, fromString, parseCookies, Unreadable } from '../../lib/parameters/parameters.js';
import { CORPUS, type Running } from '../helpers.js';
import { call, serveContract, where } from './fixtures.js';

const STYLE_CONTRACT = join(CORPUS, 'readme-oas-examples/3.0/parameters-style.yaml');

/** Every parameter of the corpus contract pinned to one value: 'blue', [blue, black, brown], {name: rex, description: dog}. */
function tightened(): object {
  const doc = parse(readFileSync(STYLE_CONTRACT, 'utf8'));
  for (const item of Object.values(doc.paths) as Record<string, { parameters?: { schema: Record<string, unknown> }[] }>[]) {
    for (const op of Object.values(item)) {
      for (const p of op.parameters ?? []) {
        const type = p.schema.type;
        if (type === 'string') p.schema = { type: 'string', enum: ['blue'] };
        else if (type === 'array') p.schema = { type: 'array', minItems: 3, maxItems: 3, items: { type: 'string', enum: ['blue', 'black', 'brown'] } };
        else p.schema = { type: 'object', additionalProperties: false, required: ['name', 'description'], properties: { name: { type: 'string', enum: ['rex'] }, description: { type: 'string', enum: ['dog'] } } };
      }
    }
  }
  return doc;
}

let styles: Running;
before(async () => {
  styles = await serveContract(tightened());
});
after(() => styles.close());

const ok = (status: number): boolean => status >= 200 && status < 300;

/** [method, path, headers, description]: each right for its operation. */
const RIGHT: [string, string, Record<string, string>, string][] = [
  ['GET', '/anything/path/blue/blue,black,brown/name,rex,description,dog', {}, 'path simple (default)'],
  ['GET', '/anything/path/simple/blue/blue,black,brown/name,rex,description,dog', {}, 'path simple'],
  ['POST', '/anything/path/simple/blue/blue,black,brown/name=rex,description=dog', {}, 'path simple exploded'],
  ['GET', '/anything/path/label/.blue/.blue,black,brown/.name,rex,description,dog', {}, 'path label'],
  ['GET', '/anything/path/label/.blue/.blue.black.brown/.name,rex,description,dog', {}, 'path label (dots, as the 3.0 table shows)'],
  ['POST', '/anything/path/label/.blue/.blue.black.brown/.name=rex.description=dog', {}, 'path label exploded'],
  ['GET', '/anything/path/matrix/;primitive=blue/;array=blue,black,brown/;object=name,rex,description,dog', {}, 'path matrix'],
  ['POST', '/anything/path/matrix/;primitive=blue/;array=blue;array=black;array=brown/;name=rex;description=dog', {}, 'path matrix exploded'],
  ['GET', '/anything/query?primitive=blue&array=blue&array=black&array=brown&name=rex&description=dog', {}, 'query form (default)'],
  ['GET', '/anything/query/form?primitive=blue&array=blue,black,brown&object=name,rex,description,dog', {}, 'query form'],
  ['POST', '/anything/query/form?primitive=blue&array=blue&array=black&array=brown&name=rex&description=dog', {}, 'query form exploded'],
  ['GET', '/anything/query/spaceDelimited?array=blue%20black%20brown&object=name%20rex%20description%20dog', {}, 'query spaceDelimited'],
  ['GET', '/anything/query/pipeDelimited?array=blue|black|brown&object=name|rex|description|dog', {}, 'query pipeDelimited'],
  ['GET', '/anything/query/deepObject?object[name]=rex&object[description]=dog', {}, 'query deepObject'],
  ['GET', '/anything/headers', { primitive: 'blue', array: 'blue,black,brown', object: 'name,rex,description,dog' }, 'header simple (default)'],
  ['GET', '/anything/headers/simple', { primitive: 'blue', array: 'blue, black, brown', object: 'name,rex,description,dog' }, 'header simple'],
  ['POST', '/anything/headers/simple', { primitive: 'blue', array: 'blue,black,brown', object: 'name=rex,description=dog' }, 'header simple exploded'],
  ['GET', '/cookies', { cookie: 'primitive=blue; array=blue; array=black; array=brown; name=rex; description=dog' }, 'cookie form (default)'],
  ['GET', '/cookies?formNonExploded', { cookie: 'primitive=blue; array=blue,black,brown; object=name,rex,description,dog' }, 'cookie form'],
  ['GET', '/cookies?formExploded', { cookie: 'primitive=blue; array=blue; array=black; array=brown; name=rex; description=dog' }, 'cookie form exploded'],
];

/** The same operations sent another style's serialization: each must fail, naming the parameter. */
const WRONG: [string, string, Record<string, string>, string[]][] = [
  ['GET', '/anything/path/blue/blue;black;brown/name=rex,description=dog', {}, ['path:array', 'path:object']],
  ['POST', '/anything/path/simple/blue/blue,black,brown/name,rex,description,dog', {}, ['path:object']],
  ['GET', '/anything/path/label/blue/blue,black,brown/.name=rex.description=dog', {}, ['path:array', 'path:object', 'path:primitive']],
  ['POST', '/anything/path/label/.blue/.blue,black,brown/.name,rex,description,dog', {}, ['path:array', 'path:object']],
  ['GET', '/anything/path/matrix/blue/;array=blue;array=black;array=brown/;name=rex;description=dog', {}, ['path:array', 'path:object', 'path:primitive']],
  ['POST', '/anything/path/matrix/;primitive=blue/;array=blue,black,brown/;object=name,rex,description,dog', {}, ['path:array', 'path:object']],
  // The optional exploded object finds none of its properties: absent, not wrong.
  ['GET', '/anything/query?primitive=blue&array=blue,black,brown&object=name,rex,description,dog', {}, ['query:array']],
  ['GET', '/anything/query/form?primitive=blue&array=blue&array=black&array=brown&object=name=rex', {}, ['query:array', 'query:object']],
  ['GET', '/anything/query/spaceDelimited?array=blue|black|brown&object=name,rex,description,dog', {}, ['query:array', 'query:object']],
  ['GET', '/anything/query/pipeDelimited?array=blue%20black%20brown&object=name%20rex%20description%20dog', {}, ['query:array', 'query:object']],
  ['GET', '/anything/query/deepObject?object[name]=rex&object[color]=red', {}, ['query:object']],
  ['GET', '/anything/query/deepObject?object[name]=rex&object[description]=cat', {}, ['query:object']],
  ['POST', '/anything/headers/simple', { primitive: 'blue', array: 'blue,black,brown', object: 'name,rex,description,dog' }, ['header:object']],
  ['GET', '/anything/headers', { primitive: 'red', array: 'blue,black', object: 'name=rex,description=dog' }, ['header:array', 'header:object', 'header:primitive']],
  ['GET', '/cookies?formNonExploded', { cookie: 'primitive=blue; array=blue; array=black; array=brown; object=name=rex' }, ['cookie:array', 'cookie:object']],
];

test('every style and explode combination of the corpus contract deserializes to the right values', async () => {
  for (const [method, path, headers, what] of RIGHT) {
    const res = await call(styles, method, path, { headers });
    assert.ok(ok(res.status), `${what}: ${method} ${path} → ${res.status} ${JSON.stringify(res.body)}`);
  }
});

test('another style\'s serialization is a 400 naming each parameter that came out wrong', async () => {
  for (const [method, path, headers, expected] of WRONG) {
    const res = await call(styles, method, path, { headers });
    assert.equal(res.status, 400, `${method} ${path}`);
    const names = [...new Set(where(res).map((w) => w.split(' ')[0]!))].sort();
    assert.deepEqual(names, expected, `${method} ${path}: ${JSON.stringify(res.body.errors)}`);
  }
});

// ---- typed coercion ----

const TYPED = {
  openapi: '3.0.3',
  info: { title: 'typed', version: '1' },
  paths: {
    '/typed/{ids}': {
      get: {
        operationId: 'typed',
        parameters: [
          { name: 'ids', in: 'path', required: true, schema: { type: 'array', items: { type: 'integer', minimum: 1 } } },
          { name: 'page', in: 'query', schema: { type: 'object', properties: { size: { type: 'integer', maximum: 50 }, exact: { type: 'boolean' } } }, style: 'deepObject', explode: true },
          { name: 'ratio', in: 'query', schema: { type: 'number', exclusiveMaximum: true, maximum: 1 } },
          { name: 'tags', in: 'query', schema: { type: 'array', maxItems: 2, items: { type: 'string' } }, explode: false },
          { name: 'X-Dry-Run', in: 'header', schema: { type: 'boolean' } },
          { name: 'X-Limit', in: 'header', schema: { type: 'integer', nullable: true } },
        ],
        responses: { '204': { description: 'none' } },
      },
    },
  },
};

test('coercion: strings become integers, numbers and booleans by schema; item and property pointers are reported', async () => {
  const r = await serveContract(TYPED);
  try {
    const good = await call(r, 'GET', '/typed/1,2,3?page[size]=10&page[exact]=true&ratio=0.5&tags=a,b', { headers: { 'x-dry-run': 'false', 'x-limit': '' } });
    assert.equal(good.status, 204, JSON.stringify(good.body));
    const bad = await call(r, 'GET', '/typed/1,0,x?page[size]=99&page[exact]=yes&ratio=1&tags=a,b,c', { headers: { 'x-dry-run': 'maybe', 'x-limit': 'ten' } });
    assert.equal(bad.status, 400);
    assert.deepEqual(where(bad).sort(), ['header:X-Dry-Run', 'header:X-Limit', 'path:ids /1', 'path:ids /2', 'query:page /exact', 'query:page /size', 'query:ratio', 'query:tags']);
    const ratio = bad.body.errors.find((e: { name: string }) => e.name === 'ratio');
    assert.equal(ratio.message, 'must be < 1', 'boolean exclusiveMaximum (3.0) is honoured');
  } finally {
    await r.close();
  }
});

// ---- the deserializers on their own ----

const doc = {
  components: {
    schemas: {
      ints: { type: 'array', items: { type: 'integer' } },
      point: { type: 'object', properties: { x: { type: 'number' }, y: { type: 'number' }, on: { type: 'boolean' } } },
      bag: { type: 'object', additionalProperties: { type: 'integer' } },
      flag: { type: 'boolean' },
    },
  },
};
const refs = new RefResolver('/contract.json', doc, '3.0');
const shape = (name: string) => shapeOf({ $ref: `#/components/schemas/${name}` }, '/contract.json', refs);

test('fromString: simple, label and matrix give typed arrays and objects', () => {
  assert.deepEqual(fromString('1,2,3', 'p', 'simple', false, shape('ints')), [1, 2, 3]);
  assert.deepEqual(fromString('x,1,y,2', 'p', 'simple', false, shape('point')), { x: 1, y: 2 });
  assert.deepEqual(fromString('x=1,on=true', 'p', 'simple', true, shape('point')), { x: 1, on: true });
  assert.deepEqual(fromString('.1.2', 'p', 'label', true, shape('ints')), [1, 2]);
  assert.deepEqual(fromString('.x=1.y=-2', 'p', 'label', true, shape('point')), { x: 1, y: -2 });
  assert.ok(fromString('1.2', 'p', 'label', true, shape('ints')) instanceof Unreadable, 'label values start with a dot');
  assert.ok(fromString('p=1', 'p', 'matrix', false, shape('ints')) instanceof Unreadable, 'matrix values start with a semicolon');
  assert.deepEqual(fromString(';p=1,2', 'p', 'matrix', false, shape('ints')), [1, 2]);
  assert.deepEqual(fromString(';p=1;p=2', 'p', 'matrix', true, shape('ints')), [1, 2]);
  assert.deepEqual(fromString(';x=3;y=4', 'p', 'matrix', true, shape('point')), { x: 3, y: 4 });
  assert.equal(fromString(';p=true', 'p', 'matrix', false, shape('flag')), true);
  assert.equal(fromString('nope', 'p', 'simple', false, shape('flag')), 'nope', 'a value that does not fit stays a string');
});

test('fromPairs: form, spaceDelimited, pipeDelimited and deepObject; absent is undefined', () => {
  const q = parseQuery('a=1&a=2&b=1,2&c=1%202&d=1|2&pt[x]=5&x=7&y=8&other=9');
  assert.deepEqual(fromPairs(q, 'a', 'form', true, shape('ints'), new Set()), [1, 2]);
  assert.deepEqual(fromPairs(q, 'b', 'form', false, shape('ints'), new Set()), [1, 2]);
  assert.deepEqual(fromPairs(q, 'c', 'spaceDelimited', false, shape('ints'), new Set()), [1, 2]);
  assert.deepEqual(fromPairs(q, 'd', 'pipeDelimited', false, shape('ints'), new Set()), [1, 2]);
  assert.deepEqual(fromPairs(q, 'pt', 'deepObject', true, shape('point'), new Set()), { x: 5 });
  assert.deepEqual(fromPairs(q, 'pt', 'form', true, shape('point'), new Set(['y'])), { x: 7 }, 'declared properties only; other parameters keep their names');
  assert.deepEqual(fromPairs(parseQuery('p=1&k=2&j=3'), 'b', 'form', true, shape('bag'), new Set(['p'])), { k: 2, j: 3 }, 'a free-form object takes what no parameter claims');
  assert.equal(fromPairs(q, 'missing', 'form', true, shape('ints'), new Set()), undefined);
});

test('untrusted keys never reach a prototype', () => {
  const value = fromPairs(parseQuery('pt[__proto__]=1&pt[x]=2'), 'pt', 'deepObject', true, shape('point'), new Set()) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(value), Object.prototype);
  assert.deepEqual(Object.keys(value), ['__proto__', 'x']);
  assert.equal(({} as Record<string, unknown>).x, undefined);
});

test('cookies are split on ";" and percent-decoded when they can be', () => {
  assert.deepEqual(parseCookies('a=1; b=x%20y;c=%E0%A4%A'), [['a', '1'], ['b', 'x y'], ['c', '%E0%A4%A']]);
  assert.deepEqual(parseCookies(undefined), []);
});
