// Clients that reset their connection at every point of an exchange (issue 21, item 1), on the main port and
// on the management port: the process lives on, answers, and every socket it opened is closed again.
// A reset the facade does not handle is an uncaught exception that ends this very test process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Exchange } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';
import { closedByServer, firstAnswer, firstBytes, openFds, rawSocket, until } from './raw-client.js';

const delay = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** An answer so large that it is still being written when the client resets. */
const BIG_PET = Buffer.from(`{"id":7,"name":"${'x'.repeat(16 * 1024 * 1024)}"}`);
const routes = {
  getInventory: (ex: Exchange) => void (ex.message.body = { available: 1 }),
  getPetById: (ex: Exchange) => void (ex.message.body = BIG_PET),
};

/** The requests each port gets, cut off by a reset: `answered` says whether the server answers before it. */
function hostileRequests(path: string): { name: string; bytes: string; answered: boolean }[] {
  return [
    { name: 'CONNECT', bytes: 'CONNECT a:1 HTTP/1.1\r\nHost: a:1\r\n\r\n', answered: true },
    { name: 'Upgrade', bytes: `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`, answered: true },
    { name: 'malformed head', bytes: `GET ${path} HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n`, answered: true },
    { name: 'partial head', bytes: `GET ${path} HTTP/1.1\r\nHost: x\r\nX-Par`, answered: false },
    { name: 'mid-body', bytes: `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":"re`, answered: false },
  ];
}

/** Sends `bytes`, then resets: a few ms later, or once the first answer bytes arrived. */
async function sendThenReset(port: number, bytes: string, when: 'soon' | 'after-answer'): Promise<void> {
  const socket = await rawSocket(port);
  const answered = when === 'after-answer' ? firstBytes(socket) : undefined;
  socket.write(bytes);
  await (answered ?? delay(5));
  socket.resetAndDestroy();
}

/** Both ports still answer, on fresh connections. */
async function assertServing(origin: string, management: string): Promise<void> {
  const close = { headers: { connection: 'close' } };
  assert.equal((await rawRequest(origin, '/api/v3/store/inventory', close)).status, 200, 'the main port answers');
  assert.equal((await rawRequest(management, '/observe/health/live', close)).status, 200, 'the management port answers');
}

test('resets after CONNECT, Upgrade, a malformed or partial head, mid-body, and mid-answer on both ports: the process answers on, every socket is closed', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes, observe: { port: 0, host: '127.0.0.1' } });
  const origin = running.origin;
  const management = `http://127.0.0.1:${running.facade.managementAddress!.port}`;
  try {
    await assertServing(origin, management);
    const baseline = openFds('self');
    for (const [base, path] of [[origin, '/api/v3/pet'], [management, '/observe/health/live']] as const) {
      const port = Number(new URL(base).port);
      for (const { name, bytes, answered } of hostileRequests(path)) {
        await sendThenReset(port, bytes, 'soon');
        if (answered) await sendThenReset(port, bytes, 'after-answer');
        await assertServing(origin, management).catch((err: Error) => assert.fail(`after ${name} then a reset on ${base}: ${err.message}`));
      }
    }
    // Mid-answer: the client reads the first bytes of a 16 MB answer, stops reading, and resets.
    for (const [port, path] of [[Number(new URL(origin).port), '/api/v3/pet/7'], [running.facade.managementAddress!.port, '/observe/metrics']] as const) {
      const socket = await rawSocket(port);
      const started = firstBytes(socket);
      socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAccept: application/json, text/plain\r\n\r\n`);
      await started;
      socket.pause();
      await delay(50);
      socket.resetAndDestroy();
    }
    await assertServing(origin, management);
    // Every server-side socket is gone again (a lingering one is destroyed within a second).
    await until(`open fds back to ${baseline} (now ${openFds('self')})`, () => openFds('self') <= baseline, 5000);
  } finally {
    await running.close();
  }
});

test('an Upgrade request (WebSocket, h2c) is served as plain HTTP/1.1 and the connection closed after it: nothing pipelined behind it is served', async () => {
  const seen: string[] = [];
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: { ...routes, getOrderById: (ex: Exchange) => void seen.push(String(ex.header('orderId'))) },
    observe: { port: 0, host: '127.0.0.1' },
  });
  const order = (id: number, extra = ''): string => `GET /api/v3/store/order/${id} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`;
  try {
    const port = Number(new URL(running.origin).port);
    // As curl --http2 and Java's HttpClient ask on http://: an answer in HTTP/1.1, never a 101.
    const h2c = await rawSocket(port);
    h2c.write(order(1, 'Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQCAAAAAAIAAAAA\r\n'));
    await closedByServer(h2c, 3000);
    assert.match(firstAnswer(h2c.received()).statusLine, /^HTTP\/1\.1 20[04] /);
    assert.match(firstAnswer(h2c.received()).head, /\r\nconnection: close(\r\n|$)/i);
    // A request pipelined in the same packet (node's parser would drop it) and one in a later packet (node
    // would serve it on a stream the client no longer reads in step): neither is served, the connection closes.
    const ws = await rawSocket(port);
    ws.write(order(2, 'Connection: Upgrade\r\nUpgrade: websocket\r\n') + order(3));
    await delay(20);
    ws.write(order(4));
    await closedByServer(ws, 3000);
    assert.equal(ws.received().split('HTTP/1.1 ').length, 2, `one answer: ${ws.received()}`);
    assert.deepEqual(seen, ['1', '2'], 'only the upgrade requests reached the route');
    // The management port is the same server.
    const management = await rawSocket(running.facade.managementAddress!.port);
    management.write('GET /observe/health/live HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nGET /observe/health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    await closedByServer(management, 3000);
    assert.equal(management.received().split('HTTP/1.1 200 ').length, 2, management.received());
    // `Upgrade` without `Connection: upgrade` asks for nothing: an ordinary request on a kept-alive connection.
    const plain = await rawSocket(port);
    plain.write(order(5, 'Upgrade: h2c\r\n') + order(6));
    await until('two answers', () => plain.received().split('HTTP/1.1 ').length === 3);
    assert.doesNotMatch(plain.received(), /connection: close/i);
    plain.destroy();
    assert.deepEqual(seen, ['1', '2', '5', '6']);
  } finally {
    await running.close();
  }
});
