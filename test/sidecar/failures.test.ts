// Backends that are dead, reset, slow or silent: 502 and 504 problems with a generic detail (the origin and
// the cause in one log line; in the detail only with svc.backend.exposeOrigin);
// redirects passed through unless followRedirects; endpoint options from every surface.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { RouteBuilder } from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';
import { httpBackend, signal } from './backends.js';

const PETSTORE_HEAD = `- rest:\n    openApi:\n      specification: ${PETSTORE}\n      missingOperation: ignore\n`;

async function problem(res: Response): Promise<{ status: number; detail: string }> {
  assert.equal(res.headers.get('content-type'), 'application/problem+json');
  return (await res.json()) as { status: number; detail: string };
}

test('a refused connection and a reset are 502, a backend that does not answer within timeout is 504: generic problems, the origin and cause in one log line', async () => {
  const closed = await httpBackend(() => undefined);
  const deadOrigin = closed.origin;
  await closed.close();
  const resetting = await httpBackend((req) => req.socket.destroy());
  const silent = await httpBackend(() => undefined);
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getInventory: [{ kind: 'to', uri: `${deadOrigin}/secret/path?token=abc` }],
      getPetById: [{ kind: 'to', uri: `${resetting.origin}/pet` }],
      findPetsByStatus: [{ kind: 'to', uri: `${silent.origin}/pets?timeout=200ms` }],
    },
  });
  try {
    const dead = await fetch(`${running.origin}/api/v3/store/inventory`);
    assert.equal(dead.status, 502);
    assert.equal((await problem(dead)).detail, 'The backend could not be reached.');
    const reset = await fetch(`${running.origin}/api/v3/pet/1`);
    assert.equal(reset.status, 502);
    assert.equal((await problem(reset)).detail, 'The backend could not be reached.');
    const slow = await fetch(`${running.origin}/api/v3/pet/findByStatus?status=sold`);
    assert.equal(slow.status, 504);
    assert.deepEqual(await problem(slow), { type: 'about:blank', title: 'Gateway Timeout', status: 504, detail: 'The backend did not answer in time.', code: 'SVC_BACKEND_TIMEOUT', instance: slow.headers.get('x-request-id') });
    const logged = running.logger.lines.filter((l) => l.startsWith('ERROR'));
    assert.deepEqual(
      logged.map((l) => l.replace(/^ERROR \S+ \S+ \(direct:\w+\) failed: /, '').replace(/ECONNREFUSED .*|ECONNRESET .*/, (m) => m.split(' ')[0]!)),
      [
        `SvcError SVC_BACKEND_FAILED: The backend could not be reached. Backend: ${deadOrigin}. Caused by: ECONNREFUSED`,
        `SvcError SVC_BACKEND_FAILED: The backend could not be reached. Backend: ${resetting.origin}. Caused by: ECONNRESET`,
        `SvcError SVC_BACKEND_TIMEOUT: The backend did not answer in time. Backend: ${silent.origin}. Caused by: no byte within 200 ms`,
      ],
      'one line each, with the origin and the cause, no stack',
    );
    assert.doesNotMatch(logged.join('\n'), /token=abc/);
  } finally {
    await running.close();
    await resetting.close();
    await silent.close();
  }
});

test('svc.backend.exposeOrigin=true puts the origin back in 502 and 504 details', async () => {
  const closed = await httpBackend(() => undefined);
  const deadOrigin = closed.origin;
  await closed.close();
  const silent = await httpBackend(() => undefined);
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    properties: { 'svc.backend.exposeOrigin': 'true' },
    routes: { getInventory: [{ kind: 'to', uri: `${deadOrigin}/x` }], getPetById: [{ kind: 'to', uri: `${silent.origin}/x?timeout=100ms` }] },
  });
  try {
    assert.equal((await problem(await fetch(`${running.origin}/api/v3/store/inventory`))).detail, `The backend ${deadOrigin} could not be reached.`);
    assert.equal((await problem(await fetch(`${running.origin}/api/v3/pet/1`))).detail, `The backend ${silent.origin} did not answer in time.`);
  } finally {
    await running.close();
    await silent.close();
  }
});

test('connectTimeout bounds a new connection, TLS handshake included: a peer that accepts but never speaks is a 504', async () => {
  const accepted: Socket[] = [];
  const mute = createTcpServer((socket) => void accepted.push(socket));
  await new Promise<void>((resolve) => mute.listen(0, '127.0.0.1', resolve));
  const { port } = mute.address() as AddressInfo;
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { getInventory: [{ kind: 'to', uri: `https://127.0.0.1:${port}/x?connectTimeout=200ms&timeout=1m` }] } });
  try {
    const res = await fetch(`${running.origin}/api/v3/store/inventory`);
    assert.equal(res.status, 504);
    assert.equal((await problem(res)).detail, 'The backend did not answer in time.');
    assert.match(running.logger.lines.join('\n'), new RegExp(`Backend: https://127\\.0\\.0\\.1:${port}\\. Caused by: no connection within 200 ms$`));
  } finally {
    await running.close();
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => mute.close(resolve));
  }
});

test('redirects are passed to the client by default; followRedirects=true follows them (303 becomes GET, credentials stay on their origin)', async () => {
  const other = await httpBackend((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ at: 'other', method: req.method, auth: req.headers.authorization ?? null })));
  const target = await httpBackend((req, res) => {
    if (req.url === '/moved') return void res.writeHead(302, { location: '/here' }).end();
    if (req.url === '/see-other') return void res.writeHead(303, { location: `${other.origin}/there` }).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ at: req.url, method: req.method, auth: req.headers.authorization ?? null }));
  });
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getInventory: [{ kind: 'to', uri: `${target.origin}/moved` }],
      getPetById: [{ kind: 'to', uri: `${target.origin}/moved?followRedirects=true` }],
      addPet: [{ kind: 'to', uri: `${target.origin}/see-other`, parameters: { followRedirects: true, redirectOrigins: other.origin } }],
    },
  });
  try {
    const passed = await fetch(`${running.origin}/api/v3/store/inventory`, { redirect: 'manual' });
    assert.equal(passed.status, 302);
    assert.equal(passed.headers.get('location'), '/here');
    const followed = await fetch(`${running.origin}/api/v3/pet/1`, { headers: { authorization: 'Bearer t' } });
    assert.deepEqual(await followed.json(), { at: '/here', method: 'GET', auth: 'Bearer t' });
    const seeOther = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, body: '{"name":"rex"}' });
    assert.deepEqual(await seeOther.json(), { at: 'other', method: 'GET', auth: null });
  } finally {
    await running.close();
    await target.close();
    await other.close();
  }
});

test('endpoint options work from YAML (URI query or parameters), XML and the fluent API; global defaults from svc.backend.*', async () => {
  const silent = await httpBackend(() => undefined);
  const yamlQuery = `${PETSTORE_HEAD}- route:\n    from:\n      uri: direct:getInventory\n      steps:\n        - to: ${silent.origin}/x?timeout=150ms\n`;
  const yamlParameters = `${PETSTORE_HEAD}- route:\n    from:\n      uri: direct:getInventory\n      steps:\n        - to:\n            uri: ${silent.origin}/x\n            parameters:\n              timeout: 150ms\n`;
  const xml = `<svc><rest><openApi specification="${PETSTORE}" missingOperation="ignore"/></rest><route><from uri="direct:getInventory"/><to uri="${silent.origin}/x?followRedirects=false&amp;timeout=150ms"/></route></svc>`;
  const dir = tempDir({ 'query.yaml': yamlQuery, 'parameters.yaml': yamlParameters, 'routes.xml': xml, 'global.properties': `svc.backend.timeout=150ms\n` });
  const origin = silent.origin;
  class Fluent extends RouteBuilder {
    configure(): void {
      this.rest().openApi().specification(PETSTORE).missingOperation('ignore');
      this.from('direct:getInventory').to(`${origin}/x`, { timeout: '150ms' });
    }
  }
  const globalOnly = `${PETSTORE_HEAD}- route:\n    from:\n      uri: direct:getInventory\n      steps:\n        - to: ${silent.origin}/x\n`;
  const inputs: [string, Parameters<typeof serve>[0], Parameters<typeof serve>[1]][] = [
    ['YAML query', [join(dir, 'query.yaml')], { env: {} }],
    ['YAML parameters', [join(dir, 'parameters.yaml')], { env: {} }],
    ['XML', [join(dir, 'routes.xml')], { env: {} }],
    ['fluent', Fluent, { env: {} }],
    ['properties', [join(dir, 'global.properties'), join(tempDir({ 'r.yaml': globalOnly }), 'r.yaml')], { env: {} }],
    ['environment', [join(tempDir({ 'r.yaml': globalOnly }), 'r.yaml')], { env: { SVC_BACKEND_TIMEOUT: '150ms' } }],
  ];
  try {
    for (const [surface, input, options] of inputs) {
      const running = await serve(input, options);
      try {
        const res = await fetch(`${running.origin}/api/v3/store/inventory`);
        assert.equal(res.status, 504, surface);
      } finally {
        await running.close();
      }
    }
  } finally {
    await silent.close();
  }
});

test('bad endpoint options fail startup naming the route, the option and what is allowed', async () => {
  const cases: [string, Record<string, unknown> | undefined, RegExp][] = [
    ['http://127.0.0.1:9/x?timeout=soon', undefined, /to http:\/\/127\.0\.0\.1:9\/x: timeout has invalid value "soon"; allowed: milliseconds above 0/],
    ['http://127.0.0.1:9/x?followRedirects=yes', undefined, /followRedirects has invalid value "yes"; allowed: true, false/],
    ['http://127.0.0.1:9/x', { retry: 3 }, /unknown parameter retry; allowed: timeout, connectTimeout, followRedirects, redirectOrigins, forwardPath, caFile, certFile, keyFile, retries, retryDelay, retryMaxDelay, requestTimeout, http2/],
    ['http://127.0.0.1:9/x?retries=11', undefined, /retries has invalid value "11"; allowed: an integer from 0 to 10/],
    ['http://127.0.0.1:9/x?caFile=ca.pem', undefined, /caFile applies to https:\/\/ backends only/],
    ['https://127.0.0.1:9/x?caFile=missing-ca.pem', undefined, /caFile .*missing-ca\.pem cannot be read: ENOENT/],
    ['https://127.0.0.1:9/x?certFile=c.pem', undefined, /certFile .*cannot be read/],
    ['direct:getPetById', { timeout: '1s' }, /to direct:getPetById: parameters apply to http:\/\/ and https:\/\/ endpoints only/],
  ];
  for (const [uri, parameters, message] of cases) {
    await assert.rejects(serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { getInventory: [{ kind: 'to', uri, parameters }] } }), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'SVC_STEP_INVALID', uri);
      assert.match(err.message, /^createFacade\(\) \(direct:getInventory\): /);
      assert.match(err.message, message);
      return true;
    });
  }
  await assert.rejects(serve({ specification: PETSTORE, missingOperation: 'ignore', properties: { 'svc.backend.idleTimeout': 'forever' } }), /backend\.idleTimeout has invalid value "forever"/);
});

test('options are taken out of the URI; its other query parameters are sent instead of the client\'s; forwardPath appends the request path', async () => {
  const seen: string[] = [];
  const target = await httpBackend((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.end();
  });
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getInventory: [{ kind: 'to', uri: `${target.origin}/inv?timeout=5s&fixed=a%20b&flag` }],
      getPetById: [{ kind: 'to', uri: `${target.origin}/v2/?forwardPath=true` }],
    },
  });
  try {
    assert.equal((await fetch(`${running.origin}/api/v3/store/inventory?mine=2`)).status, 200);
    assert.equal((await fetch(`${running.origin}/api/v3/pet/7?x=%20y`)).status, 200);
    assert.equal((await fetch(`${running.origin}/api/v3/pet/8`, { method: 'HEAD' })).status, 200);
    assert.deepEqual(seen, ['GET /inv?fixed=a%20b&flag', 'GET /v2/pet/7?x=%20y', 'HEAD /v2/pet/8']);
  } finally {
    await running.close();
    await target.close();
  }
});

test('connections are pooled per backend: kept alive between calls, at most svc.backend.maxConnections at once, closed after idleTimeout', async () => {
  const idleClosed = signal();
  const target = await httpBackend((req, res) => {
    req.socket.once('close', () => idleClosed.fire());
    setImmediate(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', backend: { maxConnections: 1, idleTimeout: '300ms' }, routes: { getInventory: [{ kind: 'to', uri: `${target.origin}/x` }] } });
  try {
    const answers = await Promise.all(Array.from({ length: 6 }, () => fetch(`${running.origin}/api/v3/store/inventory`).then((r) => r.text())));
    assert.deepEqual(answers, Array(6).fill('ok'));
    assert.equal((await fetch(`${running.origin}/api/v3/store/inventory`)).status, 200);
    assert.equal(target.connections(), 1, 'one pooled connection served all seven calls');
    await idleClosed.fired;
  } finally {
    await running.close();
    await target.close();
  }
});

test('clientResponseValidation: the backend\'s answer is checked against the contract like a route\'s', async () => {
  const target = await httpBackend((req, res) => {
    const body = req.url === '/good' ? '{"id":1,"name":"doggie","photoUrls":[]}' : '{"id":"not a number"}';
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'identity' }).end(body);
  });
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { clientResponseValidation: true }, routes: { getPetById: [{ kind: 'to', uri: `${target.origin}/good` }] } });
  const bad = await serve({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { clientResponseValidation: true }, routes: { getPetById: [{ kind: 'to', uri: `${target.origin}/bad` }] } });
  try {
    const ok = await fetch(`${running.origin}/api/v3/pet/1`);
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.deepEqual(await ok.json(), { id: 1, name: 'doggie', photoUrls: [] });
    const res = await fetch(`${bad.origin}/api/v3/pet/1`);
    assert.equal(res.status, 500);
    const body = (await res.json()) as { detail: string; errors: { pointer: string }[] };
    assert.equal(body.detail, 'Invalid response JSon payload.');
    assert.ok(body.errors.some((e) => e.pointer === '/id'), JSON.stringify(body.errors));
  } finally {
    await running.close();
    await bad.close();
    await target.close();
  }
});

test('a pooled connection the backend dropped while a request was on its way: an idempotent request is sent again on a new one, a POST is a 502', async () => {
  const requestsOnSocket = new WeakMap<object, number>();
  const target = await httpBackend((req, res) => {
    const n = (requestsOnSocket.get(req.socket) ?? 0) + 1;
    requestsOnSocket.set(req.socket, n);
    // The second request on a kept-alive connection finds it closed, as after the backend's keep-alive timeout.
    if (n === 2) return void req.socket.destroy();
    req.resume().on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end(`${req.method} ok`));
  });
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    backend: { maxConnections: 1 },
    routes: { getInventory: [{ kind: 'to', uri: `${target.origin}/x` }], addPet: [{ kind: 'to', uri: `${target.origin}/x`, parameters: { followRedirects: true } }] },
  });
  try {
    assert.equal(await (await fetch(`${running.origin}/api/v3/store/inventory`)).text(), 'GET ok');
    assert.equal(await (await fetch(`${running.origin}/api/v3/store/inventory`)).text(), 'GET ok', 'sent again on a new connection');
    assert.equal(target.connections(), 2);
    const post = (): Promise<Response> => fetch(`${running.origin}/api/v3/pet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    // (The body is held here, followRedirects: it is the method that forbids sending it again.)
    assert.equal((await post()).status, 502, 'a POST may have had its effect: never sent twice');
    assert.equal(await (await post()).text(), 'POST ok');
  } finally {
    await running.close();
    await target.close();
  }
});
