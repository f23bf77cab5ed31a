// The header rules of `to: http(s)://` as a proxy (RFC 9110 §7.6, RFC 7239) against a real backend: what
// the backend receives, and what the client receives back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { PETSTORE, serve } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';
import { httpBackend } from './backends.js';

/** Hop-by-hop fields a client sends; none may reach the backend. */
const CLIENT_HOP_FIELDS = {
  connection: 'close, X-Drop-Me',
  'x-drop-me': 'listed in Connection',
  'keep-alive': 'timeout=5',
  'proxy-connection': 'keep-alive',
  'proxy-authorization': 'Basic cHJveHk6c2VjcmV0',
  te: 'trailers',
  trailer: 'x-checksum',
  upgrade: 'h2c',
};

async function recordingBackend(respond: (res: import('node:http').ServerResponse) => void = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok')) {
  const seen: IncomingHttpHeaders[] = [];
  const target = await httpBackend((req, res) => {
    seen.push(req.headers);
    req.resume().on('end', () => respond(res));
  });
  return { target, seen };
}

test('hop-by-hop request fields (the fixed list and every name in Connection) never reach the backend; end-to-end ones do, with those routes set', async () => {
  const { target, seen } = await recordingBackend();
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      addPet: [
        { kind: 'setHeader', name: 'X-Request-Id', expression: { constant: 'req-42' } },
        { kind: 'setHeader', name: 'traceparent', expression: { constant: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } },
        { kind: 'to', uri: `${target.origin}/pets` },
      ],
    },
  });
  try {
    const res = await rawRequest(running.origin, '/api/v3/pet', { method: 'POST', headers: { ...CLIENT_HOP_FIELDS, 'content-type': 'application/json', 'x-keep': 'yes', 'transfer-encoding': 'chunked' }, body: '{"name":"rex"}' });
    assert.equal(res.status, 200, res.body);
    const got = seen[0]!;
    // (Transfer-Encoding is the facade's own framing towards the backend: a body of unknown length goes chunked.)
    for (const name of Object.keys(CLIENT_HOP_FIELDS)) {
      if (name === 'connection') assert.notEqual(got.connection, CLIENT_HOP_FIELDS.connection, 'the Connection field is the facade\'s own');
      else assert.equal(got[name], undefined, `${name} must not be forwarded`);
    }
    assert.equal(got['x-keep'], 'yes');
    assert.equal(got['content-type'], 'application/json');
    assert.equal(got['x-request-id'], 'req-42', 'headers set on the exchange reach the backend');
    assert.equal(got.traceparent, '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01');
    assert.equal(got.host, new URL(target.origin).host, 'the backend sees its own host');
    for (const name of Object.keys(got)) assert.ok(!/^svc/i.test(name), `${name} must not be forwarded`);
  } finally {
    await running.close();
    await target.close();
  }
});

test('hop-by-hop response fields (fixed list and Connection-listed names) never reach the client; end-to-end ones and Via do', async () => {
  const { target } = await recordingBackend((res) =>
    res
      .writeHead(201, {
        'content-type': 'application/json',
        connection: 'X-Backend-Hop',
        'x-backend-hop': 'secret',
        'keep-alive': 'timeout=99, max=7',
        'proxy-authenticate': 'Basic realm="backend"',
        upgrade: 'h2',
        'x-end': 'yes',
        via: '1.1 backend-lb',
        'set-cookie': ['a=1', 'b=2; HttpOnly'],
        'content-length': 8,
      })
      .end('{"id":1}'),
  );
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { getInventory: [{ kind: 'to', uri: `${target.origin}/inventory` }] } });
  try {
    const res = await rawRequest(running.origin, '/api/v3/store/inventory');
    assert.equal(res.status, 201);
    assert.equal(res.body, '{"id":1}');
    for (const name of ['x-backend-hop', 'proxy-authenticate', 'upgrade']) assert.equal(res.headers[name], undefined, `${name} must not reach the client`);
    assert.notEqual(res.headers['keep-alive'], 'timeout=99, max=7', 'Keep-Alive is per connection: the facade\'s own or none');
    assert.equal(res.headers['x-end'], 'yes');
    assert.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2; HttpOnly']);
    assert.equal(res.headers.via, '1.1 backend-lb, 1.1 svc-facade', 'Via is appended to on the way back');
    assert.equal(res.headers['content-length'], '8', 'the backend\'s length goes through with the streamed body');
  } finally {
    await running.close();
    await target.close();
  }
});

const FORGED = { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'forged.example', forwarded: 'for=6.6.6.6;proto=https', via: '1.0 upstream' };

test('Forwarded, X-Forwarded-For/-Proto/-Host: an untrusted client\'s values are replaced by what the facade saw, a trusted peer\'s (svc.backend.trustedProxies) appended to; Via is appended', async () => {
  const { target, seen } = await recordingBackend();
  const route = { getInventory: [{ kind: 'to' as const, uri: `${target.origin}/inventory` }] };
  const untrusted = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: route });
  const trusting = await serve({ specification: PETSTORE, missingOperation: 'ignore', backend: { trustedProxies: '10.0.0.0/8, loopback' }, routes: route });
  try {
    const cases = [
      { running: untrusted, headers: FORGED, expect: (host: string) => ({ xff: '127.0.0.1', proto: 'http', xfh: host, forwarded: `for=127.0.0.1;host="${host}";proto=http`, via: '1.0 upstream, 1.1 svc-facade' }) },
      { running: trusting, headers: FORGED, expect: (host: string) => ({ xff: '6.6.6.6, 127.0.0.1', proto: 'https', xfh: 'forged.example', forwarded: `for=6.6.6.6;proto=https, for=127.0.0.1;host="${host}";proto=http`, via: '1.0 upstream, 1.1 svc-facade' }) },
      // A trusted peer that sent none: the facade's own values.
      { running: trusting, headers: {}, expect: (host: string) => ({ xff: '127.0.0.1', proto: 'http', xfh: host, forwarded: `for=127.0.0.1;host="${host}";proto=http`, via: '1.1 svc-facade' }) },
    ];
    for (const [i, { running, headers, expect }] of cases.entries()) {
      assert.equal((await rawRequest(running.origin, '/api/v3/store/inventory', { headers })).status, 200);
      const got = seen[i]!;
      const actual = { xff: got['x-forwarded-for'], proto: got['x-forwarded-proto'], xfh: got['x-forwarded-host'], forwarded: got.forwarded, via: got.via };
      assert.deepEqual(actual, expect(new URL(running.origin).host), `case ${i}`);
    }
  } finally {
    await untrusted.close();
    await trusting.close();
    await target.close();
  }
});

test('a trusted-proxies entry that is not an address or range fails startup naming the option and the allowed values', async () => {
  await assert.rejects(serve({ specification: PETSTORE, missingOperation: 'ignore', properties: { 'svc.backend.trustedProxies': '10.0.0.0/33' } }), (err: Error & { code?: string; exitCode?: number }) => {
    assert.equal(err.code, 'SVC_CONFIG_INVALID');
    assert.equal(err.exitCode, 2);
    assert.match(err.message, /backend\.trustedProxies has invalid value "10\.0\.0\.0\/33"; allowed: IP addresses and CIDR ranges/);
    return true;
  });
});

test('a query or path parameter named like a request field (authorization, cookie, traceparent, ...) never poses as that field to the backend', async () => {
  const { target, seen } = await recordingBackend();
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { findPetsByStatus: [{ kind: 'to', uri: `${target.origin}/pets` }] } });
  try {
    const query = new URLSearchParams({ status: 'sold', authorization: 'Bearer forged', cookie: 'session=forged', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'x-forwarded-for': '10.9.9.9', 'content-type': 'text/evil' });
    const res = await rawRequest(running.origin, `/api/v3/pet/findByStatus?${query}`, { headers: { cookie: 'session=real' } });
    assert.equal(res.status, 200, res.body);
    const got = seen[0]!;
    assert.equal(got.status, 'sold', 'other query parameters still go as headers, as Camel sends them');
    assert.equal(got.authorization, undefined);
    assert.equal(got.cookie, 'session=real', 'the client\'s own field, not the parameter');
    assert.equal(got.traceparent, undefined);
    assert.equal(got['x-forwarded-for'], '127.0.0.1');
    assert.equal(got['content-type'], undefined);
  } finally {
    await running.close();
    await target.close();
  }
});

test('a step reading ${in.body} before to: http gets the body as text (the request is then not streamed)', async () => {
  const { target, seen } = await recordingBackend();
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { addPet: [{ kind: 'log', message: 'got ${in.body}' }, { kind: 'to', uri: `${target.origin}/pets` }] } });
  try {
    const res = await rawRequest(running.origin, '/api/v3/pet', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"rex"}' });
    assert.equal(res.status, 200, res.body);
    assert.equal(seen.length, 1);
    assert.ok(running.logger.lines.some((l) => l.includes('got {"name":"rex"}')), running.logger.lines.join('\n'));
  } finally {
    await running.close();
    await target.close();
  }
});

test('forwardPath: a path whose parameter is a dot segment or hides a slash is refused (400), never sent to the backend', async () => {
  const seenPaths: string[] = [];
  const target = await httpBackend((req, res) => {
    seenPaths.push(req.url ?? '');
    req.resume().on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { getPetById: [{ kind: 'to', uri: `${target.origin}/api/v3?forwardPath=true` }] } });
  try {
    for (const petId of ['..', '%2E%2E', '.', '..%2Fadmin', 'a%5Cb']) {
      const res = await rawRequest(running.origin, `/api/v3/pet/${petId}`);
      assert.equal(res.status, 400, `${petId}: ${res.body}`);
      assert.equal(JSON.parse(res.body).detail, 'The request path cannot be forwarded: a segment is a dot segment or hides a slash.');
    }
    assert.deepEqual(seenPaths, []);
    const ok = await rawRequest(running.origin, '/api/v3/pet/a.b');
    assert.equal(ok.status, 200);
    assert.deepEqual(seenPaths, ['/api/v3/pet/a.b']);
  } finally {
    await running.close();
    await target.close();
  }
});
