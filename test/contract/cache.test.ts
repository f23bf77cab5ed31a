// The parsed-contract cache for big YAML contracts: an entry per content hash, used on the next load, and
// every way it can go wrong (corrupt entry, unwritable place, values JSON cannot carry, too many entries)
// ends in the contract parsed as without a cache.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { cacheDirectory, MAX_ENTRIES, MIN_CACHED_LENGTH } from '../../lib/contract/cache.js';
import { loadContract } from '../../lib/contract/load.js';
import { createFacade, silentLogger } from '../../lib/index.js';
import { CORPUS, tempDir } from '../helpers.js';

const STRIPE = join(CORPUS, 'apisguru-stripe-2020-08-27/openapi.yaml');
const saved = process.env.SVC_CONTRACT_CACHE;
afterEach(() => {
  if (saved === undefined) delete process.env.SVC_CONTRACT_CACHE;
  else process.env.SVC_CONTRACT_CACHE = saved;
});

function useCache(): string {
  const dir = join(tempDir(), 'cache');
  process.env.SVC_CONTRACT_CACHE = dir;
  return dir;
}

const entries = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.json'));

/** A YAML contract above the caching threshold (the padding is a long description). */
function bigYaml(title: string, extra = ''): string {
  return `openapi: 3.0.3\ninfo:\n  title: ${title}\n  version: '1'\n  description: ${'x'.repeat(MIN_CACHED_LENGTH)}\n${extra}paths:\n  /ping:\n    get:\n      operationId: ping\n      responses:\n        '200':\n          description: ok\n          content:\n            application/json:\n              example: { pong: ${JSON.stringify(title)} }\n`;
}

test('a big YAML contract is stored once per content and the next load reads the entry', async () => {
  const dir = useCache();
  const first = await loadContract(STRIPE, CORPUS);
  assert.deepEqual(first.doc, parse(readFileSync(STRIPE, 'utf8')), 'the first load parses');
  const [entry] = entries(dir);
  assert.ok(entry, 'one entry written');
  assert.equal(entries(dir).length, 1);
  assert.equal(statSync(dir).mode & 0o777, 0o700, 'the directory is private');

  // The entry is what the next load uses: change what it holds and the load says so.
  const stored = JSON.parse(readFileSync(join(dir, entry), 'utf8')) as { key: string; doc: { info: { title: string } } };
  stored.doc.info.title = 'from the cache';
  writeFileSync(join(dir, entry), JSON.stringify(stored));
  const second = await loadContract(STRIPE, CORPUS);
  assert.equal((second.doc.info as { title: string }).title, 'from the cache');
  assert.equal(entries(dir).length, 1);
});

test('a contract served from the cache behaves as a parsed one', async () => {
  useCache();
  const files = { 'api.yaml': bigYaml('served') };
  const base = tempDir(files);
  for (let i = 0; i < 2; i++) {
    const facade = await createFacade({ specification: join(base, 'api.yaml'), missingOperation: 'mock' }, { logger: silentLogger });
    const address = await facade.listen(0, '127.0.0.1');
    try {
      const res = await fetch(`http://127.0.0.1:${address.port}/ping`);
      assert.equal(res.status, 200, `load ${i + 1}`);
      assert.deepEqual(await res.json(), { pong: 'served' });
    } finally {
      await facade.stop();
    }
  }
});

test('a corrupt or foreign entry is ignored: the contract is parsed and the entry written again', async () => {
  const dir = useCache();
  const base = tempDir({ 'api.yaml': bigYaml('corrupt') });
  await loadContract('api.yaml', base);
  const [entry] = entries(dir);
  const path = join(dir, entry!);
  for (const bad of ['{"key":"', '[]', 'null', JSON.stringify({ key: 'another hash', doc: { openapi: '3.0.3' } })]) {
    writeFileSync(path, bad);
    const contract = await loadContract('api.yaml', base);
    assert.equal((contract.doc.info as { title: string }).title, 'corrupt', bad);
    assert.equal((JSON.parse(readFileSync(path, 'utf8')) as { doc: { info: { title: string } } }).doc.info.title, 'corrupt', 'rewritten');
  }
});

test('no cache when it is off, when the place cannot be a directory, or for small contracts', async () => {
  const base = tempDir({ 'api.yaml': bigYaml('off'), 'small.yaml': 'openapi: 3.0.3\ninfo: { title: small, version: "1" }\npaths: {}\n', 'file': 'not a directory' });
  process.env.SVC_CONTRACT_CACHE = 'off';
  assert.equal(cacheDirectory(), undefined);
  assert.equal(((await loadContract('api.yaml', base)).doc.info as { title: string }).title, 'off');

  process.env.SVC_CONTRACT_CACHE = join(base, 'file');
  assert.equal(((await loadContract('api.yaml', base)).doc.info as { title: string }).title, 'off', 'a file where the directory should be');

  // A symbolic link or a directory others may write to could hold entries planted by another user.
  const target = join(base, 'target');
  mkdirSync(target, { mode: 0o700 });
  symlinkSync(target, join(base, 'link'), 'dir');
  process.env.SVC_CONTRACT_CACHE = join(base, 'link');
  assert.equal(((await loadContract('api.yaml', base)).doc.info as { title: string }).title, 'off');
  assert.deepEqual(entries(target), [], 'nothing written through the link');
  const shared = join(base, 'shared');
  mkdirSync(shared);
  chmodSync(shared, 0o777);
  process.env.SVC_CONTRACT_CACHE = shared;
  assert.equal(((await loadContract('api.yaml', base)).doc.info as { title: string }).title, 'off');
  assert.deepEqual(entries(shared), [], 'nothing written where others may write');

  const dir = useCache();
  await loadContract('small.yaml', base);
  mkdirSync(dir, { recursive: true });
  assert.deepEqual(entries(dir), [], 'small contracts parse faster than a cache lookup');
});

test('values JSON cannot carry (.inf, NaN) are never cached, so they stay as YAML gives them', async () => {
  const dir = useCache();
  const base = tempDir({ 'api.yaml': bigYaml('inf', 'x-limits: { max: .inf, none: .nan }\n') });
  for (let i = 0; i < 2; i++) {
    const limits = (await loadContract('api.yaml', base)).doc['x-limits'] as { max: number; none: number };
    assert.equal(limits.max, Infinity);
    assert.ok(Number.isNaN(limits.none));
  }
  assert.deepEqual(entries(dir), []);
});

test(`at most ${MAX_ENTRIES} entries are kept, the most recently used`, async () => {
  const dir = useCache();
  const files: Record<string, string> = {};
  for (let i = 0; i < MAX_ENTRIES + 4; i++) files[`api${i}.yaml`] = bigYaml(`contract ${i}`);
  const base = tempDir(files);
  for (let i = 0; i < MAX_ENTRIES + 4; i++) await loadContract(`api${i}.yaml`, base);
  assert.equal(entries(dir).length, MAX_ENTRIES);
  assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.tmp')), [], 'no temporary files left');
});
