// The HTTP server and the embedding surface (SPEC §1, §13): body limit, graceful stop, handler, middleware.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { createFacade, silentLogger, type Exchange } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

const slowRoutes = {
  getPetById: async (ex: Exchange) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    ex.message.body = { id: ex.message.headers.get('petId'), slow: true };
  },
  addPet: (ex: Exchange) => {
    ex.message.body = { length: String(ex.message.body).length, body: ex.message.body };
  },
};

/**
 * Sends `head` on a raw socket, then keeps writing `chunk` every few ms until the server closes the
 * connection; resolves with everything received and how long the server took to close.
 */
function rawUpload(port: number, head: string, chunk: string | undefined): Promise<{ received: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let timer: NodeJS.Timeout | undefined;
    const deadline = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server left the connection open; received so far: ${received}`));
    }, 5000);
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', () => undefined); // EPIPE/ECONNRESET once the server closes: expected
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(deadline);
      resolve({ received, ms: Date.now() - started });
    });
    socket.write(head);
    if (chunk !== undefined) timer = setInterval(() => socket.writable && socket.write(chunk), 2);
  });
}

test('a body over svc.server.maxBodySize is a 413 problem with Connection: close, and the connection is closed', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: slowRoutes, server: { maxBodySize: 1000 } });
  const port = Number(new URL(running.origin).port);
  try {
    // Content-Length over the limit: refused before the body is read, even though the client stalls.
    const declared = await rawUpload(port, `POST /api/v3/pet HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n${'x'.repeat(100)}`, undefined);
    assert.match(declared.received, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
    assert.match(declared.received, /\r\nconnection: close\r\n/i);
    assert.match(declared.received, /\r\ncontent-type: application\/problem\+json\r\n/i);
    const id = /\r\nx-request-id: ([^\r]+)\r\n/i.exec(declared.received)?.[1];
    assert.ok(declared.received.endsWith(`{"type":"about:blank","title":"Payload Too Large","status":413,"detail":"The request body exceeds the limit of 1000 bytes.","code":"SVC_BODY_TOO_LARGE","instance":"${id}"}`), declared.received);
    // Chunked and endless: refused once the limit is crossed, and the server closes the connection.
    const chunked = await rawUpload(port, 'POST /api/v3/pet HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', `40\r\n${'y'.repeat(64)}\r\n`);
    assert.match(chunked.received, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
    assert.match(chunked.received, /\r\nconnection: close\r\n/i);
    assert.ok(chunked.ms < 20_000, `closed after ${chunked.ms} ms`);
    // fetch with a body far over the limit gets the answer, not a socket error.
    const big = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', body: Buffer.alloc(4 * 1024 * 1024, 97), headers: { 'content-type': 'application/json' } });
    assert.equal(big.status, 413);
    assert.equal(big.headers.get('connection'), 'close');
    // At the limit exactly is fine; the server is still healthy.
    const fits = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', body: 'z'.repeat(1000), headers: { 'content-type': 'text/plain' } });
    assert.equal(fits.status, 200);
    assert.deepEqual(await fits.json(), { length: 1000, body: 'z'.repeat(1000) });
  } finally {
    await running.close();
  }
});

/** Writes `parts` on one raw connection, a few ms apart, and resolves with all it received once the server closes it. */
function rawExchange(port: number, parts: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    const send = (i: number): void => {
      if (i === parts.length) return;
      socket.write(parts[i]!);
      setTimeout(() => send(i + 1), 20);
    };
    send(0);
  });
}

test('a body reaches the route whole however it arrives: with its head, in pieces, pipelined, chunked', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: slowRoutes, server: { maxBodySize: 1000 } });
  const port = Number(new URL(running.origin).port);
  const post = (body: string, close = false): string =>
    `POST /api/v3/pet HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\n${close ? 'Connection: close\r\n' : ''}\r\n${body}`;
  const answers = (received: string): string[] => received.split(/HTTP\/1\.1 /).filter(Boolean).map((r) => `${r.slice(0, 3)} ${r.slice(r.indexOf('\r\n\r\n') + 4)}`);
  try {
    // Head and body in one packet, and two requests pipelined in one packet.
    assert.deepEqual(answers(await rawExchange(port, [post('first') + post('second', true)])), ['200 {"length":5,"body":"first"}', '200 {"length":6,"body":"second"}']);
    // The body after the head, in three writes.
    const spread = await rawExchange(port, ['POST /api/v3/pet HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 9\r\nConnection: close\r\n\r\n', 'abc', 'defghi']);
    assert.deepEqual(answers(spread), ['200 {"length":9,"body":"abcdefghi"}']);
    // Chunked, whole in one packet: two chunks are one body; over the limit it is a 413 that closes.
    const chunkedHead = 'POST /api/v3/pet HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n';
    assert.deepEqual(answers(await rawExchange(port, [`${chunkedHead}3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n${post('x', true)}`])), ['200 {"length":5,"body":"abcde"}', '200 {"length":1,"body":"x"}']);
    const over = await rawExchange(port, [`${chunkedHead}3e8\r\n${'y'.repeat(1000)}\r\n1\r\nz\r\n0\r\n\r\n`]);
    assert.match(over, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
    assert.match(over, /\r\nconnection: close\r\n/i);
  } finally {
    await running.close();
  }
});

test('malformed JSON sent to a route is just a body: the route sees the text, nothing crashes', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: slowRoutes });
  try {
    for (const body of ['{"name": ', '{"__proto__": {"polluted": true}}', '\u0000\u0001', '[1,2']) {
      const res = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      assert.equal(res.status, 200, body);
      assert.deepEqual(await res.json(), { length: body.length, body });
    }
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  } finally {
    await running.close();
  }
});

test('stop(): in-flight requests finish, new connections are refused, idle keep-alive connections do not delay it', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: slowRoutes });
  const agent = new Agent({ keepAlive: true });
  try {
    // An idle keep-alive connection, and a slow request in flight on another one.
    assert.equal((await rawRequest(running.origin, '/api/v3/user/logout', { agent })).status, 204);
    const inFlight = rawRequest(running.origin, '/api/v3/pet/8', { agent });
    // A raw connection with a slow request in flight, that pipelines a second request once stopping began.
    const socket = connect(Number(new URL(running.origin).port), '127.0.0.1');
    let pipelined = '';
    socket.on('data', (d) => (pipelined += d.toString()));
    const socketClosed = new Promise((resolve) => socket.on('close', resolve));
    socket.write('GET /api/v3/pet/9 HTTP/1.1\r\nHost: x\r\n\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    const stopped = running.facade.stop();
    socket.write('GET /api/v3/user/logout HTTP/1.1\r\nHost: x\r\n\r\n');
    await assert.rejects(fetch(`${running.origin}/api/v3/user/logout`), 'no new connections once stopping');
    const res = await inFlight;
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { id: '8', slow: true });
    await socketClosed;
    const both = pipelined;
    assert.match(both, /^HTTP\/1\.1 200 OK\r\n[\s\S]*"slow":true\}HTTP\/1\.1 204 No Content\r\n/);
    assert.match(both.slice(both.indexOf('HTTP/1.1 204')), /\r\nconnection: close\r\n/i, 'a request arriving while stopping is told the connection closes');
    await stopped;
    const took = Date.now() - started;
    assert.ok(took >= 200 && took < 10_000, `stop took ${took} ms`);
  } finally {
    agent.destroy();
    await running.close();
  }
});

test('handler is a plain node:http request listener', async () => {
  const facade = await createFacade({ specification: PETSTORE, missingOperation: 'ignore', routes: slowRoutes }, { logger: silentLogger });
  const server = createServer(facade.handler);
  const origin = await listenOn(server);
  try {
    const res = await fetch(`${origin}/api/v3/pet`, { method: 'POST', body: 'abc', headers: { 'content-type': 'text/plain' } });
    assert.deepEqual(await res.json(), { length: 3, body: 'abc' });
    assert.equal((await fetch(`${origin}/elsewhere`)).status, 404);
    assert.equal(facade.server, undefined, 'the facade did not start a server of its own');
  } finally {
    server.close();
  }
});

test('middleware calls next() for paths outside the contract and serves the contract paths', async () => {
  const facade = await createFacade({ specification: PETSTORE, missingOperation: 'ignore', routes: slowRoutes }, { logger: silentLogger });
  const server = createServer((req, res) => {
    facade.middleware(req, res, (err?: unknown) => {
      res.writeHead(err ? 500 : 200, { 'content-type': 'text/plain', 'x-from': 'app' });
      res.end(`app handled ${req.url}`);
    });
  });
  const origin = await listenOn(server);
  try {
    const outside = await fetch(`${origin}/health`);
    assert.equal(outside.headers.get('x-from'), 'app');
    assert.equal(await outside.text(), 'app handled /health');
    assert.equal(await (await fetch(`${origin}/api/v3/nope`)).text(), 'app handled /api/v3/nope');
    const inside = await fetch(`${origin}/api/v3/pet`, { method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' } });
    assert.equal(inside.headers.get('x-from'), null);
    assert.deepEqual(await inside.json(), { length: 1, body: 'x' });
    const wrongMethod = await fetch(`${origin}/api/v3/pet`, { method: 'DELETE' });
    assert.equal(wrongMethod.status, 405, 'a contract path with another method is still the contract\'s answer');
    assert.equal(wrongMethod.headers.get('allow'), 'POST, PUT');
  } finally {
    server.close();
  }
});

test('listen() reports the chosen port, a taken port is a clear error, operations lists the compiled table', async () => {
  const facade = await createFacade({ specification: PETSTORE, missingOperation: 'ignore' }, { logger: silentLogger });
  const address = await facade.listen(0, '127.0.0.1');
  try {
    assert.ok(address.port > 0);
    const other = await createFacade({ specification: PETSTORE, missingOperation: 'ignore' }, { logger: silentLogger });
    await assert.rejects(other.listen(address.port, '127.0.0.1'), { message: new RegExp(`^Cannot listen on 127\\.0\\.0\\.1:${address.port}: .*EADDRINUSE`) });
    assert.equal(facade.operations.length, 19);
    assert.deepEqual(Object.keys(facade.operations[0]!).sort(), ['disposition', 'endpoint', 'operation', 'path']);
  } finally {
    await facade.stop();
  }
});

function listenOn(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}
