// The packed artifact (issue 12): what `npm install svc-facade` or the image gets. `npm pack` the package,
// install the tarball with production dependencies only into an empty folder, and run its `svc-facade`
// bin there against the bundled Petstore. Needs dist/ (`npm test` builds it) and the npm registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startCli, tempDir } from '../helpers.js';

/** The environment without npm's lifecycle variables (`npm test` sets them) and without svc options. */
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|SVC_|NODE_OPTIONS$)/i.test(k)));

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('npm pack, npm install --omit=dev of the tarball in an empty folder, then its svc-facade bin serves the Petstore and its health', { timeout: 300_000 }, async () => {
  assert.ok(existsSync(join(ROOT, 'dist/main.js')), 'dist/ is built (npm test builds it; by hand: npm run build)');
  const out = tempDir();
  const packed = await run('npm', ['pack', '--json', '--pack-destination', out], ROOT);
  assert.equal(packed.code, 0, packed.stderr);
  const [{ filename, files }] = JSON.parse(packed.stdout) as [{ filename: string; files: { path: string }[] }];
  const paths = files.map((f) => f.path);
  for (const needed of ['package.json', 'dist/main.js', 'dist/index.js', 'dist/index.d.ts', 'config.yaml', 'spec/petstore-v3.json']) assert.ok(paths.includes(needed), `the package has ${needed}`);
  for (const p of paths) assert.doesNotMatch(p, /^(lib|test|scripts|deploy|node_modules)\//, `the package carries no ${p}`);

  const app = tempDir();
  const installed = await run('npm', ['install', '--omit=dev', '--no-audit', '--no-fund', '--no-package-lock', join(out, filename)], app);
  assert.equal(installed.code, 0, installed.stderr);
  const modules = join(app, 'node_modules');
  assert.ok(existsSync(join(modules, 'svc-facade/dist/main.js')));
  for (const dev of ['typescript', 'c8', 'autocannon', '@types/node']) assert.ok(!existsSync(join(modules, dev)), `no dev dependency ${dev}`);
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

  const bin = join(modules, '.bin/svc-facade');
  assert.equal((await run(bin, ['--version'], app)).stdout, `svc-facade ${version}\n`);

  const { child, output, exited, listening } = startCli(bin, [join(modules, 'svc-facade/config.yaml'), '--port', '0', '--host', '127.0.0.1'], { cwd: app, env: ENV });
  try {
    const origin = await listening();
    const pet = await fetch(`${origin}/api/v3/pet/7`);
    assert.equal(pet.status, 200);
    assert.deepEqual(await pet.json(), { id: 7, name: 'doggie', status: 'available', photoUrls: [] });
    const mocked = await fetch(`${origin}/api/v3/pet/findByStatus?status=available`);
    assert.equal(mocked.status, 200, 'the mock files ship with the package');
    assert.ok(Array.isArray(await mocked.json()));
    const ready = await fetch(`${origin}/observe/health/ready`);
    assert.equal(ready.status, 200);
    assert.equal(((await ready.json()) as { status: string }).status, 'UP');
    assert.match(await (await fetch(`${origin}/observe/metrics`)).text(), /^svc_http_requests_total\{operationId="getPetById",method="GET",status_class="2xx"\} 1$/m);
    child.kill('SIGTERM');
    assert.equal(await exited, 0, output.stderr);
  } finally {
    child.kill('SIGKILL');
  }
});
