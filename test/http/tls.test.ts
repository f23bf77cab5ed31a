// HTTPS on the main port (svc.server.tls.*): TLS 1.2 and 1.3 served, 1.0 and 1.1 refused; mutual TLS with
// clientAuth require and request; the verified certificate on the exchange and, with forwardClientCert,
// described to a backend in X-Forwarded-Client-Cert that a client cannot forge. Certificates from test/http/pki.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { connect as tlsConnect, type SecureVersion } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { PETSTORE, serve, type Running } from '../helpers.js';
import { makePki, type Pem, type TestPki } from './pki.js';
import type { Exchange } from '../../lib/index.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function get(origin: string, path: string, pki: TestPki, client?: Pem, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(`${origin}${path}`, { ca: pki.ca.cert, ...(client ?? {}), headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject).end();
  });
}

/** The TLS version a handshake limited to [min, max] ends with, or the error code it fails with. */
function handshake(port: number, pki: TestPki, minVersion: SecureVersion, maxVersion: SecureVersion): Promise<string> {
  return new Promise((resolve) => {
    const socket = tlsConnect({ host: '127.0.0.1', port, ca: pki.ca.cert, minVersion, maxVersion, ciphers: 'DEFAULT:@SECLEVEL=0' }, () => {
      resolve(socket.getProtocol() ?? 'none');
      socket.end();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
  });
}

const whoAmI = (ex: Exchange): void => {
  ex.message.headers.set('content-type', 'application/json');
  ex.body = { certificate: ex.clientCertificate ?? null };
};

async function tlsFacade(pki: TestPki, tls: Record<string, unknown>, routes: Record<string, unknown> = { getInventory: whoAmI }, backend: Record<string, unknown> = {}): Promise<Running & { https: string }> {
  const running = await serve({ specification: PETSTORE, missingOperation: 'mock', baseDir: pki.dir, server: { tls: { certFile: 'server.pem', keyFile: 'server.key', ...tls } }, backend, routes: routes as never });
  return { ...running, https: running.origin.replace('http:', 'https:') };
}

test('HTTPS: TLS 1.2 and 1.3 are served, TLS 1.0 and 1.1 refused; minVersion TLSv1.3 refuses 1.2 too', async () => {
  const pki = await makePki();
  const running = await tlsFacade(pki, {});
  const strict = await tlsFacade(pki, { minVersion: 'TLSv1.3' });
  try {
    const port = Number(new URL(running.https).port);
    assert.equal(await handshake(port, pki, 'TLSv1.3', 'TLSv1.3'), 'TLSv1.3');
    assert.equal(await handshake(port, pki, 'TLSv1.2', 'TLSv1.2'), 'TLSv1.2');
    for (const old of ['TLSv1', 'TLSv1.1'] as const) assert.notEqual(await handshake(port, pki, old, old), old, `${old} refused`);
    const strictPort = Number(new URL(strict.https).port);
    assert.notEqual(await handshake(strictPort, pki, 'TLSv1.2', 'TLSv1.2'), 'TLSv1.2');
    assert.equal(await handshake(strictPort, pki, 'TLSv1.2', 'TLSv1.3'), 'TLSv1.3');

    const answer = await get(running.https, '/api/v3/store/inventory', pki);
    assert.equal(answer.status, 200);
    assert.deepEqual(JSON.parse(answer.body), { certificate: null });
    // Plain HTTP on the TLS port is not served.
    await assert.rejects(fetch(`${running.origin}/api/v3/store/inventory`));
  } finally {
    await running.close();
    await strict.close();
  }
});

test('mutual TLS, clientAuth require: no certificate or one of another CA fails the handshake; a valid one is on the exchange', async () => {
  const pki = await makePki();
  const running = await tlsFacade(pki, { clientAuth: 'require', caFile: 'ca.pem' });
  try {
    await assert.rejects(get(running.https, '/api/v3/store/inventory', pki));
    await assert.rejects(get(running.https, '/api/v3/store/inventory', pki, pki.stranger));
    const answer = await get(running.https, '/api/v3/store/inventory', pki, pki.client);
    assert.equal(answer.status, 200);
    const { certificate } = JSON.parse(answer.body);
    assert.equal(certificate.subject, 'CN=alice,O=Example');
    assert.deepEqual(certificate.subjectAltNames, ['URI:spiffe://example.org/alice', 'DNS:alice.example.org']);
    assert.equal(certificate.authorized, true);
    assert.match(certificate.sha256, /^[0-9a-f]{64}$/);
  } finally {
    await running.close();
  }
});

test('mutual TLS, clientAuth request: served without a certificate; an unverified one is there with authorized false', async () => {
  const pki = await makePki();
  const running = await tlsFacade(pki, { clientAuth: 'request', caFile: 'ca.pem' });
  try {
    assert.deepEqual(JSON.parse((await get(running.https, '/api/v3/store/inventory', pki)).body), { certificate: null });
    const stranger = JSON.parse((await get(running.https, '/api/v3/store/inventory', pki, pki.stranger)).body).certificate;
    assert.equal(stranger.subject, 'CN=mallory');
    assert.equal(stranger.authorized, false);
    assert.equal(JSON.parse((await get(running.https, '/api/v3/store/inventory', pki, pki.client)).body).certificate.authorized, true);
  } finally {
    await running.close();
  }
});

test('forwardClientCert: the backend gets X-Forwarded-Client-Cert for a verified certificate, never the copy a client sent, even from a trusted proxy', async () => {
  const pki = await makePki();
  const seen: (string | undefined)[] = [];
  const backend = createServer((req, res) => {
    seen.push(req.headers['x-forwarded-client-cert'] as string | undefined);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const target = `http://127.0.0.1:${(backend.address() as AddressInfo).port}/inventory`;
  // The client is a trusted proxy, whose forwarding fields are otherwise kept: X-Forwarded-Client-Cert still is not.
  const running = await tlsFacade(pki, { clientAuth: 'request', caFile: 'ca.pem', forwardClientCert: true }, { getInventory: [{ kind: 'to', uri: target }] }, { trustedProxies: '127.0.0.1' });
  const forged = { 'x-forwarded-client-cert': 'Hash=00;Subject="CN=admin"' };
  try {
    assert.equal((await get(running.https, '/api/v3/store/inventory', pki, pki.client, forged)).status, 200);
    assert.equal((await get(running.https, '/api/v3/store/inventory', pki, undefined, forged)).status, 200);
    assert.equal((await get(running.https, '/api/v3/store/inventory', pki, pki.stranger, forged)).status, 200);
    assert.match(seen[0]!, /^Hash=[0-9a-f]{64};Subject="CN=alice,O=Example";URI=spiffe:\/\/example.org\/alice;DNS=alice.example.org$/);
    assert.deepEqual(seen.slice(1), [undefined, undefined], 'the forged copies were removed; an unverified certificate is not described');
  } finally {
    await running.close();
    backend.close();
  }
});

test('startup fails naming what is wrong: a key without a certificate, clientAuth without caFile, a key that does not match', async () => {
  const pki = await makePki();
  const other = await pki.issueServer('other');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${pki.dir}/other.key`, other.key);
  const attempts: [Record<string, unknown>, RegExp][] = [
    [{ keyFile: 'server.key' }, /svc\.server\.tls: certFile is not set/],
    [{ certFile: 'server.pem', keyFile: 'server.key', clientAuth: 'require' }, /clientAuth require needs caFile/],
    [{ certFile: 'server.pem', keyFile: 'other.key' }, /cannot use .*other\.key with .*server\.pem: the key does not belong to the certificate/],
    [{ certFile: 'missing.pem', keyFile: 'server.key' }, /cannot use .*missing\.pem: ENOENT/],
  ];
  for (const [tls, message] of attempts) {
    await assert.rejects(serve({ specification: PETSTORE, missingOperation: 'mock', baseDir: pki.dir, server: { tls } as never }), message);
  }
});

test('management port: plaintext beside an HTTPS main port by default; HTTPS with svc.observe.tls, its expiry in the metrics', async () => {
  const pki = await makePki();
  const plain = await serve({ specification: PETSTORE, missingOperation: 'mock', baseDir: pki.dir, server: { tls: { certFile: 'server.pem', keyFile: 'server.key' } }, observe: { port: 0 } });
  const secure = await serve({ specification: PETSTORE, missingOperation: 'mock', baseDir: pki.dir, observe: { port: 0, tls: { certFile: 'server.pem', keyFile: 'server.key' } } });
  try {
    const plainManagement = `http://127.0.0.1:${plain.facade.managementAddress!.port}`;
    const metrics = await (await fetch(`${plainManagement}/observe/metrics`)).text();
    assert.match(metrics, /^svc_tls_certificate_expiry_timestamp_seconds\{listener="server"\} \d+$/m);
    assert.doesNotMatch(metrics, /listener="management"/);

    const secureManagement = `https://127.0.0.1:${secure.facade.managementAddress!.port}`;
    await assert.rejects(fetch(`${secureManagement.replace('https:', 'http:')}/observe/health/ready`));
    const answer = await get(secureManagement, '/observe/metrics', pki);
    assert.equal(answer.status, 200);
    assert.match(answer.body, /^svc_tls_certificate_expiry_timestamp_seconds\{listener="management"\} \d+$/m);
    // The main port stays plaintext.
    assert.equal((await fetch(`${secure.origin}/api/v3/store/inventory`)).status, 200);
  } finally {
    await plain.close();
    await secure.close();
  }
});
