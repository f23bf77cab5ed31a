// The contract's security at the edges: mutualTLS over a real TLS socket, the principal header a `to:`
// backend gets (and the client's copy it never gets), a refused request whose body is never read nor
// forwarded, the startup errors, and the warning when enforcement is off.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer as createHttpsServer, request as httpsRequest } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import type { IncomingHttpHeaders } from 'node:http';
import { createFacade } from '../../lib/index.js';
import { writeFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { join } from 'node:path';
import { memoryLogger, serve } from '../helpers.js';
import { generatePki, httpBackend } from '../sidecar/backends.js';
import { basic, call, KEYS, OPERATION_IDS, securedConfig, securedDir, SECURED_CONTRACT } from './contract-security-fixture.js';

test('mutualTLS is met by a client certificate the TLS layer verified; none, or one of another CA, gets 401', async () => {
  const pki = await generatePki();
  const stranger = await generatePki();
  const calls = { count: 0 };
  const facade = await createFacade(securedConfig(securedDir(), calls), { logger: memoryLogger(), env: {} });
  const server = createHttpsServer({ key: pki.read('server.key'), cert: pki.read('server.pem'), ca: pki.read('ca.pem'), requestCert: true, rejectUnauthorized: false }, facade.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const get = (client?: { cert: Buffer; key: Buffer }) =>
    new Promise<{ status: number; challenge: IncomingHttpHeaders['www-authenticate']; body: string }>((resolve, reject) => {
      const req = httpsRequest({ host: '127.0.0.1', port, path: '/mtls', ca: pki.read('ca.pem'), agent: false, ...client }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode!, challenge: res.headers['www-authenticate'], body }));
      });
      req.on('error', reject);
      req.end();
    });
  try {
    const verified = await get({ cert: pki.read('client.pem'), key: pki.read('client.key') });
    assert.equal(verified.status, 200, verified.body);
    assert.equal(JSON.parse(verified.body).principal, 'facade-client');
    const none = await get();
    assert.equal(none.status, 401);
    assert.equal(none.challenge, 'MutualTLS');
    assert.match(none.body, /no client certificate/);
    const other = await get({ cert: stranger.read('client.pem'), key: stranger.read('client.key') });
    assert.equal(other.status, 401);
    assert.match(other.body, /the client certificate was not verified/);
    assert.equal(calls.count, 1);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await facade.stop();
  }
});

test('plain HTTP never meets mutualTLS', async () => {
  const running = await serve(securedConfig(securedDir(), { count: 0 }), { env: {} });
  try {
    assert.equal((await call(running.origin, '/mtls')).status, 401);
  } finally {
    await running.close();
  }
});

test('svc.security.principalHeader: a to: backend gets the principal, never the copy a client sent', async () => {
  const seen: IncomingHttpHeaders[] = [];
  const backend = await httpBackend((req, res) => {
    seen.push(req.headers);
    res.setHeader('content-type', 'application/json');
    res.end('{}');
  });
  const dir = securedDir();
  const config = securedConfig(dir, { count: 0 }, { security: { apiKeys: 'api-keys.txt', principalHeader: 'X-Authenticated-User' } });
  config.routes = Object.fromEntries(OPERATION_IDS.map((id) => [id, [{ kind: 'to' as const, uri: backend.origin }]]));
  const running = await serve(config, { env: {} });
  try {
    assert.equal((await call(running.origin, '/key', { 'x-api-key': KEYS.alice, 'x-authenticated-user': 'admin' })).status, 200);
    assert.equal(seen[0]!['x-authenticated-user'], 'alice');
    // Anonymous: no principal, and the client's own value is still dropped.
    assert.equal((await call(running.origin, '/open', { 'x-authenticated-user': 'admin', 'X_Authenticated_User': 'x' })).status, 200);
    assert.equal(seen[1]!['x-authenticated-user'], undefined);
    // An unnamed key has no principal either.
    assert.equal((await call(running.origin, '/key', { 'x-api-key': KEYS.unnamed, 'x-authenticated-user': 'admin' })).status, 200);
    assert.equal(seen[2]!['x-authenticated-user'], undefined);
    // Refused: the backend hears nothing.
    assert.equal((await call(running.origin, '/key', { 'x-api-key': 'wrong' })).status, 401);
    assert.equal(seen.length, 3);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('a refused request with a body is answered at once and closed; its body is never read or forwarded', async () => {
  let backendRequests = 0;
  const backend = await httpBackend((_req, res) => {
    backendRequests++;
    res.end('{}');
  });
  const config = securedConfig(securedDir(), { count: 0 });
  config.routes = { ...config.routes, upload: [{ kind: 'to', uri: backend.origin }] };
  const running = await serve(config, { env: {} });
  const socket = connect(Number(new URL(running.origin).port), '127.0.0.1');
  try {
    // Announces 100 bytes and sends none: the answer must not wait for them.
    socket.write('POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 100\r\nAuthorization: Basic dTpw\r\n\r\n');
    let received = '';
    socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
    await new Promise<void>((resolve) => socket.on('close', () => resolve()));
    assert.match(received, /^HTTP\/1\.1 401 Unauthorized\r\n/);
    assert.match(received, /\r\nconnection: close\r\n/i);
    assert.match(received, /\r\nwww-authenticate: ApiKey in="header", name="X-API-Key"\r\n/i);
    assert.ok(!received.includes('dTpw'), 'the credential is not echoed');
    assert.equal(backendRequests, 0);
  } finally {
    socket.destroy();
    await running.close();
    await backend.close();
  }
});

test('startup fails naming what is wrong: an unknown scheme, a handler for no scheme, an unsupported type, bad key and user files, a reserved principal header', async () => {
  const contract = (patch: (c: typeof SECURED_CONTRACT) => void) => {
    const copy = structuredClone(SECURED_CONTRACT);
    patch(copy);
    return JSON.stringify(copy);
  };
  const cases: [Record<string, string>, Record<string, unknown>, RegExp][] = [
    [{ 'contract.json': contract((c) => (c.paths['/key'].get.security = [{ nope: [] }])) }, {}, /clientSecurityValidation: GET \/key \(key\): the security requirement names nope, which is not in components\.securitySchemes/],
    [{}, { securityHandlers: { missing: () => true } }, /securityHandlers names missing, which is not in components\.securitySchemes/],
    [{ 'contract.json': contract((c) => Object.assign(c.components.securitySchemes, { apiKeyHeader: { type: 'apiKey', in: 'body', name: 'k' } })) }, {}, /security scheme apiKeyHeader \(type apiKey\) has in "body"; allowed: header, query, cookie/],
    [{ 'contract.json': contract((c) => Object.assign(c.components.securitySchemes, { apiKeyHeader: { type: 'magic' } })) }, {}, /security scheme apiKeyHeader has type "magic"/],
    [{ 'api-keys.txt': 'alice: \n' }, { security: { apiKeys: 'api-keys.txt' } }, /svc\.security\.apiKeys: .*api-keys\.txt line 1: no key after the principal/],
    [{ 'api-keys.txt': 'a: sha256:abc\n' }, { security: { apiKeys: 'api-keys.txt' } }, /line 1: a sha256: key needs 64 hexadecimal digits/],
    [{}, { security: { apiKeys: 'absent.txt' } }, /svc\.security\.apiKeys: .*absent\.txt: ENOENT/],
    [{ 'users.htpasswd': 'erin:$apr1$abc$def\n' }, { security: { basicUsers: 'users.htpasswd' } }, /line 1: the hash of user "erin" is neither bcrypt/],
    [{}, { security: { principalHeader: 'Authorization' } }, /option security\.principalHeader has invalid value "Authorization"/],
  ];
  for (const [files, extra, message] of cases) {
    const dir = securedDir(files);
    await assert.rejects(createFacade({ ...securedConfig(dir, { count: 0 }), ...extra }, { logger: memoryLogger(), env: {} }), message);
  }
  // A key file's line is never printed: it holds a key.
  const dir = securedDir({ 'api-keys.txt': 'x: sha256:not-hex-secret-value\n' });
  await assert.rejects(createFacade({ ...securedConfig(dir, { count: 0 }), security: { apiKeys: 'api-keys.txt' } }, { logger: memoryLogger(), env: {} }), (err: Error) => !err.message.includes('not-hex-secret-value'));
});

test('enforcement off: one WARN counting the operations whose security nothing enforces, and every request let in', async () => {
  const calls = { count: 0 };
  const config = securedConfig(securedDir(), calls, { restConfiguration: {} });
  const running = await serve(config, { env: {} });
  try {
    const warnings = running.logger.lines.filter((l) => l.startsWith('WARN'));
    // 15 operations: /open and /optional ask for nothing.
    assert.deepEqual(warnings, ['WARN 13 operation(s) declare security requirements that nothing enforces: any client may call them. Set restConfiguration clientSecurityValidation: true (svc.rest.clientSecurityValidation=true) to enforce them (docs/security.md#contract-security)']);
    assert.equal((await call(running.origin, '/key')).status, 200);
    assert.equal((await call(running.origin, '/basic', { authorization: basic('a', 'b') })).body.authorization, basic('a', 'b'));
  } finally {
    await running.close();
  }
});

test('API keys on one kept-alive connection: each request is judged on its own key, also after a reload replaced the key file', async () => {
  const dir = securedDir();
  const calls = { count: 0 };
  const running = await serve(securedConfig(dir, calls, { security: { apiKeys: 'api-keys.txt' } }), { env: {} });
  const socket = connect(Number(new URL(running.origin).port), '127.0.0.1');
  let buffered = Buffer.alloc(0);
  const waiting: (() => void)[] = [];
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk]);
    waiting.shift()?.();
  });
  /** One GET /key with this X-API-Key on the same socket; the status and the principal the route saw. */
  const get = async (key: string): Promise<{ status: number; principal: unknown }> => {
    socket.write(`GET /key HTTP/1.1\r\nHost: x\r\nX-API-Key: ${key}\r\n\r\n`);
    for (;;) {
      const head = buffered.indexOf('\r\n\r\n');
      const length = head === -1 ? undefined : Number(/content-length: (\d+)/i.exec(buffered.subarray(0, head).toString())?.[1] ?? 0);
      if (length !== undefined && buffered.length >= head + 4 + length) {
        const status = Number(buffered.subarray(9, 12).toString());
        const body = JSON.parse(buffered.subarray(head + 4, head + 4 + length).toString()) as { principal?: unknown };
        buffered = buffered.subarray(head + 4 + length);
        return { status, principal: body.principal };
      }
      await new Promise<void>((resolve) => waiting.push(resolve));
    }
  };
  try {
    await new Promise<void>((resolve) => socket.once('connect', resolve));
    const nearMiss = `${KEYS.alice.slice(0, -1)}${KEYS.alice.endsWith('0') ? '1' : '0'}`;
    const long = `${KEYS.alice}${'x'.repeat(80)}`;
    assert.deepEqual(await get(KEYS.alice), { status: 200, principal: 'alice' });
    assert.deepEqual(await get(KEYS.alice), { status: 200, principal: 'alice' });
    // The key the connection sent before, one character off, a prefix of it, and a longer one: each refused.
    assert.equal((await get(nearMiss)).status, 401);
    assert.equal((await get(KEYS.alice.slice(0, -1))).status, 401);
    assert.equal((await get(long)).status, 401);
    assert.deepEqual(await get(KEYS.hashed), { status: 200, principal: 'bob' });
    assert.deepEqual(await get(KEYS.unnamed), { status: 200, principal: null });
    assert.deepEqual(await get(KEYS.alice), { status: 200, principal: 'alice' });
    // Alice's key is taken out of the file: after the reload the same connection's same key is refused.
    writeFileSync(join(dir, 'api-keys.txt'), `${KEYS.unnamed}\n`);
    await running.facade.reload();
    assert.equal((await get(KEYS.alice)).status, 401);
    assert.deepEqual(await get(KEYS.unnamed), { status: 200, principal: null });
    assert.equal(calls.count, 6);
  } finally {
    socket.destroy();
    await running.close();
  }
});

test('API keys on one HTTP/2 connection: streams are judged on their own keys (the memo rides on the session socket)', async () => {
  const calls = { count: 0 };
  const running = await serve(securedConfig(securedDir(), calls, { security: { apiKeys: 'api-keys.txt' } }), { env: {} });
  const session = http2Connect(running.origin);
  const get = (key: string): Promise<{ status: number; principal: unknown }> =>
    new Promise((resolve, reject) => {
      const stream = session.request({ ':path': '/key', 'x-api-key': key });
      let status = 0;
      let text = '';
      stream.on('response', (headers) => (status = Number(headers[':status'])));
      stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
      stream.on('end', () => resolve({ status, principal: (JSON.parse(text) as { principal?: unknown }).principal }));
      stream.on('error', reject);
      stream.end();
    });
  try {
    assert.deepEqual(await get(KEYS.alice), { status: 200, principal: 'alice' });
    assert.deepEqual(await get(KEYS.alice), { status: 200, principal: 'alice' });
    assert.equal((await get(`${KEYS.alice.slice(0, -1)}x`)).status, 401);
    assert.deepEqual(await get(KEYS.hashed), { status: 200, principal: 'bob' });
    assert.equal(calls.count, 3);
  } finally {
    session.close();
    await running.close();
  }
});
