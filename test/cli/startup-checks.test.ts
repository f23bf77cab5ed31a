// The startup checks of issue 22 through the real CLI (`node dist/main.js`, built by `npm run build`): a
// reference that does not resolve and an orphan route each stop startup with exit code 1, one line on stderr
// naming what is wrong and where, and nothing on stdout.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PETSTORE, ROOT, tempDir } from '../helpers.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [MAIN, ...args], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

test('a request body $ref that does not resolve: exit code 1, the reference and its JSON Pointer on stderr', async () => {
  const petstore = JSON.parse(readFileSync(PETSTORE, 'utf8'));
  petstore.paths['/pet'].post.requestBody.content['application/json'].schema = { $ref: '#/components/schemas/Pett' };
  const dir = tempDir({
    'openapi.json': JSON.stringify(petstore),
    'cfg.yaml': '- rest:\n    openApi:\n      specification: openapi.json\n      missingOperation: mock\n',
  });
  const { code, stdout, stderr } = await run(['--port', '0', join(dir, 'cfg.yaml')]);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.equal(stderr, "svc-facade: Cannot resolve $ref '#/components/schemas/Pett' used at openapi.json#/paths/~1pet/post/requestBody/content/application~1json/schema (reached from POST /pet): no value at /components/schemas/Pett\n");
});

test('an orphan route: exit code 1, the route and the closest operationId on stderr', async () => {
  const dir = tempDir({
    'petstore.json': readFileSync(PETSTORE),
    'cfg.yaml': '- rest:\n    openApi:\n      specification: petstore.json\n      missingOperation: mock\n- route:\n    from:\n      uri: direct:getPetByID\n      steps:\n        - setBody:\n            constant: x\n',
  });
  const cfg = join(dir, 'cfg.yaml');
  const { code, stdout, stderr } = await run(['--port', '0', cfg]);
  assert.equal(code, 1);
  assert.equal(stdout, '');
  assert.equal(stderr, `svc-facade: 1 route(s) consume from a direct: endpoint that is no operation of the contract and that no other route calls:\n\tdirect:getPetByID (${cfg}): did you mean direct:getPetById?\n`);
});
