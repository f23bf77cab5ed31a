// Certificates renewed on disk (lib/http/cert-reload.ts): an atomic rename (cert-manager, certbot) and a
// swapped symlink (Kubernetes secret volumes) are served to new handshakes within 2 s, while requests keep
// going on kept-alive and new connections without one failing; a pair that does not match keeps the old one
// with an ERROR line and a metric; the expiry is a gauge.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdirSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { connect } from 'node:tls';
import { join } from 'node:path';
import { PETSTORE, serve, tempDir } from '../helpers.js';
import { makePki, type Pem, type TestPki } from './pki.js';

/** The CN of the certificate a new handshake gets. */
function servedName(port: number, pki: TestPki): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ca: pki.ca.cert }, () => {
      resolve(String(socket.getPeerCertificate().subject.CN));
      socket.end();
    });
    socket.on('error', reject);
  });
}

function get(port: number, pki: TestPki, agent: Agent | false, path = '/api/v3/pet/1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, ca: pki.ca.cert, agent }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject).end();
  });
}

/** Requests on kept-alive connections and on new ones, without pause, until stopped: how many, how many failed. */
function load(port: number, pki: TestPki): { stop(): Promise<{ ok: number; failed: string[] }> } {
  const agent = new Agent({ keepAlive: true, maxSockets: 4, ca: pki.ca.cert });
  let running = true;
  let ok = 0;
  const failed: string[] = [];
  const worker = async (fresh: boolean): Promise<void> => {
    while (running) {
      try {
        const status = await get(port, pki, fresh ? false : agent);
        if (status === 200) ok++;
        else failed.push(`status ${status}`);
      } catch (err) {
        failed.push((err as Error).message);
      }
    }
  };
  const workers = [worker(false), worker(false), worker(false), worker(true)];
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      agent.destroy();
      return { ok, failed };
    },
  };
}

/** Waits until new handshakes get `name`; how long that took. */
async function servedWithin(port: number, pki: TestPki, name: string, since: number): Promise<number> {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    if ((await servedName(port, pki)) === name) return Date.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`${name} was never served`);
}

function writeAtomically(dir: string, file: string, text: string): void {
  writeFileSync(join(dir, `.${file}.tmp`), text);
  renameSync(join(dir, `.${file}.tmp`), join(dir, file));
}

const expiry = (pem: Pem): number => Math.floor(Date.parse(new X509Certificate(pem.cert).validTo) / 1000);

test('atomic rename: new handshakes get the new certificate within 2 s, no request fails under load; a mismatched pair keeps the old one', async () => {
  const pki = await makePki();
  const running = await serve({ specification: PETSTORE, missingOperation: 'mock', baseDir: pki.dir, server: { tls: { certFile: 'server.pem', keyFile: 'server.key' } } });
  const port = Number(new URL(running.origin).port);
  const metrics = async (): Promise<string> => {
    const agent = new Agent({ ca: pki.ca.cert });
    const text = await new Promise<string>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/observe/metrics', agent }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve(body));
      }).on('error', reject).end();
    });
    agent.destroy();
    return text;
  };
  const traffic = load(port, pki);
  try {
    assert.equal(await servedName(port, pki), 'first');
    assert.match(await metrics(), new RegExp(`^svc_tls_certificate_expiry_timestamp_seconds\\{listener="server"\\} ${expiry(pki.server)}$`, 'm'));

    const second = await pki.issueServer('second', 60);
    const renamed = Date.now();
    writeAtomically(pki.dir, 'server.key', second.key);
    writeAtomically(pki.dir, 'server.pem', second.cert);
    const took = await servedWithin(port, pki, 'second', renamed);
    assert.ok(took < 2000, `served after ${took} ms`);
    assert.match(await metrics(), new RegExp(`^svc_tls_certificate_expiry_timestamp_seconds\\{listener="server"\\} ${expiry(second)}$`, 'm'));
    assert.match(await metrics(), /^svc_tls_certificate_reloads_total\{listener="server"\} 1$/m);

    // A key that is not the certificate's: refused, the second certificate still served.
    const third = await pki.issueServer('third');
    writeAtomically(pki.dir, 'server.pem', third.cert);
    for (const deadline = Date.now() + 10_000; !running.logger.lines.some((l) => l.startsWith('ERROR')) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 50));
    const error = running.logger.lines.find((l) => l.startsWith('ERROR'));
    assert.match(error ?? '', /^ERROR svc\.server\.tls: cannot use .*server\.key with .*server\.pem: the key does not belong to the certificate; still serving the previous certificate$/);
    assert.equal(await servedName(port, pki), 'second');
    assert.match(await metrics(), /^svc_tls_certificate_reload_failures_total\{listener="server"\} 1$/m);

    const { ok, failed } = await traffic.stop();
    assert.deepEqual(failed, [], 'no request failed while certificates changed');
    assert.ok(ok > 20, `requests were made throughout (${ok})`);
  } finally {
    await traffic.stop();
    await running.close();
  }
});

test('symlink swap (a Kubernetes secret volume): the new certificate is served; a connection kept alive from before goes on', async () => {
  const pki = await makePki();
  const dir = tempDir();
  const version = (name: string, pem: Pem): void => {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'tls.crt'), pem.cert);
    writeFileSync(join(dir, name, 'tls.key'), pem.key);
  };
  version('..v1', pki.server);
  symlinkSync('..v1', join(dir, '..data'));
  symlinkSync('..data/tls.crt', join(dir, 'tls.crt'));
  symlinkSync('..data/tls.key', join(dir, 'tls.key'));
  const running = await serve({ specification: PETSTORE, missingOperation: 'mock', baseDir: dir, server: { tls: { certFile: 'tls.crt', keyFile: 'tls.key' } } });
  const port = Number(new URL(running.origin).port);
  const kept = new Agent({ keepAlive: true, maxSockets: 1, ca: pki.ca.cert });
  try {
    assert.equal(await get(port, pki, kept), 200);
    const second = await pki.issueServer('second');
    version('..v2', second);
    symlinkSync('..v2', join(dir, '..data_tmp'));
    const swapped = Date.now();
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    const took = await servedWithin(port, pki, 'second', swapped);
    assert.ok(took < 2000, `served after ${took} ms`);
    // The kept-alive connection still has the certificate of its handshake, and serves.
    const socket = Object.values(kept.freeSockets).flat()[0]!;
    assert.equal((socket as unknown as import('node:tls').TLSSocket).getPeerCertificate().subject.CN, 'first');
    assert.equal(await get(port, pki, kept), 200);
    assert.equal(Object.values(kept.freeSockets).flat()[0], socket, 'the same connection');
  } finally {
    kept.destroy();
    await running.close();
  }
});
