// The observe options through the real CLI (`node dist/main.js`, built by `npm test`): JSON log lines on
// stdout, the management port through SIGTERM, and what each node:cluster worker reports.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));

interface Cli {
  stdout: () => string;
  stderr: () => string;
  signal: (name: NodeJS.Signals) => void;
  exited: Promise<number | null>;
  /** Resolves with the first match of `pattern` in stdout (waiting for it). */
  waitFor: (pattern: RegExp) => Promise<RegExpExecArray>;
}

function cli(args: string[], env: Record<string, string>): Cli {
  const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env: { ...ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  let code: number | null | undefined;
  const exited = new Promise<number | null>((resolve) => child.on('close', (c) => resolve((code = c))));
  const waitFor = async (pattern: RegExp): Promise<RegExpExecArray> => {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const m = pattern.exec(stdout);
      if (m) return m;
      if (code !== undefined) throw new Error(`the CLI exited with ${code}: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`no ${pattern} on stdout: ${stdout} ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  test.after(() => void child.kill('SIGKILL'));
  return { stdout: () => stdout, stderr: () => stderr, signal: (s) => void child.kill(s), exited, waitFor };
}

/** Polls `check` until it is true (the server decides when; no timing is asserted). */
async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test('logFormat json: every stdout line is a JSON object, the listing and the access log included', async () => {
  const app = cli(['config.yaml', '--port', '0', '--host', '127.0.0.1'], { SVC_OBSERVE_LOGFORMAT: 'json', SVC_OBSERVE_ACCESSLOG: 'true' });
  const [, port] = await app.waitFor(/"msg":"listening on http:\/\/127\.0\.0\.1:(\d+)"/);
  const res = await fetch(`http://127.0.0.1:${port}/api/v3/pet/7`, { headers: { 'x-request-id': 'cli-json' } });
  assert.equal(res.status, 200);
  await app.waitFor(/"msg":"access"/);
  app.signal('SIGTERM');
  assert.equal(await app.exited, 0);
  const records = app.stdout().trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
  assert.ok(records.some((r) => r.msg === 'GET /api/v3/pet/{petId} -> direct:getPetById [route]' && r.level === 'info'));
  const access = records.find((r) => r.msg === 'access')!;
  assert.deepEqual([access.method, access.path, access.operationId, access.status, access.requestId], ['GET', '/api/v3/pet/7', 'getPetById', 200, 'cli-json']);
  for (const line of app.stderr().split('\n').filter(Boolean)) JSON.parse(line);
});

test('management port: printed at startup; after SIGTERM ready is 503 there while the in-flight request completes, then exit 0', async () => {
  const dir = tempDir();
  const gate = join(dir, 'open');
  const app = cli([join(ROOT, 'test/fixtures/observe/gated.ts'), '--port', '0', '--host', '127.0.0.1'], { SVC_OBSERVE_PORT: '0', SVC_OBSERVE_HOST: '127.0.0.1', GATE_FILE: gate });
  const [, managementPort] = await app.waitFor(/^health and metrics on http:\/\/127\.0\.0\.1:(\d+)$/m);
  const [, port] = await app.waitFor(/^listening on http:\/\/127\.0\.0\.1:(\d+)$/m);
  const management = `http://127.0.0.1:${managementPort}`;
  assert.equal((await fetch(`${management}/observe/health/ready`)).status, 200);

  const inFlight = fetch(`http://127.0.0.1:${port}/api/v3/store/inventory`);
  await until('the request is in flight', async () => /^svc_http_requests_in_flight 1$/m.test(await (await fetch(`${management}/observe/metrics`)).text()));
  app.signal('SIGTERM');
  await until('ready turns 503', async () => (await fetch(`${management}/observe/health/ready`)).status === 503);
  assert.equal((await fetch(`${management}/observe/health/live`)).status, 200);
  writeFileSync(gate, '');
  const res = await inFlight;
  assert.equal(res.status, 200);
  assert.deepEqual(await res.json(), { finished: true });
  assert.equal(await app.exited, 0);
});

test('svc.server.workers=2: each worker answers health and its own metrics, labelled worker="<id>"', async () => {
  const app = cli(['config.yaml', '--port', '0', '--host', '127.0.0.1'], { SVC_SERVER_WORKERS: '2' });
  const [, port] = await app.waitFor(/^listening on http:\/\/127\.0\.0\.1:(\d+)$/m);
  const origin = `http://127.0.0.1:${port}`;
  assert.equal((await fetch(`${origin}/observe/health/ready`)).status, 200);
  const workers = new Set<string>();
  await until('both workers answered a scrape', async () => {
    // A fresh connection each time, so the primary hands it to either worker.
    const text = await (await fetch(`${origin}/observe/metrics`, { headers: { connection: 'close' } })).text();
    const labels = [...text.matchAll(/^svc_http_requests_in_flight\{worker="(\d+)"\} \d+$/gm)].map((m) => m[1]!);
    assert.equal(labels.length, 1, 'one scrape is one worker');
    workers.add(labels[0]!);
    return workers.size === 2;
  });
  assert.deepEqual([...workers].sort(), ['1', '2']);
  app.signal('SIGTERM');
  assert.equal(await app.exited, 0);
});
