// `svc-facade mock` enforces the contract's security for presence, as Prism does; `--no-security` (or
// SVC_REST_CLIENTSECURITYVALIDATION=false) lets everyone in, with the startup warning; `svc-facade validate`
// says how many operations a configured server leaves unenforced. Through the real CLI (dist/main.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CORPUS, ROOT, startCli } from '../helpers.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));
const MUSEUM = join(CORPUS, 'redocly-museum/openapi.yaml');
const BASE = '/_mock/docs/openapi/museum-api';
const WARNING = '8 operation(s) declare security requirements that nothing enforces: any client may call them. Set restConfiguration clientSecurityValidation: true (svc.rest.clientSecurityValidation=true) to enforce them (docs/security.md#contract-security)';

async function mock(args: string[], env: NodeJS.ProcessEnv = ENV): Promise<{ statuses: number[]; challenge: string | null; stderr: string }> {
  const cli = startCli(process.execPath, [MAIN, 'mock', ...args, MUSEUM, '--port', '0', '--host', '127.0.0.1'], { cwd: ROOT, env });
  try {
    const origin = await cli.listening();
    const bare = await fetch(`${origin}${BASE}/museum-hours`);
    await bare.arrayBuffer();
    const authorized = await fetch(`${origin}${BASE}/museum-hours`, { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` } });
    await authorized.arrayBuffer();
    return { statuses: [bare.status, authorized.status], challenge: bare.headers.get('www-authenticate'), stderr: cli.output.stderr };
  } finally {
    cli.child.kill('SIGKILL');
  }
}

test('mock enforces the presence of the credentials the contract asks for, and says nothing about it', async () => {
  const { statuses, challenge, stderr } = await mock([]);
  assert.deepEqual(statuses, [401, 200]);
  assert.equal(challenge, 'Basic realm="MuseumPlaceholderAuth", charset="UTF-8"');
  assert.equal(stderr, '');
});

test('mock --no-security and SVC_REST_CLIENTSECURITYVALIDATION=false let everyone in, with one WARN saying so', async () => {
  for (const [args, env] of [[['--no-security'], ENV], [[], { ...ENV, SVC_REST_CLIENTSECURITYVALIDATION: 'false' }]] as const) {
    const { statuses, stderr } = await mock([...args], env);
    assert.deepEqual(statuses, [200, 200]);
    assert.equal(stderr, `WARN ${WARNING}\n`);
  }
});

test('validate lists the unenforced security as a warning; the contract is still ok', async () => {
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    const child = spawn(process.execPath, [MAIN, 'validate', MUSEUM], { cwd: ROOT, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('close', (code) => resolve({ code, stdout }));
  });
  assert.equal(code, 0);
  assert.ok(stdout.includes(`  warning: ${WARNING}\n`), stdout);
  assert.match(stdout, /openapi\.yaml: ok \(1 warning\(s\)\)\n$/);
});
