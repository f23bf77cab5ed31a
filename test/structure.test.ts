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
