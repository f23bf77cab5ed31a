// Class discovery for binding (SPEC §9): bindingPackageScan directories of .ts and .mjs modules, classes
// passed directly, and the startup errors for a missing directory or a module that fails to import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError, type Exchange, type FacadeInput, type FacadeObjectConfig } from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';

const PET_MODULE = `
export class Pet {
  id; name; category; photoUrls; tags; status;
  markPending() { this.status = 'PENDING'; }
}
export function notAClass() { return 1; }
export const alsoNotAClass = () => 2;
`;
const TAG_MODULE = `export default class Tag { id; name; shout() { return String(this.name).toUpperCase(); } }`;

interface Seen {
  pet?: string;
  tags?: string[];
}

/** Starts a facade, PUTs a Pet with a tag, and returns the answer. */
async function bindPet(input: FacadeInput): Promise<unknown> {
  const running = await serve(input);
  try {
    const res = await fetch(`${running.origin}/api/v3/pet`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"id":1,"name":"tony","tags":[{"name":"big"}],"status":"AVAILABLE"}',
    });
    assert.equal(res.status, 200);
    return await res.json();
  } finally {
    await running.close();
  }
}

/** A route that records the classes of the body and its tags, then marks the pet pending. */
function recordPet(seen: Seen) {
  return (ex: Exchange) => {
    const pet = ex.body as { constructor: { name: string }; markPending(): void; tags: { constructor: { name: string }; shout(): string }[] };
    seen.pet = pet.constructor.name;
    seen.tags = pet.tags.map((tag) => `${tag.constructor.name}:${tag.shout()}`);
    pet.markPending();
  };
}

function isScanError(pattern: RegExp) {
  return (err: unknown): boolean => {
    assert.ok(err instanceof SvcError, String(err));
    assert.equal(err.code, 'SVC_BINDING_SCAN');
    assert.match(err.message, pattern);
    return true;
  };
}

/** The Petstore, JSON binding, classes scanned from `dir/model`. */
function scanning(dir: string, extra: Partial<FacadeObjectConfig> = {}): FacadeObjectConfig {
  return { specification: PETSTORE, baseDir: dir, missingOperation: 'ignore', restConfiguration: { bindingMode: 'json', bindingPackageScan: 'model' }, ...extra };
}

test('bindingPackageScan: .mjs modules in a directory and its subdirectories, named and default exports', async () => {
  const dir = tempDir({ 'model/pet.mjs': PET_MODULE, 'model/sub/tag.mjs': TAG_MODULE, 'model/types.d.ts': 'export declare class Broken {}', 'model/README.md': '# not a module' });
  const seen: Seen = {};
  const answer = await bindPet(scanning(dir, { routes: { updatePet: recordPet(seen) } }));
  assert.deepEqual(seen, { pet: 'Pet', tags: ['Tag:BIG'] });
  assert.deepEqual(answer, { id: 1, name: 'tony', tags: [{ name: 'big' }], status: 'PENDING' });
});

test('bindingPackageScan: a CommonJS .js module counts its module.exports as named exports', async () => {
  const commonJs = [
    "class Pet { markPending() { this.status = 'PENDING'; } }",
    "// an object the CommonJS lexer cannot see through: only 'default' is a named export of this module",
    'const api = { Pet, version: 1 };',
    'module.exports = api;',
  ].join('\n');
  const dir = tempDir({ 'model/pet.js': commonJs, 'model/tag.mjs': TAG_MODULE });
  const seen: Seen = {};
  await bindPet(scanning(dir, { routes: { updatePet: recordPet(seen) } }));
  assert.deepEqual(seen, { pet: 'Pet', tags: ['Tag:BIG'] });
});

test('bindingPackageScan in a YAML config is resolved from the config file\'s directory', async () => {
  const dir = tempDir({
    'petstore.json': readFileSync(PETSTORE),
    'model/pet.mjs': 'export class Pet { name; toJSON() { return { boundTo: "Pet", name: this.name }; } }\n',
    'app.yaml': [
      '- restConfiguration:',
      '    bindingMode: auto',
      '    bindingPackageScan: ./model',
      '- rest:',
      '    openApi:',
      '      specification: petstore.json',
      '      missingOperation: ignore',
      '- route:',
      '    from:',
      '      uri: direct:updatePet',
      '      steps:',
      '        - setHeader:',
      '            name: X-Pet-Name',
      '            simple: ${body.name}',
      '',
    ].join('\n'),
  });
  const running = await serve(join(dir, 'app.yaml'));
  try {
    const res = await fetch(`${running.origin}/api/v3/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"name":"tony","status":"sold"}' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-pet-name'), 'tony');
    assert.equal(await res.text(), '{"boundTo":"Pet","name":"tony"}');
  } finally {
    await running.close();
  }
});

test('bindingClasses passed directly take part beside the scanned ones', async () => {
  const dir = tempDir({ 'model/pet.mjs': PET_MODULE });
  class Tag {
    name?: string;
    shout(): string {
      return `direct ${this.name}`;
    }
  }
  const seen: Seen = {};
  await bindPet(scanning(dir, { bindingClasses: [Tag], routes: { updatePet: recordPet(seen) } }));
  assert.deepEqual(seen, { pet: 'Pet', tags: ['Tag:direct big'] });
});

test('a missing bindingPackageScan directory fails startup naming it', async () => {
  const dir = tempDir();
  const config = scanning(dir, { restConfiguration: { bindingMode: 'json', bindingPackageScan: 'no-such-model-dir' } });
  await assert.rejects(serve(config), isScanError(/^bindingPackageScan no-such-model-dir: no such directory \(searched .+\)$/));
});

test('a bindingPackageScan that names a file fails startup', async () => {
  const dir = tempDir({ model: PET_MODULE });
  await assert.rejects(serve(scanning(dir)), isScanError(/model: is not a directory$/));
});

test('a module that throws on import fails startup naming the module and the reason', async () => {
  const dir = tempDir({ 'model/pet.mjs': PET_MODULE, 'model/broken.mjs': 'throw new Error("database not configured");\n' });
  await assert.rejects(serve(scanning(dir)), isScanError(/model\/broken\.mjs: cannot import: database not configured$/));
});

test('a .ts module with a syntax error fails startup naming the module', async () => {
  const dir = tempDir({ 'model/bad.ts': 'export class Broken { x: number = ; }\n' });
  await assert.rejects(serve(scanning(dir)), isScanError(/model\/bad\.ts: cannot import: /));
});

test('two different classes with the same name fail startup naming both modules', async () => {
  const dir = tempDir({ 'model/a.mjs': 'export class Pet {}\n', 'model/b.mjs': 'export class Pet {}\n' });
  await assert.rejects(serve(scanning(dir)), isScanError(/b\.mjs: class Pet is also defined in .*a\.mjs; class names must be unique$/));
});

test('with bindingMode off the scan directory is not imported, and a warning says so', async () => {
  const dir = tempDir({ 'model/broken.mjs': 'throw new Error("must not be imported");\n' });
  const running = await serve({ specification: PETSTORE, baseDir: dir, missingOperation: 'ignore', restConfiguration: { bindingPackageScan: 'model' } });
  try {
    assert.ok(running.logger.lines.some((line) => line === 'WARN bindingPackageScan model is not scanned: bindingMode is off'), running.logger.lines.join('\n'));
  } finally {
    await running.close();
  }
});

test('bindingClasses must be named classes', async () => {
  await assert.rejects(
    serve({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { bindingMode: 'json' }, bindingClasses: [function legacy() {}] }),
    (err: unknown) => err instanceof SvcError && err.code === 'SVC_CONFIG_INVALID' && /bindingClasses has invalid value function legacy; allowed: named classes/.test(err.message),
  );
});
