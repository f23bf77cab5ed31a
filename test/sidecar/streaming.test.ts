// Bodies streamed through `to: http://` without being held whole: 50 MB each way with the facade's memory
// staying flat, the size limit enforced mid-stream, and a client that goes away aborting the backend call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PETSTORE, serve } from '../helpers.js';
import { httpBackend, signal } from './backends.js';

const MB = 1024 * 1024;
const TOTAL = 50 * MB;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

/** Writes `total` bytes to `out` in 64 KiB chunks, waiting for drain: never more than a chunk at hand. */
async function writeBytes(out: NodeJS.WritableStream, total: number): Promise<void> {
  for (let sent = 0; sent < total; sent += CHUNK.length) {
    if (!out.write(CHUNK)) await new Promise((resolve) => out.once('drain', resolve));
  }
  out.end();
}

// Collecting garbage before each sample measures what is held, not what the GC has yet to free.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Samples this process's live Buffer and heap memory while `work` runs; resolves with the peak growth in bytes. */
async function peakGrowth(work: () => Promise<void>): Promise<number> {
  const used = (): number => {
    gc();
    const m = process.memoryUsage();
    return m.arrayBuffers + m.heapUsed;
  };
  const base = used();
  let peak = base;
  const sampler = setInterval(() => void (peak = Math.max(peak, used())), 20);
  try {
    await work();
  } finally {
    clearInterval(sampler);
  }
  return Math.max(peak, used()) - base;
}

test('a 50 MB upload and a 50 MB download stream through: the whole body never sits in the facade\'s memory', async () => {
  let received = 0;
  const target = await httpBackend((req, res) => {
    if (req.method === 'POST') {
      let count = 0;
      req.on('data', (c: Buffer) => void (count += c.length));
      req.on('end', () => {
        received = count;
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count }));
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': TOTAL });
    void writeBytes(res, TOTAL);
  });
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    server: { maxBodySize: '64MiB' },
    routes: { uploadFile: [{ kind: 'to', uri: `${target.origin}/upload` }], getInventory: [{ kind: 'to', uri: `${target.origin}/download` }] },
  });
  try {
    const { port } = new URL(running.origin);
    const upload = await peakGrowth(async () => {
      const answer = await new Promise<IncomingMessage>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v3/pet/1/uploadImage', headers: { 'content-type': 'application/octet-stream', 'content-length': TOTAL } }, resolve);
        req.on('error', reject);
        void writeBytes(req, TOTAL);
      });
      assert.equal(answer.statusCode, 200);
      answer.resume();
      await new Promise((resolve) => answer.on('end', resolve));
    });
    assert.equal(received, TOTAL, 'the backend got every byte');
    const download = await peakGrowth(async () => {
      const answer = await new Promise<IncomingMessage>((resolve, reject) => request({ host: '127.0.0.1', port, path: '/api/v3/store/inventory' }, resolve).on('error', reject).end());
      assert.equal(answer.statusCode, 200);
      assert.equal(answer.headers['content-length'], String(TOTAL));
      let count = 0;
      answer.on('data', (c: Buffer) => void (count += c.length));
      await new Promise((resolve) => answer.on('end', resolve));
      assert.equal(count, TOTAL, 'the client got every byte');
    });
    // Loose on purpose (the client and the backend share this process): a buffered body would hold its 50 MB.
    console.log(`# live memory growth: upload ${(upload / MB).toFixed(1)} MB, download ${(download / MB).toFixed(1)} MB`);
    assert.ok(upload < 30 * MB, `upload grew memory by ${(upload / MB).toFixed(1)} MB`);
    assert.ok(download < 30 * MB, `download grew memory by ${(download / MB).toFixed(1)} MB`);
  } finally {
    await running.close();
    await target.close();
  }
});

test('a streamed upload over svc.server.maxBodySize: announced → 413 before the backend is called; chunked → 413 mid-stream and the backend call aborted', async () => {
  const backendSaw: string[] = [];
  const aborted = signal();
  const arrived = signal();
  const target = await httpBackend((req, res) => {
    backendSaw.push(req.headers['content-length'] ?? 'chunked');
    arrived.fire();
    req.resume();
    req.on('close', () => {
      if (!req.complete) aborted.fire();
    });
    req.on('end', () => res.end('{}'));
  });
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', server: { maxBodySize: '1KB' }, routes: { uploadFile: [{ kind: 'to', uri: `${target.origin}/upload` }] } });
  try {
    const big = await fetch(`${running.origin}/api/v3/pet/1/uploadImage`, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: Buffer.alloc(5000) });
    assert.equal(big.status, 413);
    assert.equal(big.headers.get('content-type'), 'application/problem+json');
    assert.equal(((await big.json()) as { detail: string }).detail, 'The request body exceeds the limit of 1000 bytes.');
    assert.deepEqual(backendSaw, [], 'an announced oversize body never reaches the backend');

    const { port } = new URL(running.origin);
    const answer = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/api/v3/pet/1/uploadImage', headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' } }, resolve);
      req.on('error', reject);
      req.write(Buffer.alloc(600));
      void arrived.fired.then(() => req.end(Buffer.alloc(600)));
    });
    assert.equal(answer.statusCode, 413);
    assert.equal(answer.headers.connection, 'close');
    answer.resume();
    await aborted.fired;
    assert.deepEqual(backendSaw, ['chunked'], 'the body was on its way, and the backend saw it cut');
  } finally {
    await running.close();
    await target.close();
  }
});

test('a client that goes away mid-upload, or while the backend thinks, aborts the backend call', async () => {
  const closedEarly: string[] = [];
  let closed = signal();
  let arrived = signal();
  const target = await httpBackend((req, res) => {
    arrived.fire();
    req.resume();
    // Never answers: only the facade can end this call.
    res.on('close', () => {
      closedEarly.push(`${req.method} complete=${req.complete}`);
      closed.fire();
    });
  });
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: { uploadFile: [{ kind: 'to', uri: `${target.origin}/upload` }], getInventory: [{ kind: 'to', uri: `${target.origin}/slow` }] },
  });
  try {
    const { port } = new URL(running.origin);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write('POST /api/v3/pet/1/uploadImage HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: 100000\r\n\r\n');
    socket.write(Buffer.alloc(10_000));
    await arrived.fired;
    socket.destroy();
    await closed.fired;
    assert.deepEqual(closedEarly, ['POST complete=false']);

    closed = signal();
    arrived = signal();
    const gaveUp = new AbortController();
    const pending = fetch(`${running.origin}/api/v3/store/inventory`, { signal: gaveUp.signal });
    await arrived.fired;
    gaveUp.abort();
    await assert.rejects(pending);
    await closed.fired;
    assert.deepEqual(closedEarly, ['POST complete=false', 'GET complete=true']);
    assert.equal((await fetch(`${running.origin}/api/v3/pet/1/uploadImage`, { method: 'HEAD' })).status, 405, 'the facade serves on');
  } finally {
    await running.close();
    await target.close();
  }
});
