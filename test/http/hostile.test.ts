// Hostile clients and careless routes against the real server: whatever arrives, the answer is a clear
// status (a problem body for the facade's own errors), the process keeps running, and no stack leaks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Errors, type Exchange, type SvcError } from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

/** A backend on 127.0.0.1 running `handler`; resolves with its origin and a close function. */
async function backend(handler: Parameters<typeof createServer>[1]): Promise<{ origin: string; server: Server; close(): Promise<void> }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    server,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

test('a route throwing a value that cannot even be described (a Proxy, a throwing toString) is a 500 problem; the process lives on', async () => {
  const trap = (): never => {
    throw new Error('trap');
  };
  const hostile = new Proxy({}, { get: trap, getPrototypeOf: trap });
  const evil = { toString: () => { throw new Error('evil toString'); } };
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getPetById: () => { throw hostile; },
      getInventory: () => Promise.reject(evil),
      addPet: () => { throw evil; },
    },
  });
  try {
    for (const [method, path] of [['GET', '/api/v3/pet/1'], ['GET', '/api/v3/store/inventory'], ['POST', '/api/v3/pet']] as const) {
      const res = await fetch(`${running.origin}${path}`, { method, body: method === 'POST' ? '{}' : undefined, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 500, path);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.deepEqual(await res.json(), { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: Errors.ROUTE_FAILED.message, code: 'SVC_ROUTE_FAILED', instance: res.headers.get('x-request-id') });
    }
    assert.equal(running.logger.lines.filter((l) => l.startsWith('ERROR GET /pet/{petId} (direct:getPetById) failed: ')).length, 1);
    assert.equal((await fetch(`${running.origin}/api/v3/user/logout`)).status, 204, 'still serving');
  } finally {
    await running.close();
  }
});

test('an absolute-form request target (RFC 9112 §3.2.2) is served like its origin form: same path headers, same mock file', async () => {
  const dir = tempDir({ 'svc-mock/pet/7.json': '{"id":7,"from":"file"}' });
  const seen: unknown[] = [];
  const running = await serve({
    specification: PETSTORE,
    baseDir: dir,
    missingOperation: 'mock',
    routes: {
      getOrderById: (ex: Exchange) => {
        seen.push([ex.header('SvcHttpPath'), ex.header('SvcHttpUri'), ex.header('SvcHttpQuery'), ex.header('orderId')]);
        ex.message.body = 'ok';
      },
    },
  });
  try {
    for (const target of ['/api/v3/store/order/5?x=1', 'http://example.test/api/v3/store/order/5?x=1', 'HTTP://example.test:8080/api/v3/store/order/5?x=1']) {
      const res = await rawRequest(running.origin, target);
      assert.equal(res.status, 200, target);
    }
    assert.deepEqual(seen, Array(3).fill(['/store/order/5', '/api/v3/store/order/5', 'x=1', '5']));
    const file = await rawRequest(running.origin, 'http://example.test/api/v3/pet/7', { headers: { accept: 'application/json' } });
    assert.equal(file.status, 200);
    assert.equal(file.body, '{"id":7,"from":"file"}');
  } finally {
    await running.close();
  }
});

test('to: http:// forwards the request even when query or path values cannot be HTTP header fields; those are not sent as headers', async () => {
  const received: { url: string | undefined; headers: IncomingHttpHeaders }[] = [];
  const target = await backend((req, res) => {
    received.push({ url: req.url, headers: req.headers });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: { loginUser: [{ kind: 'to', uri: `${target.origin}/login` }], getUserByName: [{ kind: 'to', uri: `${target.origin}/user` }] },
  });
  try {
    const query = 'username=a%0D%0AX-Injected:%201&password=%00&bad%20name=1&snow=%E2%98%83&plain=yes';
    const res = await fetch(`${running.origin}/api/v3/user/login?${query}`);
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { ok: true });
    const user = await fetch(`${running.origin}/api/v3/user/a%0Ab`);
    assert.equal(user.status, 200);
    assert.equal(received.length, 2);
    assert.equal(received[0]!.url, `/login?${query}`, 'the query string goes through unchanged');
    assert.equal(received[0]!.headers.plain, 'yes', 'valid values are still forwarded as headers');
    for (const name of ['username', 'password', 'bad name', 'snow', 'x-injected']) assert.equal(received[0]!.headers[name], undefined, name);
    assert.equal(received[1]!.headers.username, undefined);
  } finally {
    await running.close();
    await target.close();
  }
});

test('to: http:// whose backend dies in the middle of the body: a 502 problem when a later step needs the body, a cut connection when it was being streamed', async () => {
  const target = await backend((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
    res.write('{"partial":', () => setTimeout(() => req.socket.destroy(), 20));
  });
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getInventory: [{ kind: 'to', uri: `${target.origin}/inventory` }, { kind: 'log', message: 'got ${body}' }],
      getPetById: [{ kind: 'to', uri: `${target.origin}/pet` }],
    },
  });
  try {
    const res = await fetch(`${running.origin}/api/v3/store/inventory`);
    assert.equal(res.status, 502);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await res.json()) as { detail: string }).detail, 'The backend could not be reached.');
    const streamed = await fetch(`${running.origin}/api/v3/pet/1`);
    assert.equal(streamed.status, 200, 'the status went out before the backend failed');
    await assert.rejects(streamed.text(), 'the client sees the body cut short, never a complete one');
  } finally {
    await running.close();
    await target.close();
  }
});
test('to: with a URL fetch cannot use (unparsable, or with credentials) fails startup naming the route, not every request', async () => {
  const cases: [string, RegExp][] = [
    ['http://[::1/inventory', /^createFacade\(\) \(direct:getInventory\): to http:\/\/\[::1\/inventory: not a valid URL$/],
    ['http://user:s3cret@127.0.0.1:9/inventory', /^createFacade\(\) \(direct:getInventory\): to http:\/\/127\.0\.0\.1:9\/inventory: credentials in the URL are not sent/],
  ];
  for (const [uri, message] of cases) {
    await assert.rejects(serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { getInventory: [{ kind: 'to', uri }] } }), (err: Error & { code?: string }) => {
      assert.equal(err.code, Errors.STEP_INVALID.code);
      assert.match(err.message, message);
      assert.doesNotMatch(err.message, /s3cret/, 'the password is never printed');
      return true;
    });
  }
});

test('a contract $ref that would only fail when a request needs it fails startup instead, naming the reference and where it is used', async () => {
  const operations = {
    outside: [
      '  /outside:',
      '    post:',
      '      operationId: outside',
      '      requestBody: { content: { application/json: { schema: { $ref: "../secret.yaml#/x" } } } }',
      '      responses: { "200": { description: ok } }',
    ],
    loop: [
      '  /loop:',
      '    get:',
      '      operationId: loop',
      '      responses: { "200": { description: ok, content: { application/json: { schema: { $ref: "#/components/schemas/A" } } } } }',
    ],
  };
  const expected = {
    outside: /^Cannot resolve \$ref '\.\.\/secret\.yaml#\/x' used at openapi\.yaml#\/paths\/~1outside\/post\/requestBody\/content\/application~1json\/schema \(reached from POST \/outside\): it points outside the contract directory$/,
    loop: /^Cannot resolve \$ref '#\/components\/schemas\/[AB]' used at openapi\.yaml#\/components\/schemas\/[AB] \(reached from GET \/loop\): reference chain is circular$/,
  };
  for (const name of ['outside', 'loop'] as const) {
    const dir = tempDir({
      'api/openapi.yaml': ['openapi: 3.0.3', 'info: { title: broken refs, version: "1" }', 'paths:', ...operations[name], 'components: { schemas: { A: { $ref: "#/components/schemas/B" }, B: { $ref: "#/components/schemas/A" } } }'].join('\n'),
      'secret.yaml': 'x: { type: string }\n',
    });
    const routes: Record<string, (ex: Exchange) => void> = name === 'outside' ? { outside: (ex) => void (ex.message.body = 'ok') } : {};
    await assert.rejects(serve({ specification: 'api/openapi.yaml', baseDir: dir, missingOperation: 'mock', restConfiguration: { bindingMode: 'auto' }, routes }), (err: SvcError) => {
      assert.equal(err.code, Errors.SPEC_REF_UNRESOLVED.code);
      assert.equal(err.exitCode, 1);
      assert.match(err.message, expected[name]);
      return true;
    });
  }
});

test('to: http:// — Svc* headers in a backend response are not the exchange\'s: the backend\'s own status is answered', async () => {
  const target = await backend((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', SvcHttpResponseCode: '418', SvcHttpMethod: 'DELETE', 'x-kept': 'yes' }).end('hi');
  });
  const seen: unknown[] = [];
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getInventory: [
        { kind: 'to', uri: `${target.origin}/inventory` },
        { kind: 'process', fn: (ex: Exchange) => void seen.push(ex.header('SvcHttpMethod')) },
      ],
    },
  });
  try {
    const res = await fetch(`${running.origin}/api/v3/store/inventory`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-kept'), 'yes');
    assert.equal(await res.text(), 'hi');
    assert.deepEqual(seen, ['GET']);
  } finally {
    await running.close();
    await target.close();
  }
});

test('CONNECT (tunnelling) gets a 405 problem and the connection is closed, instead of a silently dropped socket', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore' });
  try {
    const { port } = new URL(running.origin);
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.write('CONNECT example.test:443 HTTP/1.1\r\nHost: example.test:443\r\n\r\n'));
      let data = '';
      socket.on('data', (chunk) => (data += chunk));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    assert.match(reply, /^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    assert.match(reply, /Connection: close/);
    assert.equal(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4)).detail, Errors.METHOD_NOT_ALLOWED.message);
  } finally {
    await running.close();
  }
});
