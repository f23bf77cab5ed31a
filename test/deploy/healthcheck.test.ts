// The image's HEALTHCHECK (deploy/Dockerfile → dist/healthcheck.js) against the real CLI (dist/main.js:
// `npm run build` first) started with the shipped Kubernetes configuration, where the management port is set
// in application.properties, not in the environment: the check must ask that port (the main port answers
// its health path with 404), pass while the facade serves and fail once it has stopped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT, startCli, tempDir } from '../helpers.js';

const DOCKERFILE = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8').replace(/\\\n\s*/g, '');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SVC_|NODE_OPTIONS$|NODE_V8_COVERAGE$)/.test(k)));

function runCheck(command: string[], env: NodeJS.ProcessEnv): Promise<number | null> {
  return new Promise((resolve) => spawn(process.execPath, command, { cwd: ROOT, env: { PATH: process.env.PATH, ...env }, stdio: 'ignore' }).on('close', resolve));
}

test('HEALTHCHECK asks the management port set in the shipped properties; passes while serving, fails once stopped', async () => {
  // The Dockerfile: an exec-form node command, and the variable that tells the CLI where to write its address.
  const command = JSON.parse(/^HEALTHCHECK .*CMD (\[.*\])$/m.exec(DOCKERFILE)![1]!) as string[];
  assert.deepEqual(command.slice(0, 1), ['node']);
  const script = command.slice(1);
  assert.ok(existsSync(join(ROOT, script[0]!)), `${script[0]} is built`);
  assert.match(DOCKERFILE, /^ENV .*SVC_HEALTHCHECK_FILE=\/tmp\/\S+/m);

  // The ConfigMap's files, ports 0 so that the test does not need 8080 and 9876 free.
  const { data } = parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes.yaml'), 'utf8')).map((d) => d.toJS() as { kind: string; data: Record<string, string> }).find((d) => d.kind === 'ConfigMap')!;
  const properties = data['application.properties']!;
  assert.match(properties, /^svc\.observe\.port=\d+$/m, 'the management port comes from the properties');
  const dir = tempDir({
    'app.yaml': data['app.yaml']!.replaceAll('/app/', `${ROOT}/`),
    'application.properties': properties.replace(/^svc\.observe\.port=\d+$/m, 'svc.observe.port=0').replace(/^svc\.observe\.drainDelay=.*$/m, 'svc.observe.drainDelay=0s'),
  });
  const file = join(dir, 'health.json');
  // As the image runs it, SVC_SERVER_PORT from the environment (here 0).
  const cli = startCli(process.execPath, [join(ROOT, 'dist/main.js'), join(dir, 'app.yaml')], { cwd: dir, env: { ...ENV, SVC_SERVER_PORT: '0', SVC_HEALTHCHECK_FILE: file } });
  const env = { SVC_HEALTHCHECK_FILE: file };
  try {
    assert.equal(await runCheck(script, env), 1, 'no file yet: not healthy');
    for (const deadline = Date.now() + 60_000; !existsSync(file); ) {
      if (Date.now() > deadline || cli.child.exitCode !== null) throw new Error(`no health file: ${cli.output.stdout} ${cli.output.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const target = JSON.parse(readFileSync(file, 'utf8')) as { health: string };
    const mainPort = /listening on http:\/\/[^:]+:(\d+)/.exec(cli.output.stdout)![1];
    const management = /health and metrics on http:\/\/[^:]+:(\d+)/.exec(cli.output.stdout)![1];
    assert.equal(target.health, `http://127.0.0.1:${management}/observe/health`);
    assert.notEqual(management, mainPort);
    // What the former check asked (the main port, as SVC_OBSERVE_PORT is not set): not health.
    assert.equal((await fetch(`http://127.0.0.1:${mainPort}/observe/health`)).status, 404);
    assert.equal(await runCheck(script, env), 0);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
  assert.equal(await runCheck(script, env), 1, 'stopped: not healthy');
  writeFileSync(file, '{');
  assert.equal(await runCheck(script, env), 1, 'a damaged file: not healthy');
});

test('HEALTHCHECK over HTTPS: the main port with svc.server.tls is asked as https://, its certificate not verified (a loopback self-check)', async () => {
  const { makePki } = await import('../http/pki.js');
  const pki = await makePki();
  writeFileSync(join(pki.dir, 'app.yaml'), `- server:\n    tls:\n      certFile: server.pem\n      keyFile: server.key\n- rest:\n    openApi:\n      specification: ${join(ROOT, 'spec/petstore-v3.json')}\n      missingOperation: mock\n`);
  const file = join(pki.dir, 'health.json');
  const cli = startCli(process.execPath, [join(ROOT, 'dist/main.js'), join(pki.dir, 'app.yaml'), '--port', '0', '--host', '127.0.0.1'], { cwd: pki.dir, env: { ...ENV, SVC_HEALTHCHECK_FILE: file } });
  const env = { SVC_HEALTHCHECK_FILE: file };
  try {
    for (const deadline = Date.now() + 15_000; !existsSync(file); ) {
      if (Date.now() > deadline || cli.child.exitCode !== null) throw new Error(`no health file: ${cli.output.stdout} ${cli.output.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const port = /listening on https:\/\/127\.0\.0\.1:(\d+)/.exec(cli.output.stdout)![1];
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { health: `https://127.0.0.1:${port}/observe/health` });
    assert.equal(await runCheck(['dist/healthcheck.js'], env), 0);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
  assert.equal(await runCheck(['dist/healthcheck.js'], env), 1, 'stopped: not healthy');
});
