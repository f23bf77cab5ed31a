// Dependencies point one way: no module of lib/ reaches itself again through its imports (type-only
// imports included), so a feature never imports from the module that assembles it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './helpers.js';

const LIB = join(ROOT, 'lib');

function importGraph(): Map<string, string[]> {
  const files = readdirSync(LIB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => resolve(LIB, f));
  return new Map(files.map((f) => [f, [...readFileSync(f, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].map((m) => resolve(dirname(f), `${m[1]}.ts`))]));
}

test('lib/ has no import cycles', () => {
  const graph = importGraph();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)).concat(next).map((f) => relative(LIB, f)).join(' -> '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of graph.keys()) if (!state.has(file)) visit(file);
  assert.ok(graph.size > 40, 'the graph was read');
  assert.deepEqual(cycles, []);
});

// Folders in three kinds. Basic folders hold what every part of the request path uses (the message model,
// codecs, schema semantics, the contract, wire-level HTTP); features add one capability each; the assembly
// builds a facade from them. Each kind may import its own kind and those below it, and a feature no other
// feature: what two features share moves down into a basic folder (docs/architecture.md).
const BASIC = ['util', 'http', 'contract', 'message', 'codec', 'schema', 'parameters', 'config'];
const FEATURES = ['validation', 'binding', 'mock', 'sequences', 'security', 'routes', 'observe', 'watch', 'types', 'publish'];
const ASSEMBLY = ['facade', 'cli', '.'];

function folderOf(file: string): string {
  const parts = relative(LIB, file).split('/');
  return parts.length === 1 ? '.' : parts[0]!;
}

/** Every import of lib/, static, type-only and dynamic, as [from folder, to folder, from file, to file]. */
function folderImports(): [string, string, string, string][] {
  const files = readdirSync(LIB, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).map((f) => resolve(LIB, f));
  return files.flatMap((f) =>
    [...readFileSync(f, 'utf8').matchAll(/(?:from |import\()'(\.{1,2}\/[^']+)\.js'/g)].map((m): [string, string, string, string] => {
      const target = resolve(dirname(f), `${m[1]}.ts`);
      return [folderOf(f), folderOf(target), relative(LIB, f), relative(LIB, target)];
    }),
  );
}

test('every folder of lib/ is of one kind', () => {
  const folders = new Set(readdirSync(LIB, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name));
  assert.deepEqual([...folders].filter((f) => ![...BASIC, ...FEATURES, ...ASSEMBLY].includes(f)), [], 'a new folder is listed in test/structure.test.ts');
});

test('a basic folder imports no feature and no assembly; a feature imports no other feature', () => {
  const imports = folderImports();
  assert.ok(imports.length > 300, 'the imports were read');
  const wrong = imports.filter(([from, to]) => {
    if (from === to) return false;
    if (BASIC.includes(from)) return !BASIC.includes(to);
    if (FEATURES.includes(from)) return !BASIC.includes(to);
    return false;
  });
  assert.deepEqual(wrong.map(([, , f, t]) => `${f} -> ${t}`), []);
});
