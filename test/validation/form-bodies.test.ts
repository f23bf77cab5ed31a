// application/x-www-form-urlencoded bodies as Stripe's clients send them (bracketed names at any depth,
// indexed and empty-bracket arrays, arrays of objects), checked against `qs` (the reference decoder): the
// structure decoded from every body is qs's, and the facade's verdict on real POSTs is the one ajv
// (coerceTypes) gives on qs's object. Then the cases the issue named, the limits and the empty body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import formatsModule, { type FormatsPlugin } from 'ajv-formats';
import qs from 'qs';
import { loadContract, type Contract } from '../../lib/contract/load.js';
import { MAX_DEPTH, MAX_FIELDS, nestPairs } from '../../lib/codec/bracket-keys.js';
import { parseQuery } from '../../lib/http/query.js';
import { formObject } from '../../lib/schema/bodies.js';
import { shapeOf } from '../../lib/schema/coerce.js';
import { CORPUS } from '../helpers.js';
import { call, serveContract, serveFile, where, type Answer } from './fixtures.js';

const STRIPE = join(CORPUS, 'apisguru-stripe-2020-08-27/openapi.yaml');
const FORM = 'application/x-www-form-urlencoded';
/** qs with the facade's limits (its defaults, depth 5 and arrayLimit 20, are lower: see docs/validation.md). */
const QS_LIMITS = { depth: MAX_DEPTH, arrayLimit: MAX_FIELDS, parameterLimit: MAX_FIELDS } as const;
const addFormats: FormatsPlugin = (formatsModule as unknown as { default?: FormatsPlugin }).default ?? (formatsModule as unknown as FormatsPlugin);

type Json = Record<string, unknown>;

interface FormOperation {
  path: string;
  /** The path with every parameter filled in. */
  url: string;
  schema: unknown;
  encoding: Json;
}

function formOperations(contract: Contract): FormOperation[] {
  const out: FormOperation[] = [];
  for (const [path, item] of Object.entries(contract.doc.paths ?? {})) {
    const post = (item as Json).post as Json | undefined;
    const media = ((post?.requestBody as Json | undefined)?.content as Json | undefined)?.[FORM] as Json | undefined;
    if (media?.schema === undefined) continue;
    out.push({ path, url: path.replace(/\{[^}]+\}/g, 'id_1'), schema: media.schema, encoding: (media.encoding ?? {}) as Json });
  }
  return out;
}

/**
 * A value for a schema as a client fills a form: every property (to a depth), two items per array, the
 * `variant`-th branch of anyOf/oneOf where there is one (else the first), the first enum value.
 */
function sample(contract: Contract, schema: unknown, variant: number, depth = 0): unknown {
  const s = contract.refs.deref<Json>(schema, contract.uri).value;
  if (depth > 6 || s === null || typeof s !== 'object') return undefined;
  const branches = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (branches !== undefined) return sample(contract, branches[variant % branches.length] ?? branches[0], variant, depth + 1);
  if (Array.isArray(s.enum)) return s.enum[variant % s.enum.length];
  switch (s.type) {
    case 'object': {
      const out: Json = {};
      for (const [k, v] of Object.entries((s.properties ?? {}) as Json)) {
        const value = sample(contract, v, variant, depth + 1);
        if (value !== undefined) out[k] = value;
      }
      if (s.properties === undefined && s.additionalProperties !== false) out.key = sample(contract, s.additionalProperties ?? { type: 'string' }, variant, depth + 1) ?? 'v';
      return out;
    }
    case 'array': {
      const item = sample(contract, s.items, variant, depth + 1);
      return item === undefined ? undefined : [item, sample(contract, s.items, variant + 1, depth + 1)];
    }
    case 'integer':
      return typeof s.minimum === 'number' ? s.minimum : 3;
    case 'number':
      return 12.5;
    case 'boolean':
      return variant % 2 === 0;
    case 'string':
      return 'text';
    default:
      return 'text';
  }
}

/** The same value with one thing wrong at its deepest place: an integer as text, a string too long, an object as a plain value. */
function spoiled(contract: Contract, schema: unknown, value: unknown, how: number): unknown {
  const s = contract.refs.deref<Json>(schema, contract.uri).value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const props = (s?.properties ?? {}) as Json;
    const keys = Object.keys(value as Json).filter((k) => props[k] !== undefined);
    for (const k of keys.reverse()) {
      const inner = (value as Json)[k];
      const changed = spoiled(contract, props[k], inner, how);
      if (changed !== inner) return { ...(value as Json), [k]: changed };
      if (how === 2 && inner !== null && typeof inner === 'object' && !Array.isArray(inner)) return { ...(value as Json), [k]: 'plain' };
    }
    return value;
  }
  if (how === 0 && typeof value === 'number' && Number.isInteger(value)) return 'abc';
  if (how === 1 && typeof value === 'string' && typeof s?.maxLength === 'number') return 'y'.repeat(s.maxLength + 1);
  return value;
}

/** Where two values first differ, with both sides there. */
function firstDifference(a: unknown, b: unknown, at = ''): string {
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = firstDifference((a as Json)[k], (b as Json)[k], `${at}/${k}`);
      if (found !== '') return found;
    }
    return '';
  }
  return Object.is(a, b) ? '' : `${at}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`;
}

/** The value without empty strings in lists, a list left with one value being that value (how qs merges them away). */
function withoutEmpties(value: unknown): unknown {
  if (Array.isArray(value)) {
    const kept = value.filter((v) => v !== '').map(withoutEmpties);
    return kept.length === 1 ? kept[0] : kept;
  }
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutEmpties(v)]));
  return value;
}

test('differential against qs on Stripe: the decoded structure is qs.parse, the verdict on real POSTs is ajv coerceTypes on qs.parse', async (t) => {
  const contract = await loadContract(STRIPE, CORPUS);
  const ops = formOperations(contract);
  assert.ok(ops.length > 150, `${ops.length} form operations`);
  const judge = new Ajv({ coerceTypes: true, strict: false, allErrors: false, logger: false });
  addFormats(judge);
  const r = await serveFile(STRIPE);
  const mismatches: string[] = [];
  const counts = { bodies: 0, accepted: 0, refused: 0, nested: 0, qsDroppedEmpty: 0 };
  try {
    for (const op of ops) {
      let validate: ValidateFunction;
      try {
        validate = judge.compile(contract.refs.deref<object>(op.schema, contract.uri).value);
      } catch {
        continue; // a $ref the judge cannot follow on its own: the facade still checks it, the judge cannot
      }
      const shape = shapeOf(op.schema, contract.uri, contract.refs);
      for (let variant = 0; variant < 2; variant++) {
        const good = sample(contract, op.schema, variant);
        const values = [good, spoiled(contract, op.schema, good, 0), spoiled(contract, op.schema, good, 1), spoiled(contract, op.schema, good, 2)];
        for (const value of new Set(values)) {
          // stripe-node's encoding (indices) and the other one qs writes ([] for arrays).
          for (const arrayFormat of ['indices', 'brackets'] as const) {
            const body = qs.stringify(value, { arrayFormat });
            if (body === '') continue;
            counts.bodies++;
            if (/%5D%5B/.test(body)) counts.nested++;
            const reference = qs.parse(body, QS_LIMITS);
            const label = `POST ${op.path} ${arrayFormat}`;
            const difference = firstDifference(nestPairs(parseQuery(body)), reference);
            if (difference !== '') {
              // qs's merge skips an empty value that lands on a place already filled (`lines[][tax_rates][]=a`
              // then `lines[][tax_rates]=`); the facade keeps it, and qs has no verdict to compare then.
              if (firstDifference(withoutEmpties(nestPairs(parseQuery(body))), withoutEmpties(reference)) === '') counts.qsDroppedEmpty++;
              else mismatches.push(`${label}: structure differs at ${difference}`);
              continue;
            }
            const coerced = structuredClone(reference);
            const valid = validate(coerced);
            const res = await call(r, 'POST', op.url, { body, headers: { 'content-type': FORM } });
            if (res.status !== 400 && res.status !== 200) mismatches.push(`${label}: status ${res.status}`);
            if ((res.status === 200) !== valid) {
              mismatches.push(`${label}: facade ${res.status} ${JSON.stringify(res.body.errors ?? '').slice(0, 300)}, judge ${valid ? 'valid' : JSON.stringify(validate.errors?.[0])}`);
            } else if (valid) {
              counts.accepted++;
              // What the facade checked is what ajv made of qs's object.
              const typed = formObject(parseQuery(body), shape, op.encoding as never, false);
              try {
                assert.deepEqual(JSON.parse(JSON.stringify(typed)), coerced);
              } catch {
                mismatches.push(`${label}: typed ${JSON.stringify(typed).slice(0, 200)} vs ajv ${JSON.stringify(coerced).slice(0, 200)}`);
              }
            } else counts.refused++;
          }
        }
      }
    }
  } finally {
    await r.close();
  }
  t.diagnostic(JSON.stringify(counts));
  assert.deepEqual(mismatches.slice(0, 20), [], `${mismatches.length} mismatches`);
  // Enough of every kind was compared for the test to mean something.
  assert.ok(counts.bodies > 1000 && counts.accepted > 300 && counts.refused > 300 && counts.nested > 300, JSON.stringify(counts));
});

test('Stripe: nested brackets, indexed and empty-bracket arrays, arrays of objects; anyOf scalars coerced; nothing dropped', async () => {
  const r = await serveFile(STRIPE);
  const form = (path: string, body: string): Promise<Answer> => call(r, 'POST', path, { body, headers: { 'content-type': FORM } });
  const problems = async (path: string, body: string): Promise<string[]> => {
    const res = await form(path, body);
    assert.equal(res.status, 400, `${body}: ${res.status}`);
    return res.body.errors.map((e: { in: string; name: string; pointer: string; message: string }) => `${e.pointer} ${e.message}`);
  };
  try {
    assert.equal((await form('/v1/customers', 'shipping[address][line1]=x&shipping[name]=n')).status, 200);
    assert.ok((await problems('/v1/customers', 'shipping[name]=n')).includes("/shipping/address must have required property 'address'"));
    assert.ok((await problems('/v1/tokens', 'person[dob][day]=abc&person[dob][month]=4&person[dob][year]=1990')).includes('/person/dob/day must be integer'));
    assert.equal((await form('/v1/tokens', 'person[dob][day]=3&person[dob][month]=4&person[dob][year]=1990')).status, 200);
    assert.deepEqual(await problems('/v1/accounts', `company[address][city]=${'c'.repeat(101)}`), ['/company/address/city must NOT have more than 100 characters']);
    assert.equal((await form('/v1/accounts', `company[address][city]=${'c'.repeat(100)}`)).status, 200);
    // A plain value where the contract wants an object is kept, so the schema names it.
    assert.deepEqual(await problems('/v1/issuing/cards', 'currency=usd&type=virtual&spending_controls=x'), ['/spending_controls must be object']);
    // anyOf [number, ""]: 12.5 is the number; "" the string; text neither.
    assert.equal((await form('/v1/accounts/acct_1/persons', 'relationship[percent_ownership]=12.5')).status, 200);
    assert.equal((await form('/v1/accounts/acct_1/persons', 'relationship[percent_ownership]=')).status, 200);
    assert.ok((await problems('/v1/accounts/acct_1/persons', 'relationship[percent_ownership]=lots')).includes('/relationship/percent_ownership must be number'));
    for (const expand of ['expand[0]=a&expand[1]=b', 'expand[]=a&expand[]=b', 'expand=a&expand=b', 'expand=a']) {
      assert.equal((await form('/v1/subscriptions', `customer=c&add_invoice_items[0][price]=p&add_invoice_items[1][price]=q&${expand}`)).status, 200, expand);
    }
    assert.deepEqual(await problems('/v1/subscriptions', 'customer=c&add_invoice_items[0][price]=p&add_invoice_items[1][quantity]=two'), ['/add_invoice_items/1/quantity must be integer']);
    // Fields the contract does not declare, at the top or inside, are reported, not dropped.
    assert.deepEqual(await problems('/v1/customers', 'metadata[a]=1&foo=bar&foo[x]=y'), ['/foo is not allowed (no additional properties)']);
    assert.ok((await problems('/v1/customers', 'address[line1]=x&address[line1]=y')).includes('/address/line1 must be string'));
  } finally {
    await r.close();
  }
});

test('limits: more fields or deeper names than allowed are refused naming them; a hostile deep name costs nothing', async () => {
  const r = await serveFile(STRIPE);
  const form = (body: string): Promise<Answer> => call(r, 'POST', '/v1/customers', { body, headers: { 'content-type': FORM } });
  try {
    const many = Array.from({ length: MAX_FIELDS + 1 }, (_, i) => `metadata[k${i}]=v`).join('&');
    const tooMany = await form(many);
    assert.equal(tooMany.status, 400);
    assert.deepEqual(tooMany.body.errors, [{ in: 'body', name: '', pointer: '', message: `has ${MAX_FIELDS + 1} fields, more than the ${MAX_FIELDS} allowed` }]);
    assert.equal((await form(Array.from({ length: 50 }, (_, i) => `metadata[k${i}]=v`).join('&'))).status, 200);

    const deep = `metadata${'[a]'.repeat(MAX_DEPTH + 1)}`;
    const tooDeep = await form(`${deep}=x`);
    assert.equal(tooDeep.status, 400);
    assert.deepEqual(tooDeep.body.errors, [{ in: 'body', name: deep, pointer: '', message: `nests more than ${MAX_DEPTH} brackets deep` }]);
    // Within the limit the depth is the schema's business (metadata holds strings).
    assert.ok(where(await form(`metadata${'[a]'.repeat(MAX_DEPTH)}=x`)).includes('body:a /metadata/a'));

    // 300,000 brackets in one name (under the 1 MiB body limit): refused at once, the server stays up.
    const started = Date.now();
    const hostile = await form(`metadata${'[a]'.repeat(300_000)}=x`);
    assert.equal(hostile.status, 400);
    assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
    // A huge index is an object key (as in qs), never a huge sparse array.
    assert.deepEqual(nestPairs([['a[999999999]', 'x']]), { a: { '999999999': 'x' } });
    assert.equal((await form('email=a@b.co')).status, 200);
  } finally {
    await r.close();
  }
});

test('an empty body sent as a form is the empty form: checked against the schema, whether the body is required or not; without a media type it is no body', async () => {
  const op = (required: boolean, fields: string[] = []) => ({
    post: {
      operationId: `${required ? 'needs' : 'optional'}${fields.length}`,
      requestBody: { required, content: { [FORM]: { schema: { type: 'object', required: fields.length > 0 ? fields : undefined, properties: { a: { type: 'integer' } } } } } },
      responses: { '200': { description: 'ok' } },
    },
  });
  const r = await serveContract({ openapi: '3.0.3', info: { title: 't', version: '1' }, paths: { '/optional': op(false), '/needs': op(true), '/fields': op(false, ['a']) } });
  try {
    const headers = { 'content-type': FORM };
    assert.notEqual((await call(r, 'POST', '/optional', { body: '', headers })).status, 400);
    assert.equal((await call(r, 'POST', '/optional', { body: 'a=1', headers })).status, 200);
    assert.notEqual((await call(r, 'POST', '/needs', { body: '', headers })).status, 400, 'the empty form is a body');
    const missingField = await call(r, 'POST', '/fields', { body: '', headers });
    assert.equal(missingField.status, 400);
    assert.deepEqual(where(missingField), ['body:a /a']);
    assert.equal((await call(r, 'POST', '/fields', { body: '' })).status, 204, 'no body media type: no body');
    const missing = await call(r, 'POST', '/needs', { body: '' });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.errors, [{ in: 'body', name: '', pointer: '', message: 'is required' }]);
    // A body of only separators has fields, none named: kept as they are (no properties here).
    assert.deepEqual(where(await call(r, 'POST', '/needs', { body: 'a=x', headers })), ['body:a /a']);
  } finally {
    await r.close();
  }
});

test('bracket names nest as qs nests them, conflicts kept rather than dropped', () => {
  const both = (body: string): [unknown, unknown] => [nestPairs(parseQuery(body)), qs.parse(body, QS_LIMITS)];
  for (const body of [
    'a[b][c][d]=1&a[b][e]=2',
    'a[]=1&a[]=2&a[]=3',
    'a[0]=1&a[1]=2',
    'a[1]=y&a[0]=x',
    'a[0][p]=1&a[0][q]=2&a[1][p]=3',
    'a[][p]=1&a[][q]=2',
    'a=1&a=2',
    'a=1&a[]=2',
    'a[0]=x&a[b]=y',
    'a=x&a[b]=y',
    'a[b]=1&a[]=2',
    'a[01]=x',
    'a%5Bb%5D=1&c+d=e%20f',
    'a.b=1',
  ]) {
    const [ours, reference] = both(body);
    assert.deepEqual(ours, reference, body);
  }
  // Where qs loses or invents data, the fields are kept as they were sent.
  assert.deepEqual(nestPairs(parseQuery('a[b]c=1')), { 'a[b]c': '1' }); // qs: {a: {b: '1'}}, `c` dropped
  assert.deepEqual(nestPairs(parseQuery('a[b=1&[x]=2')), { 'a[b': '1', '[x]': '2' }); // qs: {'a[b': '1', x: '2'}
  assert.deepEqual(nestPairs(parseQuery('a[b]=y&a=x')), { a: [{ b: 'y' }, 'x'] }); // qs: {a: {b: 'y', x: true}}
  assert.deepEqual(nestPairs(parseQuery('a[][t][]=x&a[][t]=')), { a: [{ t: ['x', ''] }] }); // qs: {a: [{t: ['x']}]}
  const polluted = nestPairs(parseQuery('__proto__[admin]=1&constructor[x]=2'));
  assert.equal(Object.getPrototypeOf(polluted), Object.prototype);
  assert.deepEqual(Object.keys(polluted), ['__proto__', 'constructor']);
  assert.equal(({} as Json).admin, undefined);
});
