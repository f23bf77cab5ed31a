// The buffers a streamed body leaves behind (lib/routes/backend/relayed-garbage.ts): 96 MB each way through
// createFacade, the memory outside V8's heap never piling up. Every socket read is a new buffer, dead once
// written on; without the facade's minor collections V8 lets 30 MB and more of them wait for a collection
// of its own. What is sampled is process.memoryUsage().arrayBuffers at every chunk the client reads or
// writes (no timer: the same samples on a busy machine), with no gc() of the test's own while a body
// streams (one before, for the baseline): the garbage is measured, not what a collection leaves. Only the
// facade makes garbage in this process: the backend is a child process, the client writes one reused buffer
// and reads into one (a raw socket with `onread`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { garbageCollector } from '../../lib/util/garbage.js';
import { PETSTORE, serve } from '../helpers.js';

const MB = 1024 * 1024;
const TOTAL = 96 * MB;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
/** Measured: about 4 MB with the facade's collections; 30–36 MB without them. */
const BOUND = 16 * MB;
const collect = garbageCollector();

/** A node:http backend in its own process: a POST answers the count of bytes it got; GET /<n> answers n bytes. */
const BACKEND = `
const CHUNK = Buffer.alloc(65536, 120);
require('node:http').createServer((req, res) => {
  if (req.method === 'POST') { let n = 0; req.on('data', (c) => (n += c.length)); req.on('end', () => res.end(JSON.stringify({ count: n }))); return; }
  const total = Number(req.url.split('/').pop());
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
  let sent = 0;
  const pump = () => { while (sent < total) { sent += CHUNK.length; if (!res.write(CHUNK)) return res.once('drain', pump); } res.end(); };
  pump();
}).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });
`;

/** The peak of arrayBuffers over what is live when made, sampled by the caller at each chunk. */
function peakTracker(): { sample(): void; growth(): number } {
  collect();
  const base = process.memoryUsage().arrayBuffers;
  let peak = base;
  return {
    sample: () => void (peak = Math.max(peak, process.memoryUsage().arrayBuffers)),
    growth: () => peak - base,
  };
}

const mb = (bytes: number): string => (bytes / MB).toFixed(1);

/** GET through the facade on a raw socket read into one buffer; resolves with the head and the count of body bytes. */
function download(port: number, path: string, onChunk: () => void): Promise<{ head: string; body: number }> {
  return new Promise((resolve, reject) => {
    let head = '';
    let body = -1;
    const socket = connect({
      host: '127.0.0.1',
      port,
      onread: {
        buffer: Buffer.alloc(64 * 1024),
        callback: (n, buf) => {
          onChunk();
          if (body >= 0) return void (body += n);
          head += buf.toString('latin1', 0, n);
          const end = head.indexOf('\r\n\r\n');
          if (end === -1) return;
          body = head.length - end - 4;
          head = head.slice(0, end);
        },
      },
    });
    socket.on('error', reject);
    socket.on('close', () => resolve({ head, body }));
    socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  });
}

/** POSTs `total` bytes through the facade in 64 KiB writes of one buffer, waiting for drain. */
function upload(port: number, path: string, total: number, onChunk: () => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/octet-stream', 'content-length': total } }, (res: IncomingMessage) => {
      let text = `${res.statusCode} `;
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
    let sent = 0;
    const pump = (): void => {
      while (sent < total) {
        onChunk();
        sent += CHUNK.length;
        if (!req.write(CHUNK)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

test('96 MB streamed each way through a `to:` backend: the dead read buffers stay under 16 MB', async () => {
  const backend = spawn(process.execPath, ['-e', BACKEND], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const backendPort = await new Promise<number>((resolve, reject) => {
      backend.once('error', reject);
      backend.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
    });
    const origin = `http://127.0.0.1:${backendPort}`;
    const running = await serve({
      specification: PETSTORE,
      missingOperation: 'ignore',
      server: { maxBodySize: '128MiB' },
      routes: { uploadFile: [{ kind: 'to', uri: `${origin}/upload` }], getInventory: [{ kind: 'to', uri: `${origin}/${TOTAL}` }] },
    });
    try {
      const port = Number(new URL(running.origin).port);
      const down = peakTracker();
      const got = await download(port, '/api/v3/store/inventory', down.sample);
      assert.match(got.head, /^HTTP\/1\.1 200 /);
      assert.equal(got.body, TOTAL, 'the client got every byte');

      const up = peakTracker();
      assert.equal(await upload(port, '/api/v3/pet/1/uploadImage', TOTAL, up.sample), `200 {"count":${TOTAL}}`, 'the backend got every byte');

      console.log(`# arrayBuffers growth: download ${mb(down.growth())} MB, upload ${mb(up.growth())} MB`);
      assert.ok(down.growth() < BOUND, `download: ${mb(down.growth())} MB of buffers waited for a collection`);
      assert.ok(up.growth() < BOUND, `upload: ${mb(up.growth())} MB of buffers waited for a collection`);
    } finally {
      await running.close();
    }
  } finally {
    backend.kill();
  }
});
