// facade.reload() and facade.watch() embedded: a new version is swapped in on the same server, requests under
// way finish on the version they started on, a build that fails keeps the previous version serving.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CORPUS, getText, ROOT, serve, tempDir, thingContract, thingSchemas } from './helpers.js';
import type { RefResolver } from '../lib/contract/refs.js';
import { operationChanges } from '../lib/watch/changes.js';

const API = pathToFileURL(join(ROOT, 'lib/index.ts')).href;

const contract = (paths: Record<string, string>): string => thingContract('reload', paths);
const schemas = thingSchemas;

/** A route module: getSlow answers `text` after `delay` ms. */
const routes = (text: string, delay: number): string => `import { RouteBuilder } from '${API}';
export default class Routes extends RouteBuilder {
  configure() {
    this.from('direct:getSlow').process(async (ex) => {
      await new Promise((resolve) => setTimeout(resolve, ${delay}));
      ex.message.body = { v: '${text}' };
    });
  }
}
`;

const CONFIG = `- rest:
    openApi:
      specification: contract.json
      missingOperation: mock
`;

/** GET over a fresh connection: status and body. */
const get = (origin: string, path: string): Promise<{ status: number; body: string }> => getText(origin, path);

function project(): string {
  return tempDir({
    'config.yaml': CONFIG,
    'routes.mjs': routes('one', 0),
    'contract.json': contract({ '/a': 'getA', '/slow': 'getSlow' }),
    'schemas.json': schemas('first'),
  });
}

test('reload() swaps in a new version on the same server, reports what changed, and keeps serving after a failed build', async () => {
  const dir = project();
  const running = await serve([join(dir, 'config.yaml'), join(dir, 'routes.mjs')], { env: {} });
  try {
    const { facade, origin } = running;
    const server = facade.server;
    assert.equal((await get(origin, '/b')).status, 404);
    assert.deepEqual(JSON.parse((await get(origin, '/a')).body), { v: 'first' });

    // A new operation, and a change in the $ref'd file: added and changed.
    writeFileSync(join(dir, 'contract.json'), contract({ '/a': 'getA', '/b': 'getB', '/slow': 'getSlow' }));
    writeFileSync(join(dir, 'schemas.json'), schemas('second'));
    const changes = await facade.reload();
    assert.deepEqual(changes, { added: ['GET /b -> direct:getB'], removed: [], changed: ['GET /a -> direct:getA', 'GET /slow -> direct:getSlow'] });
    assert.equal(facade.server, server, 'the same server, never re-bound');
    assert.deepEqual(JSON.parse((await get(origin, '/b')).body), { v: 'second' });
    assert.deepEqual(JSON.parse((await get(origin, '/a')).body), { v: 'second' });
    assert.deepEqual(facade.operations.map((op) => op.operation.id).sort(), ['getA', 'getB', 'getSlow']);

    // A broken save: reload() rejects naming the problem, the previous version answers on.
    writeFileSync(join(dir, 'contract.json'), '{"openapi": "3.0.3", "paths": ');
    await assert.rejects(facade.reload(), /contract\.json/);
    assert.equal((await get(origin, '/b')).status, 200);

    // Recovery, with /b removed.
    writeFileSync(join(dir, 'contract.json'), contract({ '/a': 'getA', '/slow': 'getSlow' }));
    assert.deepEqual(await facade.reload(), { added: [], removed: ['GET /b -> direct:getB'], changed: [] });
    assert.equal((await get(origin, '/b')).status, 404);
  } finally {
    await running.close();
  }
});

test('a request under way when reload() swaps finishes on its version; the route module is imported anew', async () => {
  const dir = project();
  writeFileSync(join(dir, 'routes.mjs'), routes('old', 400));
  const running = await serve([join(dir, 'config.yaml'), join(dir, 'routes.mjs')], { env: {} });
  try {
    const { facade, origin } = running;
    const slow = get(origin, '/slow');
    await new Promise((resolve) => setTimeout(resolve, 100)); // under way in the old route
    writeFileSync(join(dir, 'routes.mjs'), routes('new', 0));
    assert.deepEqual(await facade.reload(), { added: [], removed: [], changed: ['GET /slow -> direct:getSlow'] });
    assert.deepEqual(JSON.parse((await get(origin, '/slow')).body), { v: 'new' });
    assert.deepEqual(await slow, { status: 200, body: JSON.stringify({ v: 'old' }) });
  } finally {
    await running.close();
  }
});

test('watch(): a save (also by rename, as editors do) is served within 500 ms; a failed one is logged on one line; stop() closes the watchers', async () => {
  const dir = project();
  const running = await serve([join(dir, 'config.yaml'), join(dir, 'routes.mjs')], { env: {} });
  const { facade, origin, logger } = running;
  try {
    facade.watch();
    const until = async (check: () => Promise<boolean>): Promise<number> => {
      const start = Date.now();
      while (!(await check())) {
        if (Date.now() - start > 5000) throw new Error(`not within 5 s; log: ${logger.lines.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return Date.now() - start;
    };
    // Saved by writing a temporary file and renaming it over the $ref'd one.
    writeFileSync(join(dir, 'schemas.json.tmp'), schemas('renamed'));
    renameSync(join(dir, 'schemas.json.tmp'), join(dir, 'schemas.json'));
    const latency = await until(async () => (await get(origin, '/a')).body.includes('renamed'));
    console.log(`# watch(): a $ref'd file saved by rename served after ${latency} ms`);
    assert.ok(latency < 500, `${latency} ms`);
    assert.ok(logger.lines.includes('INFO reload: changed GET /a -> direct:getA'), logger.lines.join('\n'));

    writeFileSync(join(dir, 'schemas.json'), '{');
    await until(async () => logger.lines.some((line) => line.startsWith('ERROR reload failed')));
    const failure = logger.lines.filter((line) => line.startsWith('ERROR reload failed'));
    assert.equal(failure.length, 1, failure.join('\n'));
    assert.match(failure[0]!, /^ERROR reload failed, still serving the previous version: .*schemas\.json/);
    assert.doesNotMatch(failure[0]!, /\n|    at /);
    assert.ok((await get(origin, '/a')).body.includes('renamed'));

    // A contract naming a file that is not there yet fails; creating the file then recovers.
    writeFileSync(join(dir, 'contract.json'), contract({ '/a': 'getA', '/slow': 'getSlow' }).replaceAll('schemas.json', 'later.json'));
    await until(async () => logger.lines.filter((line) => line.startsWith('ERROR reload failed')).length === 2);
    assert.match(logger.lines.at(-1)!, /later\.json/);
    writeFileSync(join(dir, 'later.json'), schemas('created later'));
    await until(async () => (await get(origin, '/a')).body.includes('created later'));
  } finally {
    await running.close();
  }
  // Closed: a later save changes nothing.
  const lines = logger.lines.length;
  writeFileSync(join(dir, 'schemas.json'), schemas('after stop'));
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(logger.lines.length, lines, logger.lines.slice(lines).join('\n'));
});

test('watch(): after a good reload the watch list is the new version\'s: a file the contract now $refs is watched', async () => {
  const dir = project();
  const running = await serve([join(dir, 'config.yaml'), join(dir, 'routes.mjs')], { env: {} });
  const { facade, origin, logger } = running;
  const until = async (what: string, check: () => Promise<boolean>): Promise<void> => {
    for (const start = Date.now(); !(await check()); await new Promise((resolve) => setTimeout(resolve, 5))) {
      if (Date.now() - start > 5000) throw new Error(`${what}: not within 5 s; log: ${logger.lines.join('\n')}`);
    }
  };
  try {
    facade.watch();
    // The file exists before the contract names it, so this reload succeeds (a failed one would widen the watch to every file).
    writeFileSync(join(dir, 'other.json'), schemas('other one'));
    writeFileSync(join(dir, 'contract.json'), contract({ '/a': 'getA', '/slow': 'getSlow' }).replaceAll('schemas.json', 'other.json'));
    await until('the switch to other.json', async () => (await get(origin, '/a')).body.includes('other one'));
    assert.ok(!logger.lines.some((line) => line.startsWith('ERROR')), logger.lines.join('\n'));
    writeFileSync(join(dir, 'other.json'), schemas('other two'));
    await until('a change in other.json', async () => (await get(origin, '/a')).body.includes('other two'));
  } finally {
    await running.close();
  }
});

test('a TypeScript route module is imported anew on reload; a save that does not compile is refused naming the line', async () => {
  const dir = project();
  // The module is CommonJS (no "type": "module" beside it), as is the case under test; it takes RouteBuilder
  // from this process's ES module copy of the API (a global), not by importing lib/ itself, which would load a
  // second, CommonJS copy of lib/ whose coverage c8 cannot merge with the first (it reported lib/ at 83 %).
  (globalThis as { svcApiForTest?: unknown }).svcApiForTest = await import(API);
  const ts = (text: string): string => `const { RouteBuilder } = (globalThis as any).svcApiForTest;
export default class Routes extends RouteBuilder {
  override configure(): void {
    this.from('direct:getSlow').process((ex) => { ex.message.body = { v: '${text}' as string }; });
  }
}
`;
  writeFileSync(join(dir, 'routes.ts'), ts('ts one'));
  const running = await serve([join(dir, 'config.yaml'), join(dir, 'routes.ts')], { env: {} });
  try {
    const { facade, origin } = running;
    assert.deepEqual(JSON.parse((await get(origin, '/slow')).body), { v: 'ts one' });
    writeFileSync(join(dir, 'routes.ts'), `${ts('ts two')}\nconst broken = (;\n`);
    await assert.rejects(facade.reload(), (err: Error) => {
      assert.match(err.message, /routes\.ts: cannot import: .*routes\.ts:8:\d+/);
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
    assert.deepEqual(JSON.parse((await get(origin, '/slow')).body), { v: 'ts one' });
    writeFileSync(join(dir, 'routes.ts'), ts('ts three'));
    await facade.reload();
    assert.deepEqual(JSON.parse((await get(origin, '/slow')).body), { v: 'ts three' });
  } finally {
    await running.close();
  }
});

test("the replaced version's backend connections are closed once its last request is done, not left to their idle timeout", async () => {
  const sockets = new Set<import('node:net').Socket>();
  const backend = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"v":"from the backend"}');
  });
  backend.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const dir = project();
  const origin = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
  const running = await serve(
    { specification: join(dir, 'contract.json'), missingOperation: 'mock', backend: { idleTimeout: '60s' }, routes: { getA: [{ kind: 'to', uri: `${origin}/a` }] } },
    { env: {} },
  );
  try {
    assert.deepEqual(JSON.parse((await get(running.origin, '/a')).body), { v: 'from the backend' });
    assert.equal(sockets.size, 1, 'a pooled connection to the backend');
    await running.facade.reload();
    for (const deadline = Date.now() + 30_000; sockets.size > 0; ) {
      assert.ok(Date.now() < deadline, 'the old pool still holds its connection');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.deepEqual(JSON.parse((await get(running.origin, '/a')).body), { v: 'from the backend' }, 'the new version has its own pool');
  } finally {
    await running.close();
    backend.closeAllConnections();
    await new Promise((resolve) => backend.close(resolve));
  }
});

test('the management port stays and answers for the current version', async () => {
  const dir = project();
  const running = await serve({ specification: join(dir, 'contract.json'), missingOperation: 'mock', observe: { port: 0, host: '127.0.0.1' } }, { env: {} });
  try {
    const { facade } = running;
    const management = `http://127.0.0.1:${facade.managementAddress!.port}`;
    const operations = async (): Promise<unknown> => ((await (await fetch(`${management}/observe/health`)).json()) as { checks: { name: string; data?: { operations?: number } }[] }).checks.find((c) => c.name === 'contract')?.data?.operations;
    assert.equal(await operations(), 2);
    writeFileSync(join(dir, 'contract.json'), contract({ '/a': 'getA', '/b': 'getB', '/slow': 'getSlow' }));
    await facade.reload();
    assert.equal(`http://127.0.0.1:${facade.managementAddress!.port}`, management, 'the same management server');
    assert.equal(await operations(), 3);
  } finally {
    await running.close();
  }
});

test("a large contract (Stripe's, 2.8 MB, 384 operations, deeply $ref'd) reloads with its changes found in linear work", async () => {
  const dir = tempDir();
  const contractFile = join(dir, 'openapi.yaml');
  cpSync(join(CORPUS, 'apisguru-stripe-2020-08-27/openapi.yaml'), contractFile);
  const running = await serve({ specification: contractFile, missingOperation: 'mock' }, { env: {} });
  try {
    const { facade } = running;
    // The work counted, not timed: telling two versions apart resolves each `$ref` of the contract at most
    // once per version (a target is hashed once however many operations reach it), where expanding the
    // references would resolve them once per path through Stripe's graph. Past the bound the counter stops
    // the work, and this comes first, so a regression fails here rather than hanging the reloads below.
    const refs = refCount(facade.contract.refs.root);
    let resolved = 0;
    const counting = (resolver: RefResolver): RefResolver =>
      new Proxy(resolver, {
        get(target, key) {
          if (key !== 'resolveRef') return Reflect.get(target, key, target) as unknown;
          return (ref: string, uri: string) => {
            if (++resolved > 2 * refs) throw new Error('over the bound');
            return target.resolveRef(ref, uri);
          };
        },
      });
    const version = () => ({ operations: facade.operations, contract: { refs: counting(facade.contract.refs) }, config: { routes: [] } });
    assert.deepEqual(operationChanges(version(), version()), { added: [], removed: [], changed: [] });
    console.log(`# Stripe: ${resolved} $refs resolved to compare two versions; the contract has ${refs}`);
    assert.ok(resolved > 0 && resolved <= 2 * refs, `${resolved} $refs resolved for a contract of ${refs}`);

    assert.deepEqual(await facade.reload(), { added: [], removed: [], changed: [] });
    // One schema many operations reach, changed: those operations, and only those, are reported.
    const text = readFileSync(contractFile, 'utf8');
    writeFileSync(contractFile, text.replace(/^(    account:\n      description: )/m, '$1Changed. '));
    const started = performance.now();
    const changes = await facade.reload();
    const ms = Math.round(performance.now() - started);
    console.log(`# Stripe reload with one schema changed: ${ms} ms, ${changes.changed.length} operations changed`);
    assert.ok(changes.changed.length > 0 && changes.changed.length < facade.operations.length, `${changes.changed.length} changed`);
    assert.ok(changes.changed.includes('GET /v1/account -> direct:GetAccount'), changes.changed.slice(0, 5).join(', '));
    assert.deepEqual([changes.added, changes.removed], [[], []]);
  } finally {
    await running.close();
  }
});

/** How many `$ref`s a document holds. */
function refCount(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const own = typeof (value as { $ref?: unknown }).$ref === 'string' ? 1 : 0;
  return own + Object.values(value).reduce((sum: number, v) => sum + refCount(v), 0);
}
