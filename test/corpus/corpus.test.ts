// Every 3.x contract of the test corpus (test/corpus/manifest.json) loads with `missingOperation: ignore`, is served, and answers every
// one of its operations (no 404, no 405). Contracts with routing hazards are served a second time with a
// route per operation, to prove each request reaches its own operation.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent } from 'node:http';
import { createFacade, silentLogger, type Facade, type ServedOperation } from '../../lib/index.js';
import { CORPUS } from '../helpers.js';
import { mapLimit, rawRequest } from '../fixtures/http.js';

interface ManifestEntry {
  name: string;
  entry: string;
  openapi: string;
  operations: number;
  webhookOperations: number;
}

const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as ManifestEntry[];
const agent = new Agent({ keepAlive: true, maxSockets: 8 });
after(() => agent.destroy());

/** Contracts where literal/template overlaps, partial segments, `#query` twins or trailing slashes abound. */
const ROUTING_HAZARDS = new Set(['petstore-v3', 'twilio-api-v2010', 'github-rest-2020', 'discord', 'kubernetes-v3-core', 'readme-3.0-parameters-style', 'apisguru-stripe-2020-08-27', 'digitalocean-slice (multi-file)']);

/** The request that should reach `op`: path parameters filled with a value no literal segment uses, plus the `#name=value` query. */
function requestPath(op: ServedOperation): string {
  const path = op.path.replace(/\{[^{}]+\}/g, 'zq9');
  const d = op.operation.queryDiscriminator;
  return d === undefined ? path : `${path}?${encodeURIComponent(d.name)}${d.value === undefined ? '' : `=${encodeURIComponent(d.value)}`}`;
}

async function listen(facade: Facade): Promise<string> {
  const { port } = await facade.listen(0, '127.0.0.1');
  return `http://127.0.0.1:${port}`;
}

const startups: { name: string; ms: number; operations: number }[] = [];

test('every 3.x contract of the corpus loads and answers every operation', async (t) => {
  for (const entry of manifest) {
    const specification = join(CORPUS, entry.entry);
    await t.test(entry.name, async () => {
      if (!/^3\.[012]\./.test(entry.openapi)) {
        await assert.rejects(createFacade({ specification, missingOperation: 'ignore' }, { logger: silentLogger }), (err: Error) => {
          assert.match(err.message, new RegExp(`^The given OpenApi specification cannot be loaded from: .*${entry.entry.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\. Version ${entry.openapi} is not supported`));
          return true;
        });
        return;
      }
      const started = performance.now();
      const facade = await createFacade({ specification, missingOperation: 'ignore' }, { logger: silentLogger });
      startups.push({ name: entry.name, ms: performance.now() - started, operations: facade.operations.length });
      assert.equal(facade.operations.length, entry.operations, 'operation count matches the manifest');
      if (entry.webhookOperations > 0) assert.ok(facade.startupReport.some((l) => /webhook\(s\): webhooks are not served/.test(l)));
      const origin = await listen(facade);
      try {
        const wrong = (await mapLimit(facade.operations, 8, async (op) => {
          const path = requestPath(op);
          const res = await rawRequest(origin, path, { method: op.operation.method, agent });
          return res.status === 200 || res.status === 204 ? undefined : `${op.operation.method} ${path} (direct:${op.operation.id}) → ${res.status}`;
        })).filter((w) => w !== undefined);
        assert.deepEqual(wrong, [], `operations that did not answer 200/204 in ${entry.name}`);
      } finally {
        await facade.stop();
      }
      if (ROUTING_HAZARDS.has(entry.name)) await assertEachRequestReachesItsOperation(specification, facade.operations);
    });
  }
  const loaded = startups.length;
  const slowest = startups.reduce((a, b) => (b.ms > a.ms ? b : a));
  t.diagnostic(`corpus: ${loaded} contracts loaded, ${startups.reduce((n, s) => n + s.operations, 0)} operations answered; slowest startup ${slowest.ms.toFixed(0)} ms (${slowest.name}, ${slowest.operations} operations)`);
  console.log(`corpus: ${loaded} of ${manifest.length} contracts loaded; slowest startup ${slowest.ms.toFixed(0)} ms (${slowest.name})`);
  assert.equal(loaded, manifest.filter((e) => /^3\.[012]\./.test(e.openapi)).length);
});

/** Serves the contract again with one route per operation that names itself, and checks each answer's name. */
async function assertEachRequestReachesItsOperation(specification: string, operations: readonly ServedOperation[]): Promise<void> {
  const routes = Object.fromEntries(
    operations.map((op) => [op.operation.id, (ex: { message: { headers: { set(n: string, v: unknown): void } } }) => ex.message.headers.set('x-operation', op.operation.id)]),
  );
  const facade = await createFacade({ specification, routes }, { logger: silentLogger });
  const origin = await listen(facade);
  try {
    const wrong = (await mapLimit(facade.operations, 8, async (op) => {
      const path = requestPath(op);
      const res = await rawRequest(origin, path, { method: op.operation.method, agent });
      return res.headers['x-operation'] === op.operation.id ? undefined : `${op.operation.method} ${path}: expected ${op.operation.id}, got ${String(res.headers['x-operation'])} (${res.status})`;
    })).filter((w) => w !== undefined);
    assert.deepEqual(wrong, [], 'requests that reached another operation');
  } finally {
    await facade.stop();
  }
}
