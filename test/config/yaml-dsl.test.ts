// The YAML DSL (SPEC §12) with every step and the simple language (SPEC §4), served on the Petstore, plus
// `to: http://` forwarding to a real loopback backend.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { createFacade, Errors, silentLogger, SvcError } from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';

const spec = JSON.stringify(PETSTORE);
const head = (extra = '') => `- rest:\n    openApi:\n      specification: ${spec}\n      missingOperation: ignore\n${extra}`;

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real backend: answers 201 with a Location, a custom header and what it received; `/gzip` answers compressed. */
let backend: Server;
let backendOrigin: string;
const seen: Seen[] = [];
before(async () => {
  backend = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const record = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() };
      seen.push(record);
      if (req.url!.startsWith('/gzip')) {
        res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        res.end(gzipSync(JSON.stringify({ compressed: true })));
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json; charset=utf-8', location: '/pets/77', 'x-backend': 'yes', 'cache-control': 'no-store', 'set-cookie': ['a=1', 'b=2; HttpOnly'], connection: 'keep-alive' });
      res.end(JSON.stringify({ got: record.body, method: record.method, url: record.url }));
    });
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  backendOrigin = `http://127.0.0.1:${(backend.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((resolve) => backend.close(() => resolve())));

test('every step: setBody (constant, simple, json), setHeader, removeHeader, setProperty, log, to direct:, to log:', async () => {
  process.env.FACADE_TEST_VALUE = 'from-env';
  const dir = tempDir({
    'routes.yaml': head(`
- route:
    from:
      uri: direct:updatePet
      steps:
        - setProperty:
            name: owner
            simple: '\${body.owner.name}'
        - setHeader:
            name: X-Remove-Me
            constant: doomed
        - setHeader:
            name: X-Owner
            simple: 'owner=\${exchangeProperty.owner}'
        - removeHeader:
            name: X-Remove-Me
        - log: 'updating \${header.x-trace} with \${body}'
        - to: log:audit
        - to: direct:enrich
        - setBody:
            simple: '{"owner": "\${exchangeProperty.owner}", "trace": "\${header.x-trace}", "env": "\${env:FACADE_TEST_VALUE}", "at": "\${date:now}", "enriched": "\${header.x-enriched}", "first": \${body.tags[0]}}'
        - setHeader:
            name: Content-Type
            constant: application/json
- route:
    from:
      uri: direct:enrich
      steps:
        - setHeader:
            name: X-Enriched
            simple: '\${header.SvcHttpMethod} \${header.SvcHttpPath}'
- route:
    from:
      uri: direct:getInventory
      steps:
        - setBody:
            json: { available: 7, nested: { list: [1, 2] } }
- route:
    from:
      uri: direct:logoutUser
      steps:
        - setBody:
            constant: 'bye \${header.x}'
- route:
    from:
      uri: direct:loginUser
      steps:
        - setBody:
            simple: '\${headers}'
        - removeHeader: SvcHttpResponseCode
- route:
    from:
      uri: direct:getUserByName
      steps:
        - setBody:
            simple: '\${body}'
`),
  });
  const running = await serve([join(dir, 'routes.yaml')], { env: {} });
  try {
    const before = Date.now();
    const res = await fetch(`${running.origin}/api/v3/pet`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-trace': 't-1' },
      body: JSON.stringify({ owner: { name: 'ann' }, tags: [42, 43] }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-owner'), 'owner=ann');
    assert.equal(res.headers.get('x-remove-me'), null);
    assert.equal(res.headers.get('x-enriched'), 'PUT /pet');
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.owner, 'ann');
    assert.equal(body.trace, 't-1');
    assert.equal(body.env, 'from-env');
    assert.equal(body.enriched, 'PUT /pet');
    assert.equal(body.first, 42);
    assert.ok(Date.parse(String(body.at)) >= before - 1000 && Date.parse(String(body.at)) <= Date.now() + 1000, `date:now is an ISO date: ${String(body.at)}`);
    assert.ok(running.logger.lines.includes('INFO [updatePet] updating t-1 with {"owner":{"name":"ann"},"tags":[42,43]}'), running.logger.lines.join('\n'));
    assert.ok(running.logger.lines.includes('INFO [audit] {"owner":{"name":"ann"},"tags":[42,43]}'));

    const inventory = await fetch(`${running.origin}/api/v3/store/inventory`);
    assert.equal(inventory.headers.get('content-type'), 'application/json');
    assert.deepEqual(await inventory.json(), { available: 7, nested: { list: [1, 2] } });

    const constant = await fetch(`${running.origin}/api/v3/user/logout`, { headers: { x: 'y' } });
    assert.equal(await constant.text(), 'bye ${header.x}', 'a constant is not a template');

    const all = await fetch(`${running.origin}/api/v3/user/login?username=u&password=p`, { headers: { 'x-one': '1' } });
    assert.equal(all.headers.get('content-type'), 'application/json', '${headers} alone keeps the object');
    const headers = (await all.json()) as Record<string, unknown>;
    assert.equal(headers['x-one'], '1');
    assert.equal(headers.username, 'u');
    assert.equal(headers.svchttpmethod, 'GET');

    const raw = await fetch(`${running.origin}/api/v3/user/ann`);
    assert.equal(raw.status, 204, '${body} of an empty request is empty');
  } finally {
    delete process.env.FACADE_TEST_VALUE;
    await running.close();
  }
});

test('to: http:// forwards method, query, headers and body; the backend response (status, headers, body) becomes the exchange', async () => {
  const dir = tempDir({
    'proxy.yaml': head(`
- route:
    from:
      uri: direct:addPet
      steps:
        - setHeader:
            name: X-Added-By-Route
            constant: r1
        - to: ${backendOrigin}/pets
- route:
    from:
      uri: direct:findPetsByStatus
      steps:
        - to: ${backendOrigin}/gzip
`),
  });
  const running = await serve([join(dir, 'proxy.yaml')], { env: {} });
  try {
    seen.length = 0;
    const res = await fetch(`${running.origin}/api/v3/pet?dryRun=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-client': 'c1', connection: 'keep-alive', SvcHttpResponseCode: '500' },
      body: '{"name":"rex"}',
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(res.headers.get('location'), '/pets/77');
    assert.equal(res.headers.get('x-backend'), 'yes');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('x-added-by-route'), 'r1');
    assert.deepEqual(res.headers.getSetCookie(), ['a=1', 'b=2; HttpOnly']);
    assert.deepEqual(await res.json(), { got: '{"name":"rex"}', method: 'POST', url: '/pets?dryRun=true' });
    const forwarded = seen[0]!;
    assert.equal(forwarded.headers['x-client'], 'c1');
    assert.equal(forwarded.headers['x-added-by-route'], 'r1');
    assert.equal(forwarded.headers['content-type'], 'application/json');
    assert.equal(forwarded.headers.host, new URL(backendOrigin).host, 'the backend sees its own host');
    for (const name of Object.keys(forwarded.headers)) assert.ok(!/^svc/i.test(name), `${name} must not be forwarded`);

    const gz = await fetch(`${running.origin}/api/v3/pet/findByStatus`);
    assert.equal(gz.status, 200);
    assert.equal(gz.headers.get('content-encoding'), 'gzip', 'a streamed answer keeps its encoding (the client decodes it)');
    assert.deepEqual(await gz.json(), { compressed: true });
  } finally {
    await running.close();
  }
});

test('to: http:// with an unreachable backend is a 502 problem naming neither its URI nor its origin', async () => {
  const dir = tempDir({ 'down.yaml': head(`\n- route:\n    from:\n      uri: direct:getInventory\n      steps:\n        - to: http://127.0.0.1:1/secret/path?token=abc\n`) });
  const running = await serve([join(dir, 'down.yaml')], { env: {} });
  try {
    const res = await fetch(`${running.origin}/api/v3/store/inventory`);
    assert.equal(res.status, 502);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    const body = (await res.json()) as { detail: string };
    assert.equal(body.detail, 'The backend could not be reached.');
  } finally {
    await running.close();
  }
});

test('invalid steps and expressions fail startup naming the file and what is allowed', async () => {
  const cases: [string, RegExp][] = [
    ['        - process: {}\n', /unknown step process; allowed: setBody, setHeader, removeHeader, setProperty, log, to/],
    ['        - setBody: {}\n', /setBody needs an expression: constant, simple, json/],
    ['        - setHeader:\n            constant: x\n', /setHeader needs a name/],
    ['        - to: ftp://x\n', /to needs a uri: direct:<name>, log:<name>, http:\/\/ or https:\/\//],
    ["        - setBody:\n            simple: '${nope.x}'\n", /unknown simple function \$\{nope\.x\}/],
    ['        - setHeader:\n            name: X\n            constnt: y\n', /unknown option setHeader\.constnt; allowed: name, constant, simple, json, expression, id, description/],
    ['        - setBody:\n            constant: x\n            simple: y\n', /setBody has more than one expression; give one of constant, simple, json/],
    ['        - log:\n            message: hi\n            level: WARN\n', /unknown option log\.level; allowed: message, logName, id, description/],
    ['        - to:\n            uri: direct:getInventory\n            pattern: InOnly\n', /unknown option to\.pattern; allowed: uri, parameters, id, description/],
  ];
  for (const [step, message] of cases) {
    const dir = tempDir({ 'bad.yaml': head(`- route:\n    from:\n      uri: direct:getInventory\n      steps:\n${step}`) });
    const file = join(dir, 'bad.yaml');
    await assert.rejects(createFacade([file], { env: {}, logger: silentLogger }), (err: SvcError) => {
      assert.ok(err instanceof SvcError);
      assert.equal(err.exitCode, 2, err.message);
      assert.ok(err.message.includes(file), err.message);
      assert.match(err.message, message);
      return true;
    });
  }
});

test('unknown keys on a route or its from fail startup naming the file and the allowed keys', async () => {
  const cases: [string, RegExp][] = [
    ['- route:\n    id: inventory\n    autoStartup: false\n    from:\n      uri: direct:getInventory\n', /unknown option route\.autoStartup; allowed: from, id, description/],
    ['- route:\n    from:\n      uri: direct:getInventory\n      parameters: {}\n', /unknown option from\.parameters; allowed: uri, steps, id, description/],
  ];
  for (const [route, message] of cases) {
    const dir = tempDir({ 'bad.yaml': head(route) });
    const file = join(dir, 'bad.yaml');
    await assert.rejects(createFacade([file], { env: {}, logger: silentLogger }), (err: SvcError) => {
      assert.equal(err.exitCode, 2, err.message);
      assert.ok(err.message.startsWith(file), err.message);
      assert.match(err.message, message);
      return true;
    });
  }
});

test('a route calling a direct: endpoint nobody consumes fails startup, naming the file and the endpoint', async () => {
  const dir = tempDir({ 'orphan.yaml': head(`- route:\n    from:\n      uri: direct:getInventory\n      steps:\n        - to: direct:nobody\n`) });
  const file = join(dir, 'orphan.yaml');
  await assert.rejects(createFacade([file], { env: {}, logger: silentLogger }), (err: SvcError) => {
    assert.equal(err.code, Errors.UNKNOWN_DIRECT_TARGET.code);
    assert.equal(err.exitCode, 1);
    assert.ok(err.message.includes(file), err.message);
    assert.match(err.message, /no route consumes from direct:nobody/);
    return true;
  });
});
