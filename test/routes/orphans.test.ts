// Orphan routes (SPEC §4): a `direct:` route that is no operation of the contract and that no other route calls
// fails startup (exit code 1) naming it and the closest operationId, from every config surface.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { closestName, editDistance } from '../../lib/util/closest-name.js';
import { createFacade, Errors, silentLogger, type SvcError } from '../../lib/index.js';
import { PETSTORE, ROOT, tempDir } from '../helpers.js';

/** The Petstore (getPetById, getInventory, ...) beside the config files, with every other operation mocked. */
function dirWith(files: Record<string, string>): string {
  return tempDir({ 'petstore.json': readFileSync(PETSTORE, 'utf8'), ...files });
}

const yamlHead = '- rest:\n    openApi:\n      specification: petstore.json\n      missingOperation: mock\n';

async function startupError(input: Parameters<typeof createFacade>[0]): Promise<SvcError> {
  try {
    const facade = await createFacade(input, { logger: silentLogger, env: {} });
    await facade.stop();
  } catch (err) {
    return err as SvcError;
  }
  assert.fail('startup should fail');
}

function assertOrphans(err: SvcError, lines: string[]): void {
  assert.equal(err.code, Errors.ORPHAN_ROUTES.code);
  assert.equal(err.exitCode, 1);
  assert.equal(err.message, `${lines.length} route(s) consume from a direct: endpoint that is no operation of the contract and that no other route calls:${lines.map((l) => `\n\t${l}`).join('')}`);
}

test('edit distance and the closest name', () => {
  assert.equal(editDistance('getBooks', 'getBook'), 1);
  assert.equal(editDistance('kitten', 'sitting'), 3);
  assert.equal(editDistance('', 'abc'), 3);
  assert.equal(editDistance('same', 'same'), 0);
  assert.equal(closestName('getPetByID', ['addPet', 'getPetById', 'getInventory']), 'getPetById');
  assert.equal(closestName('x', []), undefined);
  assert.equal(closestName('ab', ['ax', 'xb']), 'ax', 'the first of equals');
});

test('YAML: a mistyped route fails startup with the closest operationId, even with missingOperation: mock', async () => {
  const dir = dirWith({
    'routes.yaml': `${yamlHead}- route:\n    from:\n      uri: direct:getPetByID\n      steps:\n        - setBody:\n            constant: x\n`,
  });
  const file = join(dir, 'routes.yaml');
  assertOrphans(await startupError(file), [`direct:getPetByID (${file}): did you mean direct:getPetById?`]);
});

test('YAML: a helper route called by another route is no orphan; one called by nothing is, and each orphan is listed', async () => {
  const routes = `${yamlHead}- route:
    from:
      uri: direct:getInventory
      steps:
        - to: direct:audit
- route:
    from:
      uri: direct:audit
      steps:
        - log: audited
- route:
    from:
      uri: direct:unused
      steps:
        - log: never
- route:
    from:
      uri: direct:loops
      steps:
        - to: direct:loops
`;
  const dir = dirWith({ 'routes.yaml': routes });
  const file = join(dir, 'routes.yaml');
  assertOrphans(await startupError(file), [`direct:unused (${file}): did you mean direct:addPet?`, `direct:loops (${file}): did you mean direct:addPet?`]);
  const fixed = dirWith({ 'routes.yaml': routes.slice(0, routes.indexOf('- route:\n    from:\n      uri: direct:unused')) });
  const facade = await createFacade(join(fixed, 'routes.yaml'), { logger: silentLogger, env: {} });
  assert.equal(facade.operations.find((o) => o.operation.id === 'getInventory')?.disposition, 'route');
  await facade.stop();
});

test('XML: an orphan route is named with its file', async () => {
  const dir = dirWith({
    'routes.xml': `<?xml version="1.0" encoding="UTF-8"?>
<svc xmlns="http://svc-facade.dev/xml">
  <rest><openApi specification="petstore.json" missingOperation="mock"/></rest>
  <route><from uri="direct:getInventry"/><setBody><constant>x</constant></setBody></route>
</svc>
`,
  });
  const file = join(dir, 'routes.xml');
  assertOrphans(await startupError(file), [`direct:getInventry (${file}): did you mean direct:getInventory?`]);
});

test('a module (fluent API): an orphan route is named with its module', async () => {
  const lib = join(ROOT, 'lib/index.ts');
  const dir = dirWith({
    // An ES module, as lib/ is here: a CommonJS one would load a second copy of lib/ (and spoil its coverage).
    'package.json': '{"type":"module","private":true}',
    'routes.ts': `import { RouteBuilder } from ${JSON.stringify(lib)};
export default class Routes extends RouteBuilder {
  configure(): void {
    this.rest().openApi().specification('petstore.json').missingOperation('mock');
    this.from('direct:placeOrders').setBody({ constant: 'x' });
  }
}
`,
  });
  const err = await startupError(join(dir, 'routes.ts'));
  assert.equal(err.code, Errors.ORPHAN_ROUTES.code);
  assert.match(err.message, /\n\tdirect:placeOrders \(.*routes\.ts\): did you mean direct:placeOrder\?$/);
});

test('createFacade({ routes }): an orphan route, by operation id or by direct: name', async () => {
  const specification = PETSTORE;
  const err = await startupError({ specification, missingOperation: 'mock', routes: { getPetById: () => undefined, 'direct:deletePett': () => undefined } });
  assertOrphans(err, ['direct:deletePett (createFacade()): did you mean direct:deletePet?']);
  // Without missingOperation the orphan is reported, not only the unmapped operations it leaves.
  const strict = await startupError({ specification, routes: { findPetsByStatu: () => undefined } });
  assertOrphans(strict, ['direct:findPetsByStatu (createFacade()): did you mean direct:findPetsByStatus?']);
});

test('a contract without operations: the orphan is named, with no suggestion', async () => {
  const dir = tempDir({ 'empty.json': JSON.stringify({ openapi: '3.0.3', info: { title: 'e', version: '1' }, paths: {} }) });
  const err = await startupError({ specification: join(dir, 'empty.json'), routes: { anything: () => undefined } });
  assertOrphans(err, ['direct:anything (createFacade()): the contract has no operations']);
});
