// Every option on every surface (issue 23): svc.server.* (port, timeouts, workers) and svc.backend.* set in
// the YAML DSL (through the real CLI), the XML DSL, the fluent API and createFacade, each seen at work: where
// the facade listens, a half-sent request answered 408 after the headers timeout, a slow backend cut off at
// the backend timeout with a 504.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createFacade, RouteBuilder, SvcError, type Facade } from '../../lib/index.js';
import { memoryLogger, PETSTORE, ROOT, startCli, tempDir } from '../helpers.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));

/** A port free right now on 127.0.0.1 (the OS picks it; closed again before the facade takes it). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A backend that answers after two seconds: longer than every backend timeout set here. */
async function slowBackend(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createHttpServer((_req, res) => void setTimeout(() => res.end('{"id": 1}'), 2000).unref());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/pet`,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  };
}

/** The status line of a request whose headers never end, and how long the answer took. */
async function halfSentRequest(port: number): Promise<{ statusLine: string; ms: number }> {
  const started = Date.now();
  const socket = connect(port, '127.0.0.1');
  socket.write('GET /api/v3/pet/1 HTTP/1.1\r\nHost: x\r\n');
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  await new Promise((resolve) => socket.on('close', resolve).on('error', resolve));
  return { statusLine: received.split('\r\n')[0] ?? '', ms: Date.now() - started };
}

/** The answer to getPetById, routed to the slow backend, and how long it took. */
async function timedGet(origin: string): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${origin}/api/v3/pet/1`, { signal: AbortSignal.timeout(5000) });
  await res.arrayBuffer();
  return { status: res.status, ms: Date.now() - started };
}

/** Both surfaces' effects: the backend timeout (300 ms) and the headers timeout (1 s) at work. */
async function assertOptionsAtWork(origin: string, port: number): Promise<void> {
  const slow = await timedGet(origin);
  assert.equal(slow.status, 504, 'the backend timeout cut the slow backend off');
  assert.ok(slow.ms < 15_000, `504 after ${slow.ms} ms: the 300 ms backend timeout, not the default 30 s`);
  const half = await halfSentRequest(port);
  assert.equal(half.statusLine, 'HTTP/1.1 408 Request Timeout');
  assert.ok(half.ms >= 900 && half.ms < 9000, `408 after ${half.ms} ms: the 1 s headers timeout, not the default 10 s`);
}

/** Child processes of `pid` (the cluster's workers). */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc').filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid ? [Number(name)] : [];
    } catch {
      return [];
    }
  });
}

const sidecarYaml = (backend: string, settings: string): string => `# the whole sidecar in one file
- rest:
    openApi:
      specification: ${JSON.stringify(PETSTORE)}
      missingOperation: mock
${settings}
- route:
    from:
      uri: direct:getPetById
      steps:
        - to: ${backend}
`;

test('YAML DSL through the CLI: server (port, headers timeout, workers) and backend (timeout) items, no --port', async () => {
  const backend = await slowBackend();
  const port = await freePort();
  const dir = tempDir({
    'sidecar.yaml': sidecarYaml(backend.url, `- server:\n    host: 127.0.0.1\n    port: ${port}\n    headersTimeout: 1s\n    requestTimeout: 2s\n    workers: 2\n- backend:\n    timeout: 300ms\n    connectTimeout: 1s\n`),
  });
  const cli = startCli(process.execPath, [MAIN, join(dir, 'sidecar.yaml')], { cwd: dir, env: ENV });
  try {
    assert.equal(await cli.listening(), `http://127.0.0.1:${port}`, 'listens where the YAML says');
    await assertOptionsAtWork(`http://127.0.0.1:${port}`, port);
    for (let waited = 0; childrenOf(cli.child.pid!).length < 2 && waited < 10_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(childrenOf(cli.child.pid!).length, 2, 'two workers');
  } finally {
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited, 0, cli.output.stderr);
    await backend.close();
  }
});

test('YAML DSL through the CLI: restConfiguration port and host (Camel spells them there) are svc.server.port and host; --port wins', async () => {
  const port = await freePort();
  const dir = tempDir({ 'app.yaml': `- restConfiguration:\n    port: ${port}\n    host: 127.0.0.1\n    clientRequestValidation: true\n- rest:\n    openApi:\n      specification: ${JSON.stringify(PETSTORE)}\n      missingOperation: mock\n` });
  const cli = startCli(process.execPath, [MAIN, join(dir, 'app.yaml')], { cwd: dir, env: ENV });
  try {
    assert.equal(await cli.listening(), `http://127.0.0.1:${port}`);
    assert.equal((await fetch(`http://127.0.0.1:${port}/api/v3/pet/abc`)).status, 400, 'the rest options of the same item apply too');
  } finally {
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited, 0, cli.output.stderr);
  }
  const flagged = startCli(process.execPath, [MAIN, '--port', '0', join(dir, 'app.yaml')], { cwd: dir, env: ENV });
  try {
    assert.notEqual(await flagged.listening(), `http://127.0.0.1:${port}`, '--port 0 overrides the port in the file');
  } finally {
    flagged.child.kill('SIGTERM');
    await flagged.exited;
  }
});

test('YAML DSL through the CLI: a misspelt server or backend option, or a value out of range, fails the start naming it', async () => {
  const cases: [string, RegExp][] = [
    ['- server:\n    prot: 9123\n', /unknown option server\.prot; allowed: host, port, maxBodySize/],
    ['- server:\n    port: 70000\n', /option server\.port has invalid value 70000; allowed: an integer from 0 to 65535/],
    ['- backend:\n    timeout: soon\n', /option backend\.timeout has invalid value "soon"/],
    ['- restConfiguration:\n    prot: 9123\n', /unknown option prot; allowed: contextPath, .*, port, host, endpointProperty/],
    ['- server: 9123\n', /server must be a mapping/],
  ];
  for (const [yaml, message] of cases) {
    const dir = tempDir({ 'app.yaml': `${yaml}- rest:\n    openApi:\n      specification: ${JSON.stringify(PETSTORE)}\n      missingOperation: mock\n` });
    const child = spawn(process.execPath, [MAIN, join(dir, 'app.yaml')], { cwd: dir, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.equal(code, 2, yaml);
    assert.match(stderr, message, yaml);
  }
});

/** Serves a facade built by another surface on the port its configuration names (listen() without arguments). */
async function startedOnConfiguredPort(facade: Facade, port: number): Promise<void> {
  assert.equal(facade.serverOptions.port, port);
  const address = await facade.listen();
  assert.deepEqual([address.address, address.port], ['127.0.0.1', port]);
}

test('XML DSL: <server> and <backend> elements, and port on <restConfiguration>', async () => {
  const backend = await slowBackend();
  const port = await freePort();
  const dir = tempDir({
    'sidecar.xml': `<svc>
  <rest><openApi specification=${JSON.stringify(PETSTORE)} missingOperation="mock"/></rest>
  <server host="127.0.0.1" headersTimeout="1s" requestTimeout="2s" workers="3" maxBodySize="64KiB"/>
  <restConfiguration port="${port}"/>
  <backend timeout="300ms" maxConnections="8"/>
  <route><from uri="direct:getPetById"/><to uri="${backend.url}"/></route>
</svc>`,
  });
  const facade = await createFacade(join(dir, 'sidecar.xml'), { logger: memoryLogger(), env: {} });
  try {
    assert.equal(facade.serverOptions.workers, 3);
    assert.equal(facade.serverOptions.maxBodySize, 64 * 1024);
    await startedOnConfiguredPort(facade, port);
    await assertOptionsAtWork(`http://127.0.0.1:${port}`, port);
  } finally {
    await facade.stop();
    await backend.close();
  }
  const wrong = tempDir({ 'bad.xml': `<svc><server><port>1</port></server></svc>` });
  await assert.rejects(createFacade(join(wrong, 'bad.xml'), { env: {} }), (err: SvcError) => /<server> takes its options as attributes, not <port>/.test(err.message));
});

test('fluent API: this.server() and this.backend(), one method per option or typed options({...})', async () => {
  const backend = await slowBackend();
  const port = await freePort();
  class Sidecar extends RouteBuilder {
    override configure(): void {
      this.rest().openApi().specification(PETSTORE).missingOperation('mock');
      this.server().host('127.0.0.1').port(port).headersTimeout('1s').requestTimeout(2000).workers(2).shutdownTimeout('3s');
      this.backend().options({ timeout: '300ms', maxConnections: 16 }).exposeOrigin(false).trustedProxies('10.0.0.0/8', '127.0.0.1');
      this.from('direct:getPetById').to(backend.url);
    }
  }
  const facade = await createFacade(Sidecar, { logger: memoryLogger(), env: {} });
  try {
    assert.deepEqual([facade.serverOptions.workers, facade.serverOptions.shutdownTimeout], [2, 3000]);
    await startedOnConfiguredPort(facade, port);
    await assertOptionsAtWork(`http://127.0.0.1:${port}`, port);
  } finally {
    await facade.stop();
    await backend.close();
  }
  class CamelSpelling extends RouteBuilder {
    override configure(): void {
      this.rest().openApi().specification(PETSTORE).missingOperation('mock');
      this.restConfiguration().port(port).host('127.0.0.1').clientRequestValidation(true);
    }
  }
  const camel = await createFacade(CamelSpelling, { logger: memoryLogger(), env: {} });
  try {
    await startedOnConfiguredPort(camel, port);
  } finally {
    await camel.stop();
  }
  class Misspelt extends RouteBuilder {
    override configure(): void {
      this.rest().openApi().specification(PETSTORE).missingOperation('mock');
      // A misspelt option is a compile error in TypeScript; from JavaScript it fails the start.
      // @ts-expect-error prot is no server option
      this.server().options({ prot: 1 });
    }
  }
  await assert.rejects(createFacade(Misspelt, { env: {} }), (err: SvcError) => /unknown option server\.prot/.test(err.message));
});

test('createFacade: server, backend and restConfiguration.port objects', async () => {
  const backend = await slowBackend();
  const port = await freePort();
  const facade = await createFacade(
    {
      specification: PETSTORE,
      missingOperation: 'mock',
      restConfiguration: { port, clientRequestValidation: true },
      server: { host: '127.0.0.1', headersTimeout: '1s', requestTimeout: '2s', workers: 4 },
      backend: { timeout: 300, queueTimeout: '1s' },
      routes: { getPetById: [{ kind: 'to', uri: backend.url }] },
    },
    { logger: memoryLogger(), env: {} },
  );
  try {
    assert.equal(facade.serverOptions.workers, 4);
    await startedOnConfiguredPort(facade, port);
    await assertOptionsAtWork(`http://127.0.0.1:${port}`, port);
  } finally {
    await facade.stop();
    await backend.close();
  }
});
