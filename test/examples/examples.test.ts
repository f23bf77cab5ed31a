// Every example runs exactly as its README says (issue 24): each examples/NAME folder is copied into a clone
// (linked: dist/, spec/, deploy/, node_modules/) and its README's marked commands are run there by the snippet
// runner (test/docs/snippet-runner.ts): servers started, curl lines sent, their printed answers compared.
// Ports 9000 and 9001 (backends) and 9876 (a management port) become free ports in the copy, files and commands alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';
import { cloneView, fixedPorts, runSnippets, withFreePorts } from '../docs/snippet-runner.js';

const EXAMPLES = join(ROOT, 'examples');

test('examples/: every folder has a README', () => {
  const folders = readdirSync(EXAMPLES, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
  assert.deepEqual(folders.filter((name) => !readdirSync(join(EXAMPLES, name)).includes('README.md')), []);
  for (const wanted of ['mock-only', 'sidecar', 'embedded-node-http', 'embedded-express', 'bearer-jwks', 'kubernetes', 'typescript-routes']) assert.ok(folders.includes(wanted), wanted);
});

for (const name of readdirSync(EXAMPLES, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort()) {
  test(`examples/${name}: runs as its README says`, { timeout: 300_000 }, async () => {
    const fixed = await fixedPorts();
    const dir = join(cloneView(), 'examples', name);
    cpSync(join(EXAMPLES, name), dir, { recursive: true });
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ya?ml|properties|m?[jt]s|json)$/.test(f))) {
      const path = join(dir, file);
      writeFileSync(path, withFreePorts(readFileSync(path, 'utf8'), fixed));
    }
    const ran = await runSnippets(`examples/${name}/README.md`, readFileSync(join(dir, 'README.md'), 'utf8'), dir, fixed);
    assert.ok(ran >= 2, `examples/${name}/README.md starts something and tries it (${ran} snippets ran)`);
  });
}
