// tsx is an optional peer dependency: the built CLI runs without it, and a `.ts` route module or binding
// class given without it fails startup naming the file and the missing package (exit code 2). The CLI runs
// from a copy of the built package whose node_modules holds only the production dependencies (linked to
// this checkout's), as `npm install --omit=dev` of the tarball leaves it; with tsx linked too, the same
// module loads. dist/ must be built first (`npm test` does it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PETSTORE, ROOT, tempDir } from '../helpers.js';

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));

const ROUTES_TS = `import { RouteBuilder, type Exchange } from 'svc-facade';
export default class Routes extends RouteBuilder {
  override configure(): void {
    this.rest().openApi().specification(${JSON.stringify(PETSTORE)}).missingOperation('ignore');
    this.from('direct:getPetById').process((ex: Exchange) => { ex.message.body = { id: Number(ex.header('petId')), via: 'ts' }; });
  }
}
`;

/** An app folder with `node_modules/svc-facade` = a copy of the built package, and its production dependencies (plus `extra`) linked. */
function installedApp(files: Record<string, string>, extra: string[] = []): { app: string; main: string } {
  const app = tempDir({ 'package.json': '{ "type": "module" }', ...files });
  const pkg = join(app, 'node_modules/svc-facade');
  mkdirSync(join(pkg, 'node_modules'), { recursive: true });
  cpSync(join(ROOT, 'dist'), join(pkg, 'dist'), { recursive: true });
  cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
  for (const name of [...Object.keys(PACKAGE.dependencies ?? {}), ...extra]) symlinkSync(join(ROOT, 'node_modules', name), join(pkg, 'node_modules', name), 'dir');
  return { app, main: join(pkg, 'dist/main.js') };
}

function run(main: string, args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [main, '--port', '0', '--host', '127.0.0.1', ...args], { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    if (/listening on http:\/\/\S+:(\d+)\n/.test(stdout)) child.kill('SIGTERM');
  });
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('without tsx, a .ts route module fails startup naming the file and the package: exit code 2, one line', async () => {
  const { app, main } = installedApp({ 'routes.ts': ROUTES_TS });
  const file = join(app, 'routes.ts');
  const result = await run(main, [file], app);
  assert.equal(result.code, 2, result.stderr);
  assert.equal(result.stderr, `svc-facade: ${file}: a .ts module needs the package tsx, which is not installed; install it (npm install tsx) or compile the module to .js\n`);
});

test('without tsx, a .ts binding class fails startup the same way; .yaml and .mjs configurations start', async () => {
  const config = `- rest:\n    openApi:\n      specification: ${JSON.stringify(PETSTORE)}\n      missingOperation: ignore\n`;
  const { app, main } = installedApp({
    'app.yaml': config,
    'bound.yaml': `${config}- restConfiguration:\n    bindingMode: json\n    bindingPackageScan: ./model\n`,
    'model/pet.ts': 'export class Pet { id = 0; }\n',
    'routes.mjs': ROUTES_TS.replace(', type Exchange', '').replace('override ', '').replace(': void', '').replace('(ex: Exchange)', '(ex)'),
  });
  const bound = await run(main, [join(app, 'bound.yaml')], app);
  assert.equal(bound.code, 2, bound.stderr);
  // The Petstore declares security nothing enforces here: that WARN comes first (docs/security.md#contract-security).
  assert.equal(bound.stderr.replace(/^WARN \d+ operation\(s\) declare security requirements[^\n]*\n/, ''), `svc-facade: ${join(app, 'model/pet.ts')}: a .ts module needs the package tsx, which is not installed; install it (npm install tsx) or compile the module to .js\n`);
  for (const file of ['app.yaml', 'routes.mjs']) {
    const plain = await run(main, [join(app, file)], app);
    assert.match(plain.stdout, /listening on http:\/\//, `${file}: ${plain.stderr}`);
    assert.equal(plain.code, 0);
  }
});

test('with tsx installed beside it, the same .ts route module loads and serves', async () => {
  const { app, main } = installedApp({ 'routes.ts': ROUTES_TS }, ['tsx']);
  const child = spawn(process.execPath, [main, '--port', '0', '--host', '127.0.0.1', join(app, 'routes.ts')], { cwd: app, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const port = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const m = /listening on http:\/\/\S+:(\d+)\n/.exec(stdout);
        if (m) resolve(m[1]!);
      });
      child.on('close', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
    });
    const res = await fetch(`http://127.0.0.1:${port}/api/v3/pet/7`);
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { id: 7, via: 'ts' });
  } finally {
    child.kill('SIGTERM');
  }
});
