// The CLI's startup output (SPEC §1, §2, seed §2.1): the exact listing (routes, skipped webhooks and
// callbacks), the `listening on` line as a usable URL, and a consumer URI that names an operation refused.
// dist/ must be built first (`npm test` does it; by hand: npx tsc -p tsconfig.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { PETSTORE, ROOT, tempDir } from '../helpers.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));

/** Runs the CLI until it prints its `listening on` line (then stops it) or exits by itself. */
function runUntilListening(args: string[], cwd = ROOT): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no listening line in time; stdout: ${stdout} stderr: ${stderr}`));
    }, 15_000);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      if (/listening on .*\n/.test(stdout)) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, stdout, stderr });
    });
  });
}

const CALLBACKS = {
  openapi: '3.1.0',
  info: { title: 'callbacks', version: '1' },
  servers: [{ url: 'https://example.com/{stage}/', variables: { stage: { default: 'v2' } } }],
  paths: {
    '/subscriptions': {
      post: {
        operationId: 'subscribe',
        callbacks: { onEvent: { '{$request.body#/url}': { post: { responses: { '200': { description: 'ok' } } } } } },
        responses: { '201': { description: 'created' } },
      },
    },
    '/items/{id}': { get: { responses: { '200': { description: 'ok' } } } },
  },
  webhooks: { newItem: { post: { responses: { '200': { description: 'ok' } } } } },
};

test('the startup listing: one exact line per operation, then the skipped webhooks and callbacks, then where it listens', async () => {
  const dir = tempDir({
    'callbacks.json': JSON.stringify(CALLBACKS),
    'app.yaml': '- rest:\n    openApi:\n      specification: callbacks.json\n      missingOperation: mock\n- route:\n    from:\n      uri: direct:subscribe\n      steps: []\n',
  });
  // Run from the temporary directory, so no mock folder is found (its info line would come first).
  const { code, stdout } = await runUntilListening(['--port', '0', '--host', '127.0.0.1', join(dir, 'app.yaml')], dir);
  assert.equal(code, 0);
  const lines = stdout.trimEnd().split('\n');
  assert.equal(lines.pop(), 'stopping: SIGTERM', 'the stop the test asked for is logged last');
  assert.deepEqual(lines.slice(0, -1), [
    'POST /v2/subscriptions -> direct:subscribe [route]',
    'GET /v2/items/{id} -> direct:GENOPID_GET.items._id_ [mock]',
    'skipped 1 webhook(s): webhooks are not served',
    'skipped 1 callback(s): callbacks are not served',
  ]);
  assert.match(lines.at(-1)!, /^listening on http:\/\/127\.0\.0\.1:[1-9]\d*$/, '--port 0 prints the chosen port');
});

/** Whether this machine can listen on the IPv6 loopback at all (some containers disable IPv6). */
function ipv6Loopback(): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(0, '::1', () => probe.close(() => resolve(true)));
  });
}

test('an IPv6 host is printed in brackets, so the listening line is a URL', async () => {
  const dir = tempDir({ 'app.yaml': `- rest:\n    openApi:\n      specification: ${JSON.stringify(PETSTORE)}\n      missingOperation: ignore\n` });
  const { code, stdout, stderr } = await runUntilListening(['--port', '0', '--host', '::1', join(dir, 'app.yaml')]);
  if (await ipv6Loopback()) {
    assert.equal(code, 0, stderr);
    const line = stdout.trimEnd().split('\n').at(-2)!; // the last says `stopping: SIGTERM`
    assert.match(line, /^listening on http:\/\/\[::1\]:[1-9]\d*$/);
    assert.equal(new URL(line.slice('listening on '.length)).hostname, '[::1]');
  } else {
    // Without IPv6 the CLI says so, once, and exits 1.
    assert.equal(code, 1);
    assert.match(stderr, /^svc-facade: Cannot listen on ::1:0: /);
  }
});

test('a rest-openapi consumer URI naming one operation (#operationId) is refused: it identifies the specification only', async () => {
  const dir = tempDir({ 'app.yaml': `- from:\n    uri: rest-openapi:${PETSTORE}#getPetById?missingOperation=ignore\n` });
  const { code, stdout, stderr } = await runUntilListening([join(dir, 'app.yaml')]);
  assert.equal(code, 2);
  assert.equal(stdout, '');
  assert.equal(
    stderr,
    `svc-facade: ${join(dir, 'app.yaml')}: option from.uri has invalid value rest-openapi:${PETSTORE}#getPetById?missingOperation=ignore; allowed: a rest-openapi URI without #operationId (the consumer serves the whole contract)\n`,
  );
});
