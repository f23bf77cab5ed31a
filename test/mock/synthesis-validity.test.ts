// The invariant of synthesized mock bodies (issue 26): a body made from a response schema (static, and
// `Prefer: dynamic=true` with several seeds) validates against that schema. Property test: every response
// schema of every 3.x contract of the test corpus, each body checked by the schema compiler the facade's
// validation uses (a separate instance from the one the synthesizer checks with). And, on a served facade:
// the issue's own cases (a `oneOf` whose branches both accept a value, a `nullable`-less property whose
// example is null) answer valid bodies, and a schema no value satisfies is answered with the closest value
// and one log line naming it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { loadContract } from '../../lib/contract/load.js';
import { compileOperations } from '../../lib/contract/operations.js';
import { SchemaCompiler } from '../../lib/schema/compiler.js';
import { NOTHING, Synthesizer } from '../../lib/mock/synthesize.js';
import { schemaChecker } from '../../lib/mock/conformance.js';
import { Random } from '../../lib/mock/random.js';
import { CORPUS, memoryLogger, serve, tempDir } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

interface ManifestEntry {
  name: string;
  entry: string;
  openapi: string;
}

const manifest = (JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as ManifestEntry[]).filter((e) => /^3\.[01]\./.test(e.openapi));
/** Dynamic seeds per schema (with the static body, 5 bodies a schema; the whole corpus runs in about 30 s). */
const SEEDS = ['1', '2', '3', '4'];
/**
 * Response schemas of the corpus no valid value exists for, by `contract METHOD path status media type`,
 * with the reason. Empty: every schema of the corpus is satisfiable and answered validly.
 */
const UNSATISFIABLE = new Map<string, string>();

test('every synthesized body of every response schema of the corpus validates (static and dynamic)', async (t) => {
  const figures = { contracts: 0, schemas: 0, bodies: 0, failures: [] as string[], unsatisfiable: 0 };
  for (const entry of manifest) {
    const contract = await loadContract(join(CORPUS, entry.entry), CORPUS);
    const judge = new SchemaCompiler(contract, memoryLogger());
    const synthesizer = new Synthesizer(contract, () => undefined);
    synthesizer.useChecks(schemaChecker(new SchemaCompiler(contract, memoryLogger())));
    const seen = new Set<unknown>();
    figures.contracts++;
    for (const op of compileOperations(contract).operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        for (const [type, media] of Object.entries(response.value.content ?? {})) {
          if (!media || typeof media !== 'object' || media.schema === undefined) continue;
          const identity = contract.refs.deref(media.schema, response.uri).value;
          if (seen.has(identity)) continue;
          seen.add(identity);
          figures.schemas++;
          const where = `${entry.name} ${op.method} ${op.path} ${status} ${type}`;
          const check = judge.compile(where, (convert) => convert(media.schema, response.uri, 'response'));
          const generate = synthesizer.conforming(media.schema, response.uri, where);
          for (const seed of [undefined, ...SEEDS]) {
            const value = generate({ random: seed === undefined ? undefined : new Random(seed), spent: 0 }, 0);
            if (value === NOTHING) continue;
            figures.bodies++;
            const errors = check(value);
            if (errors === undefined) continue;
            if (UNSATISFIABLE.has(where)) figures.unsatisfiable++;
            else figures.failures.push(`${where} (${seed === undefined ? 'static' : `seed ${seed}`}): ${JSON.stringify(errors.slice(0, 2))}`);
          }
        }
      }
    }
  }
  const line = `synthesized bodies: ${figures.contracts} contracts, ${figures.schemas} response schemas, ${figures.bodies} bodies checked, ${figures.failures.length} invalid, ${figures.unsatisfiable} from ${UNSATISFIABLE.size} schema(s) listed unsatisfiable`;
  t.diagnostic(line);
  console.log(line);
  assert.deepEqual(figures.failures.slice(0, 10), [], `${figures.failures.length} invalid bodies`);
  assert.ok(figures.schemas > 1400 && figures.bodies > 7000, 'the corpus has over 1,400 response schemas');
});

const CONTRACT = {
  openapi: '3.0.3',
  info: { title: 'synthesis validity', version: '1' },
  paths: {
    // Both branches accept any object: the value must carry what makes it fail the other branch.
    '/either': { get: { operationId: 'either', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { oneOf: [
      { type: 'object', properties: { location: { type: 'object', properties: { name: { type: 'string' } } } } },
      { type: 'object', properties: { location_id: { type: 'string' } } },
    ] } } } } } } },
    // allOf + oneOf: the chosen branch's `required` is filled.
    '/endpoint': { get: { operationId: 'endpoint', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { allOf: [
      { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      { oneOf: [{ type: 'object', required: ['routingKey'], properties: { routingKey: { type: 'string' }, type: { enum: ['pagerduty'] } } }, { type: 'object', required: ['url'], properties: { url: { type: 'string', format: 'uri' }, type: { enum: ['http'] } } }] },
    ] } } } } } } },
    // An object example whose `deleted_at` is null where the property is a plain (not nullable) string.
    // (A response schema's own top-level example is served as written, SPEC §7: this one is nested, as in telnyx.)
    '/group': { get: { operationId: 'group', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object', required: ['data'], properties: { data: {
      type: 'object', example: { id: 'g1', deleted_at: null }, properties: { id: { type: 'string' }, deleted_at: { type: 'string', format: 'date-time' } },
    } } } } } } } } },
    // A discriminated oneOf whose branches share a base and an enum-typed `type`, as influxdb's notification
    // endpoints: the mapping picks the branch for our validation, but read as a plain oneOf (as most
    // validators do) a value must still fail the other branches.
    '/endpoints': { get: { operationId: 'endpoints', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Endpoint' } } } } } } } },
    // A pattern written as a regex literal: no string matches it (slashes included), so no value validates.
    '/literal': { get: { operationId: 'literal', responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Slug' } } } } } } },
  },
  components: { schemas: {
    Slug: { type: 'object', required: ['slug'], properties: { slug: { type: 'string', pattern: '/^[a-z]+$/' } } },
    Endpoint: { discriminator: { propertyName: 'type', mapping: { slack: '#/components/schemas/Slack', pagerduty: '#/components/schemas/PagerDuty' } }, oneOf: [{ $ref: '#/components/schemas/Slack' }, { $ref: '#/components/schemas/PagerDuty' }] },
    Base: { type: 'object', required: ['name', 'type'], properties: { name: { type: 'string' }, type: { type: 'string', enum: ['slack', 'pagerduty'] } } },
    Slack: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { url: { type: 'string' }, token: { type: 'string' } } }] },
    PagerDuty: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', required: ['routingKey'], properties: { clientURL: { type: 'string' }, routingKey: { type: 'string' } } }] },
  } },
};

test('the issue\'s cases answer valid bodies; an unsatisfiable schema is answered with the closest value and logged once', async () => {
  const dir = tempDir({ 'openapi.json': JSON.stringify(CONTRACT) });
  const app = await serve({ specification: join(dir, 'openapi.json'), missingOperation: 'mock' });
  try {
    const contract = app.facade.contract;
    const judge = new SchemaCompiler(contract, memoryLogger());
    const schemaOf = (path: string): unknown => (CONTRACT.paths as Record<string, { get: { responses: { '200': { content: { 'application/json': { schema: unknown } } } } } }>)[path]!.get.responses['200'].content['application/json'].schema;
    // An independent reading of the same schemas: plain ajv, `discriminator` ignored, `oneOf` as written.
    const plain = new Ajv({ strict: false });
    plain.addSchema({ $id: 'contract', components: CONTRACT.components });
    const plainEndpoints = plain.compile({ type: 'array', items: { $ref: 'contract#/components/schemas/Endpoint' } });
    for (const path of ['/either', '/endpoint', '/group', '/endpoints']) {
      const check = judge.compile(path, (convert) => convert(schemaOf(path), contract.uri, 'response'));
      for (const prefer of [undefined, 'dynamic=true, seed=1', 'dynamic=true, seed=2', 'dynamic=true, seed=3']) {
        const res = await rawRequest(app.origin, path, { headers: prefer === undefined ? {} : { prefer } });
        assert.equal(res.status, 200);
        const body = JSON.parse(res.body);
        assert.equal(check(body), undefined, `${path} ${prefer ?? 'static'}: ${res.body}`);
        if (path === '/endpoint') assert.ok(typeof body.routingKey === 'string' || typeof body.url === 'string', res.body);
        if (path === '/group' && body.data.deleted_at !== undefined) assert.equal(typeof body.data.deleted_at, 'string');
        if (path === '/endpoints') assert.ok(plainEndpoints(body), `${prefer ?? 'static'}: ${JSON.stringify(plainEndpoints.errors)} in ${res.body}`);
      }
    }
    for (let n = 0; n < 3; n++) {
      const res = await rawRequest(app.origin, '/literal', { headers: n === 0 ? {} : { prefer: 'dynamic=true' } });
      assert.equal(res.status, 200);
      assert.equal(typeof JSON.parse(res.body).slug, 'string', 'the closest value: the required property is there');
    }
    const notes = app.logger.lines.filter((l) => l.includes('no value valid against'));
    assert.equal(notes.length, 1, app.logger.lines.join('\n'));
    assert.match(notes[0]!, /^WARN mock: no value valid against the schema #\/components\/schemas\/Slug \(application\/json response\) can be synthesized \(\/slug must match pattern/);
  } finally {
    await app.close();
  }
});
