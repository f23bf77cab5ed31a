// The built CLI and API run one bundle compiled with V8's code cache (scripts/build.mjs, dist/load.js).
// These start it as a user does and check that V8 takes the cache the build wrote, and that a cache it
// rejects (another node version) or SVC_CODE_CACHE=off only costs speed: the CLI starts and serves the same.
// dist/ must be built first (`npm test` does it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, startCli, tempDir } from '../helpers.js';
import { unenforcedSecurityWarning } from '../../lib/security/contract-security.js';

/** No coverage collection (V8 compiles differently for it) and no svc options from the outside. */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SVC_|NODE_OPTIONS$|NODE_V8_COVERAGE$)/.test(k)));

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { output, exited } = startCli(process.execPath, args, { cwd: ROOT, env: { ...ENV, ...env } });
  const code = await exited;
  return { code, ...output };
}

/** What V8 said of the cache when dist/load.js compiled the bundle: false = taken, true = rejected, undefined = none given. */
async function cacheVerdict(dist: string, env: NodeJS.ProcessEnv = {}): Promise<boolean | undefined> {
  const probe = `import(${JSON.stringify(pathToFileURL(join(dist, 'load.js')).href)}).then((m) => console.log(JSON.stringify({ rejected: m.script.cachedDataRejected ?? null })))`;
  const result = await run(['-e', probe], env);
  assert.equal(result.code, 0, result.stderr);
  return (JSON.parse(result.stdout) as { rejected: boolean | null }).rejected ?? undefined;
}

/** Starts `node DIST/main.js config.yaml`, asks it for a pet, and stops it with SIGTERM. */
async function serveOnce(dist: string, env: NodeJS.ProcessEnv = {}): Promise<{ status: number; body: unknown; stderr: string; code: number | null }> {
  const { child, output, exited, listening } = startCli(process.execPath, [join(dist, 'main.js'), join(ROOT, 'config.yaml'), '--port', '0', '--host', '127.0.0.1'], { cwd: ROOT, env: { ...ENV, ...env } });
  try {
    const res = await fetch(`${await listening()}/api/v3/pet/7`);
    const body: unknown = await res.json();
    child.kill('SIGTERM');
    const code = await exited;
    return { status: res.status, body, stderr: output.stderr, code };
  } finally {
    child.kill('SIGKILL');
  }
}

const PET_7 = { id: 7, name: 'doggie', status: 'available', photoUrls: [] };
/** What the bundled Petstore start says on stderr, cache or not: its security is not enforced (docs/security.md). */
const STDERR = `WARN ${unenforcedSecurityWarning(9)}\n`;

test('the build writes a code cache that V8 takes when node runs the bundle', async () => {
  const dist = join(ROOT, 'dist');
  assert.ok(readFileSync(join(dist, 'svc-facade.v8cache')).length > 100_000, 'the cache holds the compiled functions of a start');
  assert.equal(await cacheVerdict(dist), false, 'not rejected: same node, same flags as the build');
  assert.equal(await cacheVerdict(dist, { SVC_CODE_CACHE: 'off' }), undefined, 'SVC_CODE_CACHE=off gives V8 no cache');
  const served = await serveOnce(dist);
  assert.deepEqual([served.status, served.body, served.stderr, served.code], [200, PET_7, STDERR, 0]);
});

test('a cache V8 rejects (made by another node) or SVC_CODE_CACHE=off: the CLI starts and serves the same, silently', async () => {
  const dist = join(tempDir(), 'dist');
  cpSync(join(ROOT, 'dist'), dist, { recursive: true });
  const cache = readFileSync(join(dist, 'svc-facade.v8cache'));
  cache.fill(0x5a, 0, 64); // a header V8 cannot match: another version, another source
  writeFileSync(join(dist, 'svc-facade.v8cache'), cache);
  assert.equal(await cacheVerdict(dist), true, 'V8 rejects it');
  for (const env of [{}, { SVC_CODE_CACHE: 'off' }]) {
    const served = await serveOnce(dist, env);
    assert.deepEqual([served.status, served.body, served.stderr, served.code], [200, PET_7, STDERR, 0], JSON.stringify(env));
  }
});
