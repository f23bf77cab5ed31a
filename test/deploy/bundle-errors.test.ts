// What a user sees of the bundle (dist/, `npm run build` first) when something fails: an uncaught startup
// error in a program embedding svc-facade prints one short source line, not kilobytes of the minified bundle;
// stack traces do not name the directory the build ran in (the code cache keeps that name); under
// `node --enable-source-maps` they name the lib/*.ts lines. And the build is skipped when nothing changed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, tempDir } from '../helpers.js';

const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SVC_|NODE_OPTIONS$|NODE_V8_COVERAGE$)/.test(k)));

/** A program that embeds the API from `dist` and fails to start: the contract does not exist. */
function failingEmbedder(dist: string, flags: string[] = []): { status: number | null; stderr: string } {
  const dir = tempDir({ 'app.mjs': `import { createFacade } from '${pathToFileURL(join(dist, 'index.js')).href}';\nawait createFacade({ specification: 'no-such-contract.json' });\n` });
  const run = spawnSync(process.execPath, [...flags, join(dir, 'app.mjs')], { cwd: dir, env: ENV, encoding: 'utf8' });
  return { status: run.status, stderr: run.stderr };
}

test('an uncaught startup error when embedding: the message after one short source line; no build directory in the trace', () => {
  const { status, stderr } = failingEmbedder(join(ROOT, 'dist'));
  assert.equal(status, 1);
  const before = stderr.slice(0, stderr.indexOf('SvcError: The given OpenApi specification cannot be loaded from: no-such-contract.json'));
  assert.ok(before.length > 0 && before.length < 1000, `${before.length} characters before the message:\n${before.slice(0, 2000)}`);
  for (const line of stderr.split('\n')) assert.ok(line.length <= 400, `a line of ${line.length} characters`);

  // dist/ copied elsewhere, as the image's build stage copies /src/dist to /app/dist.
  const elsewhere = tempDir();
  cpSync(join(ROOT, 'dist'), join(elsewhere, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(elsewhere, 'package.json'));
  const moved = failingEmbedder(join(elsewhere, 'dist'));
  assert.match(moved.stderr, /at loadContract \(svc-facade\/dist\/svc-facade\.cjs:\d+:\d+\)/);
  assert.doesNotMatch(moved.stderr, new RegExp(`${ROOT}/dist`), 'the build directory');
});

test('node --enable-source-maps: the trace names lines of lib/*.ts through the shipped map', () => {
  const { stderr } = failingEmbedder(join(ROOT, 'dist'), ['--enable-source-maps']);
  assert.match(stderr, /at loadContract \(\S*lib\/contract\/load\.ts:\d+:\d+\)/, stderr);
});

test('npm run build is skipped when no input changed, in well under a second', () => {
  // dist/ is current (npm test builds first; the stamp is the hash of the inputs).
  const started = performance.now();
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, env: ENV, encoding: 'utf8' });
  const ms = performance.now() - started;
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /dist\/ is up to date/);
  assert.ok(ms < 30_000, `${Math.round(ms)} ms`);
});
