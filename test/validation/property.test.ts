// Property-style tests over real third-party contracts: for every operation with a JSON request body,
// generate valid bodies (and required parameters) from its schema with a seeded generator and expect
// them accepted; then apply single mutations (wrong type, missing required property, value outside an
// enum) and expect a 400 whose errors point at the mutated place.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ServedOperation } from '../../lib/index.js';
import { isJsonMediaType } from '../../lib/http/negotiation.js';
import { CORPUS, type Running } from '../helpers.js';
import { call, serveFile } from './fixtures.js';
import { Generator, mutate, rng, Unsupported, type Mutation } from './generate.js';

const CONTRACTS = [
  'petstore-v3/openapi.yaml',
  'camel-rest-openapi/openapi-v3.json',
  'readme-oas-examples/3.1/schema-types.yaml',
  'kubernetes-v3/v3_batch.v1.json',
  'github-rest-2020/api.github.com.json',
  'discord/openapi.json',
];
/**
 * How many operations with a JSON body each contract has exercised (the generator is seeded, so this is exact):
 * fewer means the generator or the request making lost ground, and the test would pass on what is left.
 */
const MIN_EXERCISED: Record<string, number> = {
  'petstore-v3/openapi.yaml': 6,
  'camel-rest-openapi/openapi-v3.json': 6,
  'readme-oas-examples/3.1/schema-types.yaml': 21,
  'kubernetes-v3/v3_batch.v1.json': 4,
  'github-rest-2020/api.github.com.json': 156,
  'discord/openapi.json': 68,
};
const VALID_PER_OPERATION = 3;
const MUTATIONS_PER_OPERATION = 4;

interface Tally {
  /** Operations with a JSON request body schema. */
  candidates: number;
  /** Those the generator cannot make a request for, by reason (a schema keyword it does not generate, a non-scalar required parameter). */
  unsupported: Map<string, number>;
  operations: number;
  valid: number;
  invalid: number;
  failures: string[];
}

/** The request line and headers for an operation, its required parameters generated; why not, when not possible. */
function requestFor(served: ServedOperation, gen: Generator): { path: string; headers: Record<string, string> } | string {
  const op = served.operation;
  let path = served.path;
  const query: string[] = [];
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  if (op.queryDiscriminator) query.push(op.queryDiscriminator.value === undefined ? op.queryDiscriminator.name : `${op.queryDiscriminator.name}=${op.queryDiscriminator.value}`);
  for (const p of op.parameters) {
    if (!p.required || p.contentType !== undefined) continue;
    let value: unknown;
    try {
      value = gen.value(p.schema, p.uri);
    } catch (err) {
      if (err instanceof Unsupported) return `a required parameter: ${err.message}`;
      throw err;
    }
    if (value === null || typeof value === 'object') return 'a required parameter that is not a scalar';
    const text = String(value);
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(text));
    else if (p.in === 'query') query.push(`${encodeURIComponent(p.name)}=${encodeURIComponent(text)}`);
    else if (p.in === 'header') headers[p.name.toLowerCase()] = text;
    else cookies.push(`${p.name}=${encodeURIComponent(text)}`);
  }
  if (cookies.length > 0) headers.cookie = cookies.join('; ');
  return { path: query.length > 0 ? `${path}?${query.join('&')}` : path, headers };
}

async function exercise(r: Running, seed: number, tally: Tally): Promise<void> {
  const random = rng(seed);
  const gen = new Generator(r.facade.contract.refs, random);
  for (const served of r.facade.operations) {
    const body = served.operation.requestBody;
    const type = Object.keys(body?.value.content ?? {}).find((t) => isJsonMediaType(t) && !t.includes('*'));
    const schema = type === undefined ? undefined : body!.value.content![type]!.schema;
    if (schema === undefined) continue;
    tally.candidates++;
    const request = requestFor(served, gen);
    if (typeof request === 'string') {
      tally.unsupported.set(request, (tally.unsupported.get(request) ?? 0) + 1);
      continue;
    }
    const headers = { ...request.headers, 'content-type': type! };
    let counted = false;
    for (let i = 0; i < VALID_PER_OPERATION; i++) {
      let value: unknown;
      let mutations: Mutation[];
      try {
        value = gen.value(schema, body!.uri);
        mutations = gen.mutations;
      } catch (err) {
        if (!(err instanceof Unsupported)) throw err;
        if (!counted) tally.unsupported.set(err.message, (tally.unsupported.get(err.message) ?? 0) + 1);
        break;
      }
      if (!counted) [counted, tally.operations] = [true, tally.operations + 1];
      const what = `${served.operation.method} ${request.path}`;
      const res = await call(r, served.operation.method, request.path, { body: JSON.stringify(value), headers });
      tally.valid++;
      if (res.status === 400 || res.status >= 500) {
        tally.failures.push(`valid body rejected: ${what} ${JSON.stringify(value).slice(0, 300)} → ${res.status} ${JSON.stringify(res.body.errors ?? res.body).slice(0, 300)}`);
        continue;
      }
      if (i > 0) continue; // mutations of the first valid body are enough per operation
      const picked = [...mutations].sort(() => random() - 0.5).slice(0, MUTATIONS_PER_OPERATION);
      for (const m of picked) {
        const bad = await call(r, served.operation.method, request.path, { body: JSON.stringify(mutate(value, m)), headers });
        tally.invalid++;
        const pointers: string[] = (bad.body?.errors ?? []).filter((e: { in: string }) => e.in === 'body').map((e: { pointer: string }) => e.pointer);
        if (bad.status !== 400 || !pointers.includes(m.pointer)) {
          tally.failures.push(`${m.kind} mutation at ${m.pointer} not reported: ${what} → ${bad.status} ${JSON.stringify(bad.body?.errors ?? bad.body).slice(0, 300)}`);
        }
      }
    }
  }
}

for (const [i, contract] of CONTRACTS.entries()) {
  test(`generated requests on ${contract}: valid ones pass, single mutations are reported where they are`, async () => {
    const r = await serveFile(join(CORPUS, contract));
    const tally: Tally = { candidates: 0, unsupported: new Map(), operations: 0, valid: 0, invalid: 0, failures: [] };
    try {
      await exercise(r, 1000 + i, tally);
    } finally {
      await r.close();
    }
    assert.deepEqual(tally.failures.slice(0, 10), [], `${tally.failures.length} failure(s) of ${tally.valid} valid and ${tally.invalid} mutated requests`);
    const unsupported = [...tally.unsupported.values()].reduce((a, b) => a + b, 0);
    console.log(`# ${contract}: ${tally.operations} of ${tally.candidates} operations with a JSON body exercised (${tally.valid} valid, ${tally.invalid} mutated requests); not generated: ${JSON.stringify(Object.fromEntries(tally.unsupported))}`);
    assert.equal(tally.operations + unsupported, tally.candidates, 'every operation with a JSON body is exercised or counted as not generated');
    assert.ok(tally.operations >= MIN_EXERCISED[contract]!, `${tally.operations} of ${tally.candidates} operations exercised`);
    assert.ok(tally.valid >= tally.operations * Math.min(VALID_PER_OPERATION, 2), `${tally.valid} valid requests for ${tally.operations} operations`);
    assert.ok(tally.invalid >= tally.operations, `${tally.invalid} mutated requests for ${tally.operations} operations: each exercised body is mutated`);
  });
}
