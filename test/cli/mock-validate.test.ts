// The one-line commands through the real CLI (`node dist/main.js`, built by `npm test`):
// `svc-facade mock CONTRACT` serves a contract from the mock with no configuration file, requests validated;
// `svc-facade validate CONTRACT...` loads each as the server would and exits non-zero when one cannot start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PETSTORE, ROOT, startCli, tempDir } from '../helpers.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));

function run(args: string[], cwd: string, env: NodeJS.ProcessEnv = ENV): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const ITEMS = `openapi: 3.1.0
info: { title: Items, version: '1' }
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer, minimum: 1 } }
      responses:
        '200':
          description: one item
          content:
            application/json:
              schema:
                type: object
                required: [id, name]
                properties:
                  id: { type: integer }
                  name: { type: string, enum: [lamp, desk, chair] }
                  price: { type: number, minimum: 0 }
  /items:
    post:
      operationId: addItem
      requestBody:
        required: true
        content:
          application/json:
            schema: { type: object, required: [name], properties: { name: { type: string } } }
      responses:
        '201': { description: created }
`;

test('mock: a contract served from the mock with no configuration file; requests are validated; SIGTERM exits 0', async () => {
  const dir = tempDir({ 'items.yaml': ITEMS, 'svc-mock/items/7.json': '{"id":7,"name":"desk"}' });
  const cli = startCli(process.execPath, [MAIN, 'mock', 'items.yaml', '--port', '0', '--host', '127.0.0.1'], { cwd: dir, env: ENV });
  try {
    const origin = await cli.listening();
    assert.match(cli.output.stdout, /^GET \/items\/\{id\} -> direct:getItem \[mock\]$/m);
    assert.match(cli.output.stdout, /^POST \/items -> direct:addItem \[mock\]$/m);
    const synthesized = await fetch(`${origin}/items/1`);
    assert.equal(synthesized.status, 200);
    const body = (await synthesized.json()) as { id: number; name: string };
    assert.equal(typeof body.id, 'number');
    assert.ok(['lamp', 'desk', 'chair'].includes(body.name), body.name);
    assert.deepEqual(await (await fetch(`${origin}/items/7`)).json(), { id: 7, name: 'desk' }, 'svc-mock/ beside the contract answers first');
    const invalid = await fetch(`${origin}/items/0`);
    assert.equal(invalid.status, 400, 'request validation is on');
    assert.deepEqual(((await invalid.json()) as { errors: unknown[] }).errors, [{ in: 'path', name: 'id', pointer: '', message: 'must be >= 1' }]);
    const noBody = await fetch(`${origin}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    assert.equal(noBody.status, 400);
    // A valid body passes validation and is answered by the mock (what it answers is test/mock's subject).
    const valid = await fetch(`${origin}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"lamp"}' });
    assert.equal(valid.status, 201, 'the declared success status');
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited, 0, cli.output.stderr);
  } finally {
    cli.child.kill('SIGKILL');
  }
});

test('mock --dynamic: fresh data on every request, the same for the same seed; without it the body is fixed', async () => {
  const dir = tempDir({ 'items.yaml': ITEMS });
  const bodies = async (args: string[]): Promise<string[]> => {
    const cli = startCli(process.execPath, [MAIN, 'mock', join(dir, 'items.yaml'), '--port=0', '--host=127.0.0.1', ...args], { cwd: ROOT, env: ENV });
    try {
      const origin = await cli.listening();
      const get = async (seed: number) => (await fetch(`${origin}/items/3`, { headers: { prefer: `seed=${seed}` } })).text();
      return [await get(1), await get(2), await get(1)];
    } finally {
      cli.child.kill('SIGKILL');
    }
  };
  const [fixedA, fixedB] = await bodies([]);
  assert.equal(fixedA, fixedB);
  const [one, two, oneAgain] = await bodies(['--dynamic']);
  assert.notEqual(one, two);
  assert.equal(one, oneAgain);
});

test('mock and validate take a contract by http(s) URL, read once at startup', async () => {
  let reads = 0;
  const server = createServer((req, res) => {
    reads++;
    res.writeHead(req.url === '/items.yaml' ? 200 : 404, { 'content-type': 'application/yaml' }).end(req.url === '/items.yaml' ? ITEMS : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/items.yaml`;
  try {
    const checked = await run(['validate', url], ROOT);
    assert.equal(checked.code, 0, checked.stderr);
    assert.match(checked.stdout, /^ {2}GET \/items\/\{id\} -> direct:getItem$/m);
    const cli = startCli(process.execPath, [MAIN, 'mock', url, '--port', '0', '--host', '127.0.0.1'], { cwd: tempDir(), env: ENV });
    try {
      const origin = await cli.listening();
      for (let i = 0; i < 3; i++) assert.equal((await fetch(`${origin}/items/2`)).status, 200);
      assert.equal(reads, 2, 'one read by validate, one by the mock at startup, none per request');
    } finally {
      cli.child.kill('SIGKILL');
    }
  } finally {
    server.close();
  }
});

test('mock: the command line is checked (exit code 2) and a contract that cannot load is exit code 1, one line each', async () => {
  const dir = tempDir({ 'items.yaml': ITEMS });
  const none = await run(['mock'], dir);
  assert.deepEqual([none.code, none.stderr], [2, 'svc-facade: mock takes one contract, got none (try svc-facade mock --help)\n']);
  const two = await run(['mock', 'a.yaml', 'b.yaml'], dir);
  assert.deepEqual([two.code, two.stderr], [2, 'svc-facade: mock takes one contract, got a.yaml b.yaml (try svc-facade mock --help)\n']);
  const unknown = await run(['mock', 'items.yaml', '--watch-me'], dir);
  assert.deepEqual([unknown.code, unknown.stderr], [2, 'svc-facade: unknown option --watch-me for mock; allowed: --port, --host, --base-path, --dynamic, --watch, --no-security, --help\n']);
  const badPort = await run(['mock', 'items.yaml', '--port', 'x'], dir);
  assert.equal(badPort.code, 2);
  assert.match(badPort.stderr, /^svc-facade: --port: option server\.port has invalid value "x"/);
  const missing = await run(['mock', 'nope.yaml'], dir);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^svc-facade: The given OpenApi specification cannot be loaded from: .*nope\.yaml\. No such file/);
  assert.doesNotMatch(missing.stderr, /\n\s+at /, 'no stack trace');
  const help = await run(['mock', '--help'], dir);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: svc-facade mock \[options\] CONTRACT$/m);
});

test('validate: the Petstore loads; its operations are listed and the exit code is 0', async () => {
  const { code, stdout, stderr } = await run(['validate', 'spec/petstore-v3.json'], ROOT);
  assert.equal(code, 0, stderr);
  assert.equal(stderr, '');
  const lines = stdout.trimEnd().split('\n');
  assert.equal(lines[0], 'spec/petstore-v3.json: OpenAPI 3.0.4, 19 operation(s), base path /api/v3');
  assert.ok(lines.includes('  GET /api/v3/pet/{petId} -> direct:getPetById'), stdout);
  assert.equal(lines.filter((l) => l.includes(' -> direct:')).length, 19);
  // The Petstore declares security on most operations: a configured server enforces it only when asked (test/cli/mock-security.test.ts).
  assert.match(lines.at(-2)!, /^ {2}warning: \d+ operation\(s\) declare security requirements that nothing enforces/);
  assert.equal(lines.at(-1), 'spec/petstore-v3.json: ok (1 warning(s))');
});

test('validate: a broken reference, a duplicate operationId, another version: exit code 1, the startup message, no stack; the good one is still listed', async () => {
  const dir = tempDir({
    'good.yaml': ITEMS,
    'broken-ref.yaml': ITEMS.replace("- { name: id, in: path, required: true, schema: { type: integer, minimum: 1 } }", "- $ref: '#/components/parameters/itemId'"),
    'duplicate.yaml': ITEMS.replace('operationId: addItem', 'operationId: getItem'),
    'swagger.yaml': 'swagger: "2.0"\ninfo: { title: old, version: "1" }\npaths: {}\n',
    // A request body schema in a file that is not there: the start reports it (issue 22), so validate does.
    'missing-file.yaml': ITEMS.replace("schema: { type: object, required: [name], properties: { name: { type: string } } }", "schema: { $ref: 'schemas/new-item.yaml' }"),
  });
  const { code, stdout, stderr } = await run(['validate', 'good.yaml', 'broken-ref.yaml', 'duplicate.yaml', 'swagger.yaml', 'missing-file.yaml'], dir);
  assert.equal(code, 1);
  assert.match(stdout, /^good\.yaml: OpenAPI 3\.1\.0, 2 operation\(s\), base path \/\n {2}GET \/items\/\{id\} -> direct:getItem\n {2}POST \/items -> direct:addItem\ngood\.yaml: ok\n$/);
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 4, stderr);
  assert.equal(lines[0], "svc-facade: broken-ref.yaml: Cannot resolve $ref '#/components/parameters/itemId' used at broken-ref.yaml#/paths/~1items~1{id}/get/parameters/0 (reached from GET /items/{id}): no value at /components/parameters/itemId");
  assert.match(lines[1]!, /^svc-facade: duplicate\.yaml: Duplicate operationId getItem: GET \/items\/\{id\} and POST \/items$/);
  assert.match(lines[2]!, /^svc-facade: swagger\.yaml: The given OpenApi specification cannot be loaded from: .*swagger\.yaml\. Version 2\.0 is not supported/);
  assert.match(lines[3]!, /^svc-facade: missing-file\.yaml: Cannot resolve \$ref 'schemas\/new-item\.yaml' .*: file not found$/);
});

test('validate: warnings are listed under their contract and do not fail it; svc options in the environment do not change what is checked', async () => {
  const dir = tempDir({
    'sync.yaml': `openapi: 3.2.0
info: { title: Sync, version: '1' }
paths:
  /sync:
    additionalOperations:
      SYNC:
        operationId: syncCatalog
        responses: { '204': { description: done } }
`,
  });
  const { code, stdout } = await run(['validate', 'sync.yaml'], dir, { ...ENV, SVC_REST_OPENAPI_SPECIFICATION: 'elsewhere.yaml', SVC_REST_OPENAPI_MISSINGOPERATION: 'fail' });
  assert.equal(code, 0);
  assert.match(stdout, /^ {2}SYNC \/sync -> direct:syncCatalog$/m);
  assert.match(stdout, /^ {2}warning: SYNC \/sync -> direct:syncCatalog: node's HTTP parser does not accept the method SYNC/m);
  assert.match(stdout, /^sync\.yaml: ok \(1 warning\(s\)\)$/m);
});

test('validate: no contract or an unknown option is exit code 2', async () => {
  assert.deepEqual(await run(['validate'], ROOT), { code: 2, stdout: '', stderr: 'svc-facade: validate takes one or more contracts (try svc-facade validate --help)\n' });
  const unknown = await run(['validate', '--strict', PETSTORE], ROOT);
  assert.deepEqual([unknown.code, unknown.stderr], [2, 'svc-facade: unknown option --strict for validate; allowed: --base-path, --help\n']);
});

const MUSEUM_LIKE = `openapi: 3.0.3
info: { title: Museum, version: '1' }
servers: [{ url: 'https://redocly.com/_mock/docs/openapi/museum-api' }]
paths:
  /museum-hours:
    get:
      operationId: getMuseumHours
      parameters:
        - { name: startDate, in: query, schema: { type: string, format: fancy-date } }
      responses:
        '200':
          description: hours
          content:
            application/json:
              schema: { type: object, properties: { id: { type: string, format: shiny-id } } }
              example: { format: not-a-format }
`;

test('mock --base-path serves under the given base path and says where; validate --base-path lists the paths under it', async () => {
  const dir = tempDir({ 'museum.yaml': MUSEUM_LIKE });
  const cli = startCli(process.execPath, [MAIN, 'mock', 'museum.yaml', '--base-path', '/museum', '--port', '0', '--host', '127.0.0.1'], { cwd: dir, env: ENV });
  try {
    const origin = await cli.listening();
    assert.match(cli.output.stdout, /^GET \/museum\/museum-hours -> direct:getMuseumHours \[mock\]$/m);
    assert.equal((await fetch(`${origin}/museum/museum-hours`)).status, 200);
    assert.equal((await fetch(`${origin}/_mock/docs/openapi/museum-api/museum-hours`)).status, 404, 'the contract\'s own base path gave way');
    for (let i = 0; i < 200 && !/served under/.test(cli.output.stdout); i++) await new Promise((resolve) => setTimeout(resolve, 25));
    assert.match(cli.output.stdout, new RegExp(`mock: 1 operation\\(s\\) served under ${origin.replace(/[.]/g, '\\.')}/museum$`, 'm'));
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited, 0, cli.output.stderr);
  } finally {
    cli.child.kill('SIGKILL');
  }
  const listed = await run(['validate', '--base-path', '/museum', 'museum.yaml'], dir);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /base path \/museum\n/);
  assert.match(listed.stdout, /^ {2}GET \/museum\/museum-hours -> direct:getMuseumHours$/m);
});

test('validate compiles every schema now: what the server would warn about at the first request (an unknown format) is listed', async () => {
  const dir = tempDir({ 'museum.yaml': MUSEUM_LIKE });
  const listed = await run(['validate', 'museum.yaml'], dir);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^ {2}warning: validation: unknown format "fancy-date" is not checked$/m);
  assert.match(listed.stdout, /^ {2}warning: validation: unknown format "shiny-id" is not checked$/m);
  assert.doesNotMatch(listed.stdout, /not-a-format/, 'an example\'s data is no schema');
  assert.match(listed.stdout, /museum\.yaml: ok \(2 warning\(s\)\)$/m);
});
