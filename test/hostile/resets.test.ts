// Clients that reset their connection at every point of an exchange (issue 21, item 1), on the main port and
// on the management port: the process lives on, answers, and every socket it opened is closed again.
// A reset the facade does not handle is an uncaught exception that ends this very test process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Errors, type Exchange } from '../../lib/index.js';
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
  const answered = firstBytes(socket);
  socket.write(bytes);
  if (when === 'after-answer') await answered;
  else await delay(5);
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

test('an Upgrade request is refused with a 400 problem and the connection closed, pipelined bytes behind it unanswered', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes, observe: { port: 0, host: '127.0.0.1' } });
  try {
    for (const port of [Number(new URL(running.origin).port), running.facade.managementAddress!.port]) {
      const socket = await rawSocket(port);
      // A second request pipelined in the same packet: node would drop it silently after an upgrade request it serves.
      socket.write('GET /api/v3/user/logout HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\nGET /api/v3/user/logout HTTP/1.1\r\nHost: x\r\n\r\n');
      await closedByServer(socket, 3000);
      const { statusLine, head, body } = firstAnswer(socket.received());
      assert.equal(statusLine, 'HTTP/1.1 400 Bad Request');
      assert.match(head, /\r\nConnection: close(\r\n|$)/);
      assert.match(head, /\r\nContent-Type: application\/problem\+json(\r\n|$)/);
      assert.deepEqual(JSON.parse(body), { type: 'about:blank', title: 'Bad Request', status: 400, detail: Errors.UPGRADE_REFUSED.message });
      assert.equal(socket.received().split('HTTP/1.1 ').length, 2, 'one answer, and the connection closed');
    }
    // `Upgrade` without `Connection: upgrade` asks for nothing: an ordinary request (the field is hop-by-hop).
    const plain = await rawRequest(running.origin, '/api/v3/user/logout', { headers: { upgrade: 'h2c', connection: 'close' } });
    assert.equal(plain.status, 204);
  } finally {
    await running.close();
  }
});
