// SPEC §13 limits and defaults on the real server: the default options, and what a client that is too slow,
// sends oversized headers or no HTTP at all gets back (node's own status, as a problem body, §6).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { PETSTORE, serve } from '../helpers.js';

/** Writes `parts` on a raw socket, `gap` ms apart, and resolves with what came back once the server closes. */
function rawExchange(port: number, parts: string[], gap: number): Promise<{ received: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let received = '';
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server did not close the connection in time; received: ${JSON.stringify(received)}`));
    }, 5000);
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', () => undefined); // ECONNRESET/EPIPE once the server closes: expected
    socket.on('close', () => {
      clearTimeout(deadline);
      resolve({ received, ms: Date.now() - started });
    });
    let i = 0;
    const next = (): void => {
      if (i >= parts.length || !socket.writable) return;
      socket.write(parts[i++]!);
      setTimeout(next, gap);
    };
    next();
  });
}

function assertProblem(received: string, status: string, detail: string): void {
  assert.match(received, new RegExp(`^HTTP/1\\.1 ${status}\\r\\n`), received);
  assert.match(received, /\r\ncontent-type: application\/problem\+json\r\n/i);
  assert.match(received, /\r\nconnection: close\r\n/i);
  const body = JSON.parse(received.slice(received.indexOf('\r\n\r\n') + 4)) as { status: number; detail: string };
  assert.equal(body.status, Number(status.slice(0, 3)));
  assert.equal(body.detail, detail);
}

test('the server defaults of SPEC §13 are applied to the real node:http server', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore' }, { env: {} });
  try {
    assert.deepEqual(running.facade.serverOptions, {
      host: '0.0.0.0',
      port: 8080,
      maxBodySize: 1024 * 1024,
      maxItemSize: 256 * 1024,
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
      shutdownTimeout: 10_000,
      workers: 1,
      http2: true,
      compression: true,
      compressionThreshold: 1024,
    });
    const server = running.facade.server!;
    assert.equal(server.headersTimeout, 10_000);
    assert.equal(server.requestTimeout, 30_000);
    assert.equal(server.keepAliveTimeout, 5_000);
  } finally {
    await running.close();
  }
});

test('a request body slower than requestTimeout is a 408 problem, sent when the timeout passes, not up to 30 s later', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', server: { requestTimeout: '300ms' } });
  const port = Number(new URL(running.origin).port);
  try {
    const head = 'POST /api/v3/pet HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n';
    const { received, ms } = await rawExchange(port, [head, 'a', 'b', 'c', 'd'], 50);
    assertProblem(received, '408 Request Timeout', 'The request was not received within the time limit.');
    assert.ok(ms >= 250 && ms < 10_000, `answered after ${ms} ms`);
    assert.equal((await fetch(`${running.origin}/api/v3/user/logout`)).status, 204, 'the server is still healthy');
  } finally {
    await running.close();
  }
});

test('headers slower than headersTimeout are a 408 problem, even while the client keeps sending', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', server: { headersTimeout: '200ms', requestTimeout: '5s' } });
  const port = Number(new URL(running.origin).port);
  try {
    const drip = Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: y\r\n`);
    const { received, ms } = await rawExchange(port, ['GET /api/v3/user/logout HTTP/1.1\r\nHost: x\r\n', ...drip], 25);
    assertProblem(received, '408 Request Timeout', 'The request was not received within the time limit.');
    assert.ok(ms >= 150 && ms < 4500, `answered after ${ms} ms`);
  } finally {
    await running.close();
  }
});

test('oversized headers are a 431 problem; a request that is not HTTP is a 400 problem', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore' });
  const port = Number(new URL(running.origin).port);
  try {
    const big = await rawExchange(port, [`GET /api/v3/user/logout HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`], 0);
    assertProblem(big.received, '431 Request Header Fields Too Large', 'The request headers are too large.');
    const garbage = await rawExchange(port, ['NOT HTTP AT ALL\r\n\r\n'], 0);
    assertProblem(garbage.received, '400 Bad Request', 'The request is not valid HTTP.');
  } finally {
    await running.close();
  }
});
