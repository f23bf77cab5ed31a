// The real CLI, `node dist/main.js`, as a child process (SPEC §1): listing, flags, exit codes, signals.
// dist/ must be built first (`npm test` does it; by hand: npx tsc -p tsconfig.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PETSTORE, ROOT, tempDir } from '../helpers.js';

const MAIN = join(ROOT, 'dist/main.js');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

function start(args: string[], cwd = ROOT): { child: ChildProcess; output: { stdout: string; stderr: string }; done: Promise<Finished> } {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const done = new Promise<Finished>((resolve) => child.on('close', (code) => resolve({ code, ...output })));
  return { child, output, done };
}

const run = (args: string[], cwd?: string): Promise<Finished> => start(args, cwd).done;

/** Waits until the CLI prints its `listening on` line; returns the origin. */
async function listening(output: { stdout: string; stderr: string }, done: Promise<Finished>): Promise<string> {
  const deadline = Date.now() + 60_000;
  let exited: Finished | undefined;
  void done.then((f) => (exited = f));
  for (;;) {
    const m = /listening on http:\/\/([^:\s]+):(\d+)\n/.exec(output.stdout);
    if (m) return `http://127.0.0.1:${m[2]}`;
    if (exited) throw new Error(`the CLI exited with ${exited.code}: ${exited.stderr}`);
    if (Date.now() > deadline) throw new Error(`no listening line; stdout: ${output.stdout} stderr: ${output.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const specYaml = (extra = '') => `- rest:\n    openApi:\n      specification: ${JSON.stringify(PETSTORE)}\n${extra}`;

test('unmapped operations: exit code 1, the exact message on stderr, no stack trace', async () => {
  const dir = tempDir({ 'app.yaml': specYaml() });
  const { code, stdout, stderr } = await run([join(dir, 'app.yaml')]);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  const ids = ['addPet', 'createUser', 'createUsersWithListInput', 'deleteOrder', 'deletePet', 'deleteUser', 'findPetsByStatus', 'findPetsByTags', 'getInventory', 'getOrderById', 'getPetById', 'getUserByName', 'loginUser', 'logoutUser', 'placeOrder', 'updatePet', 'updatePetWithForm', 'updateUser', 'uploadFile'];
  assert.equal(stderr, `svc-facade: OpenAPI specification has 19 unmapped operations to corresponding routes:${ids.map((id) => `\n\tdirect:${id}`).join('')}\n`);
});

test('--port 0 prints the listing and the chosen port; SIGTERM lets an in-flight request finish, then exit 0', async () => {
  const { child, output, done } = start(['--port', '0', '--host', '127.0.0.1', join(ROOT, 'test/fixtures/fluent/routes.ts')]);
  try {
    const origin = await listening(output, done);
    const lines = output.stdout.trim().split('\n');
    assert.equal(lines.length, 20, output.stdout);
    assert.ok(lines.includes('GET /api/v3/pet/{petId} -> direct:getPetById [route]'));
    assert.ok(lines.includes('PUT /api/v3/pet -> direct:updatePet [ignored]'));
    assert.match(lines.at(-1)!, /^listening on http:\/\/127\.0\.0\.1:\d+$/);
    assert.match(output.stderr, /^WARN missingOperation=ignore: 16 operation\(s\) have no route/m);
    assert.deepEqual(await (await fetch(`${origin}/api/v3/pet/5`)).json(), { id: 5, via: 'ts' }, 'a .ts module runs');

    const slow = fetch(`${origin}/api/v3/store/inventory`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const signalled = Date.now();
    child.kill('SIGTERM');
    const res = await slow;
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { finished: true });
    const { code } = await done;
    assert.equal(code, 0);
    const took = Date.now() - signalled;
    assert.ok(took < 3000, `exit ${took} ms after SIGTERM: the kept-alive connection must not hold it for the keep-alive timeout`);
  } finally {
    child.kill('SIGKILL');
  }
});

test('SIGINT stops too; a .mjs module and --dev are accepted', async () => {
  const { child, output, done } = start(['--port=0', '--host=127.0.0.1', '--dev', join(ROOT, 'test/fixtures/fluent/routes.mjs')]);
  try {
    const origin = await listening(output, done);
    assert.ok(output.stdout.includes('GET /fluent/pet/{petId} -> direct:getPetById [route]'));
    assert.equal((await fetch(`${origin}/fluent/pet/2`)).headers.get('x-pet'), '2');
    child.kill('SIGINT');
    assert.equal((await done).code, 0);
  } finally {
    child.kill('SIGKILL');
  }
});

test('--help and --version print to stdout and exit 0', async () => {
  const [help, version] = await Promise.all([run(['--help']), run(['--version'])]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: svc-facade \[options\] FILE\.\.\./);
  for (const flag of ['--port N', '--host H', '--dev', '--help', '--version']) assert.ok(help.stdout.includes(flag), flag);
  assert.equal(version.code, 0);
  assert.equal(version.stdout, `svc-facade ${VERSION}\n`);
});

test('bad flags, missing or unreadable files and config errors: exit code 2 with one line on stderr', async () => {
  const dir = tempDir({
    'bad-mode.yaml': specYaml('- restConfiguration:\n    bindingMode: jsonish\n'),
    'ok.yaml': specYaml('      missingOperation: ignore\n'),
    'notes.txt': 'x',
    'throws-null.mjs': 'throw null;\n',
    'rejects.mjs': 'await Promise.reject(undefined);\n',
    // Beyond what node's timers hold (2^31 - 1 ms): node would crash at listen, or make it 1 ms.
    'huge-request-timeout.properties': 'svc.server.requestTimeout=99999999999999999999\n',
    'huge-shutdown-timeout.properties': 'svc.server.shutdownTimeout=40000m\n',
  });
  mkdirSync(join(dir, 'folder.yaml'));
  const cases: [string[], RegExp][] = [
    [['--bogus', 'x.yaml'], /^svc-facade: unknown option --bogus; allowed: --port, --host, --dev, --watch, --help, --version\n$/],
    [['--port'], /^svc-facade: option --port needs a value\n$/],
    [['--port', 'eighty', join(dir, 'ok.yaml')], /^svc-facade: --port: option server\.port has invalid value "eighty"; allowed: an integer from 0 to 65535\n$/],
    [[], /^svc-facade: no configuration file given \(try --help\)\n$/],
    [[join(dir, 'absent.yaml')], /^svc-facade: .*absent\.yaml: no such file\n$/],
    [[join(dir, 'folder.yaml')], /^svc-facade: .*folder\.yaml: cannot read: EISDIR\n$/],
    [[join(dir, 'notes.txt')], /^svc-facade: .*notes\.txt: unknown file type \.txt; allowed: /],
    [[join(dir, 'bad-mode.yaml')], /^svc-facade: .*bad-mode\.yaml: option bindingMode has invalid value "jsonish"; allowed: off, auto, json, xml, json_xml\n$/],
    [[join(dir, 'throws-null.mjs')], /^svc-facade: .*throws-null\.mjs: cannot import: null\n$/],
    [[join(dir, 'rejects.mjs')], /^svc-facade: .*rejects\.mjs: cannot import: undefined\n$/],
    [[join(dir, 'ok.yaml'), join(dir, 'huge-request-timeout.properties')], /^svc-facade: .*huge-request-timeout\.properties: option server\.requestTimeout has invalid value "99999999999999999999"; allowed: .*at most 2147483647 ms/],
    [[join(dir, 'ok.yaml'), join(dir, 'huge-shutdown-timeout.properties')], /^svc-facade: .*huge-shutdown-timeout\.properties: option server\.shutdownTimeout has invalid value "40000m"; allowed: /],
  ];
  const results = await Promise.all(cases.map(([args]) => run(args)));
  for (const [i, [args, message]] of cases.entries()) {
    const { code, stdout, stderr } = results[i]!;
    assert.equal(code, 2, `${args.join(' ')}: ${stderr}`);
    assert.equal(stdout, '');
    assert.match(stderr, message);
    assert.doesNotMatch(stderr, /\n\s+at /, 'no stack trace');
  }
});

test('a contract that cannot be loaded: exit code 1 naming the location', async () => {
  const dir = tempDir({ 'app.yaml': '- rest:\n    openApi:\n      specification: missing-contract.json\n' });
  const { code, stderr } = await run([join(dir, 'app.yaml')]);
  assert.equal(code, 1);
  assert.match(stderr, /^svc-facade: The given OpenApi specification cannot be loaded from: missing-contract\.json\. No such file in the resource roots/);
});

test('svc.server.workers=2 runs two cluster workers on one port; the listing is printed once; SIGTERM stops all', async () => {
  const dir = tempDir({ 'app.yaml': specYaml('      missingOperation: ignore\n'), 'app.properties': 'svc.server.workers=2\nsvc.server.host=127.0.0.1\n' });
  const { child, output, done } = start(['--port', '0', join(dir, 'app.yaml'), join(dir, 'app.properties')]);
  try {
    const origin = await listening(output, done);
    assert.equal(output.stdout.split('\n').filter((l) => l.startsWith('GET /api/v3/pet/{petId} ')).length, 1);
    assert.equal((await fetch(`${origin}/api/v3/user/logout`)).status, 204);
    child.kill('SIGTERM');
    assert.equal((await done).code, 0);
  } finally {
    child.kill('SIGKILL');
  }
});

test('with workers, a startup failure is reported once and the exit code is kept', async () => {
  const dir = tempDir({ 'app.yaml': specYaml(), 'app.properties': 'svc.server.workers=2\n' });
  const { code, stdout, stderr } = await run(['--port', '0', join(dir, 'app.yaml'), join(dir, 'app.properties')]);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.equal(stderr.match(/unmapped operations/g)?.length, 1, stderr);
});
