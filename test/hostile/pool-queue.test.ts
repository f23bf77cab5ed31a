// Issue 21 item 12: a client uploading slowly holds a pooled backend connection for as long as it likes; with
// every connection of the pool (svc.backend.maxConnections) so held, later requests used to wait without
// limit. They now wait at most svc.backend.queueTimeout, then get a 503 with Retry-After.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forwardingFacade, head, SMUGGLED } from './forwarding-facade.js';
import { closedByServer, firstAnswer, rawSocket, until } from './raw-client.js';
import { rawBackend, rawGet } from './raw-peers.js';

test('with the one pooled connection held by a slow upload, a request waits queueTimeout then gets 503 with Retry-After; the pool serves again once it is free', async () => {
  const backend = await rawBackend();
  const running = await forwardingFacade(backend.origin, { backend: { maxConnections: 1, queueTimeout: '300ms' } });
  try {
    const slow = await rawSocket(Number(new URL(running.origin).port));
    slow.write(head('POST', [`Content-Length: ${SMUGGLED.length}`]) + SMUGGLED.slice(0, 10));
    await until('the slow upload holds the pooled connection', () => backend.connections.length === 1 && backend.connections[0]!.bytes !== '');

    const started = Date.now();
    const queued = await rawGet(running.origin, '/items/2');
    const waited = Date.now() - started;
    assert.equal(queued.status, 503);
    assert.ok(waited >= 290 && waited < 3000, `waited ${waited} ms`);
    assert.deepEqual(queued.fields.filter(([name]) => name === 'retry-after'), [['retry-after', '1']]);
    assert.equal(JSON.parse(queued.body).detail, 'The backend is busy: no connection to it became free within 300 ms. Retry later.');
    assert.match(running.logger.lines.find((l) => l.startsWith('ERROR')) ?? '', new RegExp(`SVC_BACKEND_BUSY: .* Backend: ${backend.origin}\\. Caused by: no pooled connection became free within 300 ms$`));

    slow.write(SMUGGLED.slice(10));
    await closedByServer(slow, 5000);
    assert.equal(firstAnswer(slow.received()).statusLine, 'HTTP/1.1 200 OK', 'the slow upload completes');
    assert.equal((await rawGet(running.origin, '/items/3')).status, 200, 'the request given up on did not keep the connection');
    assert.deepEqual(
      backend.received.map((r) => [r.connection, r.method, r.body]),
      [
        [0, 'POST', SMUGGLED],
        [0, 'GET', ''],
      ],
      'the queued request never reached the backend',
    );
  } finally {
    await running.close();
    await backend.close();
  }
});

test('svc.backend.queueTimeout and exposeOrigin are checked like every option: a value of the wrong kind fails startup naming it', async () => {
  const backend = await rawBackend();
  try {
    const running = await forwardingFacade(backend.origin, { backend: { queueTimeout: '2s', maxConnections: 4 } });
    await running.close();
    await assert.rejects(forwardingFacade(backend.origin, { backend: { queueTimeout: 'forever' } }), /backend\.queueTimeout has invalid value "forever"/);
    await assert.rejects(forwardingFacade(backend.origin, { backend: { exposeOrigin: 'maybe' } }), /backend\.exposeOrigin has invalid value "maybe"/);
  } finally {
    await backend.close();
  }
});
