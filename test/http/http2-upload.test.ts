// A large request body over HTTP/2, forwarded as it arrives to a backend that reads slowly: the facade's
// HTTP/2 request pauses its stream when its buffer is full and resumes it when the backend reads on, so
// flow control reaches the client and every byte arrives, in order, once; and a backend that stops reading
// holds the client back after a few MiB, however much it offers (5 MiB here; 64 with the pause removed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { http2Answer, PETSTORE, serve, type Running } from '../helpers.js';

const MiB = 1024 * 1024;

/** The Petstore facade whose addPet forwards its body, as it arrives, to `backend` (started here). */
async function forwardingTo(backend: Server, maxBodySize: number): Promise<Running> {
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  return serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    server: { maxBodySize },
    routes: { addPet: [{ kind: 'to', uri: `http://127.0.0.1:${(backend.address() as AddressInfo).port}/pets` }] },
  });
}

test('h2c: an 8 MiB body streamed to a slow backend arrives whole and in order', { timeout: 60_000 }, async () => {
  let paused = 0;
  const backend = createServer((req: IncomingMessage, res: ServerResponse) => {
    const hash = createHash('sha256');
    let bytes = 0;
    req.on('data', (chunk: Buffer) => {
      hash.update(chunk);
      const before = Math.floor(bytes / MiB);
      bytes += chunk.length;
      // A pause at every MiB: the facade's buffers fill, and it has to hold the client back.
      if (Math.floor(bytes / MiB) > before) {
        paused++;
        req.pause();
        setTimeout(() => req.resume(), 20);
      }
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ bytes, sha256: hash.digest('hex'), chunked: req.headers['transfer-encoding'] === 'chunked' }));
    });
  });
  const running = await forwardingTo(backend, 16 * MiB);
  const client = connect(running.origin);
  try {
    const sent = createHash('sha256');
    const stream = client.request({ ':method': 'POST', ':path': '/api/v3/pet', 'content-type': 'application/json' }, { endStream: false });
    const answer = http2Answer(stream);
    for (let i = 0; i < 8; i++) {
      const chunk = randomBytes(MiB);
      sent.update(chunk);
      if (!stream.write(chunk)) await once(stream, 'drain');
    }
    stream.end();
    const { status, body } = await answer;
    assert.equal(status, 200, body);
    assert.deepEqual(JSON.parse(body), { bytes: 8 * MiB, sha256: sent.digest('hex'), chunked: true });
    assert.ok(paused >= 7, `the backend paused at every MiB (${paused})`);
  } finally {
    client.close();
    await running.close();
    backend.close();
  }
});

test('h2c: a client offering 64 MiB to a backend that stops reading gets only as far as the buffers in flight', { timeout: 60_000 }, async () => {
  const OFFERED = 64 * MiB;
  let received = 0;
  let stopped: IncomingMessage | undefined;
  let reachStop = (): void => undefined;
  const reachedStop = new Promise<void>((resolve) => (reachStop = resolve));
  const backend = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      // Stops reading after its first MiB, until the test lets it go on.
      if (stopped === undefined && received >= MiB) {
        stopped = req;
        req.pause();
        reachStop();
      }
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ bytes: received }));
    });
  });
  const running = await forwardingTo(backend, 128 * MiB);
  const client = connect(running.origin);
  try {
    const stream = client.request({ ':method': 'POST', ':path': '/api/v3/pet', 'content-type': 'application/octet-stream' }, { endStream: false });
    const answer = http2Answer(stream);
    // What the client got to send: a write's callback runs once its bytes went out within the flow-control window.
    let sent = 0;
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const writing = (async () => {
      for (let offered = 0; offered < OFFERED; offered += chunk.length) {
        if (!stream.write(chunk, () => (sent += chunk.length))) await once(stream, 'drain');
      }
      stream.end();
    })();
    await reachedStop;
    // Until the client makes no more progress: what it sent is then all that the buffers between it and the
    // stopped backend hold (the HTTP/2 window, the facade's request, the backend connection's socket buffers).
    let last = -1;
    for (let still = 0; still < 5; still = sent === last ? still + 1 : 0) {
      last = sent;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(sent < 16 * MiB, `the client got ${(sent / MiB).toFixed(1)} MiB of 64 out while the backend read none of it past its first MiB`);
    stopped!.resume();
    await writing;
    const { status, body } = await answer;
    assert.equal(status, 200, body);
    assert.deepEqual(JSON.parse(body), { bytes: OFFERED });
  } finally {
    client.close();
    await running.close();
    backend.close();
  }
});
