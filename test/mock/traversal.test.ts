// No request path may read a file outside the mock folder (SPEC §7). Secrets lie beside the mock folder and
// in its parent; every request is sent as raw bytes (fetch would normalize `..` away) against operations
// whose templates accept anything per segment, so each attempt really reaches the mock file lookup.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { serve, tempDir, type Running } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

const SECRET = 'TOPSECRET';
const op = (operationId: string, params: string[]) => ({
  operationId,
  parameters: params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
  responses: { '200': { description: 'ok', content: { 'application/json': {}, 'application/xml': {} } } },
});
const CONTRACT = {
  openapi: '3.0.3',
  info: { title: 'traversal', version: '1' },
  paths: {
    '/{a}': { get: op('one', ['a']) },
    '/{a}/{b}': { get: op('two', ['a', 'b']) },
    '/{a}/{b}/{c}': { get: op('three', ['a', 'b', 'c']) },
    '/{a}/{b}/{c}/{d}': { get: op('four', ['a', 'b', 'c', 'd']) },
    '/{a}/{b}/{c}/{d}/{e}': { get: op('five', ['a', 'b', 'c', 'd', 'e']) },
  },
};

let app: Running;

before(async () => {
  // root/secret.json                 (the mock folder's grandparent)
  // root/app/secret.json             (beside the mock folder)
  // root/app/contract.json
  // root/app/svc-mock/pet/ok.json    (a real mock file: the lookup works)
  // root/app/svc-mock/link.json      -> ../secret.json (a symlink leaving the folder)
  // root/app/svc-mock/up             -> ..             (a directory symlink leaving the folder)
  // root/app/svc-mock/inside.json    -> pet/ok.json    (a symlink staying inside: allowed)
  const root = tempDir({
    'secret.json': `{"secret":"${SECRET}-parent"}`,
    'secret.xml': `<secret>${SECRET}-parent</secret>`,
    'app/secret.json': `{"secret":"${SECRET}-beside"}`,
    'app/secret.xml': `<secret>${SECRET}-beside</secret>`,
    'app/contract.json': JSON.stringify(CONTRACT),
    'app/svc-mock/pet/ok.json': '{"ok":true}',
  });
  const mocks = join(root, 'app/svc-mock');
  symlinkSync('../secret.json', join(mocks, 'link.json'));
  symlinkSync('..', join(mocks, 'up'));
  symlinkSync('pet/ok.json', join(mocks, 'inside.json'));
  mkdirSync(join(mocks, 'empty'));
  app = await serve({ specification: 'contract.json', missingOperation: 'mock', baseDir: join(root, 'app') });
});
after(() => app.close());

test('control: a file inside the folder, and a symlink staying inside it, are served', async () => {
  assert.equal((await rawRequest(app.origin, '/pet/ok')).body, '{"ok":true}');
  assert.equal((await rawRequest(app.origin, '/inside')).body, '{"ok":true}');
  assert.ok(app.logger.lines.some((l) => l.includes('link.json is a symlink leading outside')));
});

const ATTEMPTS = [
  '/../secret',
  '/../../secret',
  '/pet/../../secret',
  '/%2e%2e/secret',
  '/%2E%2E/%2E%2E/secret',
  '/%2E%2E%2Fsecret',
  '/pet/%2e%2e%2f%2e%2e%2fsecret',
  '/..%2fsecret',
  '/..%2Fsecret',
  '/..%5csecret',
  '/..%5C..%5Csecret',
  '/..\\secret',
  '/pet\\..\\..\\secret',
  '/secret%00',
  '/..%2fsecret.json%00',
  '/%00/../secret',
  '/....//secret',
  '/...../secret',
  '/.%2e/secret',
  '/%2e./secret',
  '/%252e%252e/secret',
  '/%252e%252e%252fsecret',
  '/%c0%ae%c0%ae/secret',
  '/etc/passwd',
  '//etc/passwd',
  '/%2Fetc%2Fpasswd',
  `/%2F${encodeURIComponent(join(process.cwd()))}`,
  '/C:%5Csecret',
  '/C:/secret',
  '/c%3A%5Csecret',
  '/link',
  '/up/secret',
  '/up/up/secret',
  '/./secret',
  '/pet/./ok/../../secret',
];

test(`none of ${ATTEMPTS.length} traversal encodings, with either Accept, reads a file outside the mock folder`, async () => {
  for (const path of ATTEMPTS) {
    for (const accept of ['application/json', 'application/xml']) {
      const res = await rawRequest(app.origin, path, { headers: { accept } });
      assert.ok(!res.body.includes(SECRET), `${path} (${accept}) leaked: ${res.body}`);
      assert.ok(res.status < 500, `${path} (${accept}) failed with ${res.status}`);
      // No file answers: a 200 is the body synthesized from the contract (its media types have no schema).
      const synthesized = res.status === 200 && (res.body === '{}' || /^<\?xml [^>]*\?><root><\/root>$/.test(res.body));
      assert.ok(synthesized || res.status === 404 || res.status === 400, `${path} (${accept}) answered ${res.status} ${res.body}`);
    }
  }
});

test('empty or dot segments in the middle select no file, even when dropping them would name one', async () => {
  for (const path of ['/pet//ok', '/pet/./ok', '/./pet/ok', '/pet/%2E/ok', '/pet%2Fok', '/pet%5Cok']) {
    const res = await rawRequest(app.origin, path);
    assert.notEqual(res.body, '{"ok":true}', path);
  }
});
