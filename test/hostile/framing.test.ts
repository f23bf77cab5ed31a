// Issue 21 items 2 and 3: the framing the facade sends a backend always matches the bytes it sends, whatever
// the method: a GET or HEAD body is refused before anything is sent (a pooled connection is never left with
// a body the backend did not read), and a body still arriving is sent chunked or with its exact length, so
// the backend reads exactly one request with the client's body, never a second request made of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertInStep, chunk, forwardingFacade, head, operationOf, sendInTwo, SMUGGLED } from './forwarding-facade.js';
import { closedByServer, firstAnswer, rawSocket } from './raw-client.js';
import { rawBackend, rawGet, rawSend } from './raw-peers.js';

test('a GET or HEAD with a body is a 400 before anything is sent, with or without validation; Content-Length: 0 passes; the pooled connection stays in step', async () => {
  const backend = await rawBackend();
  try {
    for (const validate of [false, true]) {
      const running = await forwardingFacade(backend.origin, { validate });
      const start = backend.received.length;
      try {
        assert.equal((await rawGet(running.origin, '/items/1')).status, 200, 'the pooled connection is open');
        const hostile: [string, string][] = [
          ['GET', head('GET', [`Content-Length: ${SMUGGLED.length}`]) + SMUGGLED],
          ['GET', head('GET', ['Transfer-Encoding: chunked']) + chunk(SMUGGLED) + '0\r\n\r\n'],
          ['GET', head('GET', ['Transfer-Encoding: chunked']) + '0\r\n\r\n'],
          ['HEAD', head('HEAD', ['Content-Length: 5']) + 'hello'],
          ['HEAD', head('HEAD', ['Transfer-Encoding: chunked']) + chunk('hello') + '0\r\n\r\n'],
        ];
        for (const [method, bytes] of hostile) {
          const answer = await rawSend(running.origin, bytes);
          assert.equal(answer.status, 400, bytes);
          assert.ok(answer.fields.some(([n, v]) => n === 'connection' && v === 'close'), 'the unread body is not read through: the connection closes');
          if (method === 'GET') {
            assert.equal(JSON.parse(answer.body).detail, `A GET request cannot carry a body (RFC 9110 gives it no meaning): send it without Transfer-Encoding and without a Content-Length above 0.`);
          }
        }
        assert.equal(backend.received.length, start + 1, 'the backend saw none of them');
        const empty = await rawSend(running.origin, head('GET', ['Content-Length: 0']));
        assert.equal(empty.status, 200);
        // A POST whose body is a request: had a GET body been left on the connection, the backend would now be out of step.
        const post = await rawSend(running.origin, head('POST', ['Content-Type: text/plain', `Content-Length: ${SMUGGLED.length}`]) + SMUGGLED);
        assert.equal(post.status, 200);
        const seen = backend.received.slice(start);
        assert.deepEqual(
          seen.map((r) => [r.method, r.target, r.field('content-length'), r.field('transfer-encoding'), r.body]),
          [
            ['GET', '/getItem', undefined, undefined, ''],
            ['GET', '/getItem', undefined, undefined, ''],
            ['POST', '/postItem', String(SMUGGLED.length), undefined, SMUGGLED],
          ],
        );
        assert.equal(new Set(seen.map((r) => r.connection)).size, 1, 'all on one pooled connection');
      } finally {
        await running.close();
      }
    }
    assertInStep(backend);
  } finally {
    await backend.close();
  }
});

test('a DELETE, OPTIONS, TRACE, POST or PUT body still arriving reaches the backend as one request with the same body: chunked, or with the client\'s Content-Length', async () => {
  const backend = await rawBackend();
  try {
    const running = await forwardingFacade(backend.origin);
    try {
      for (const method of ['DELETE', 'OPTIONS', 'TRACE', 'POST', 'PUT']) {
        const start = backend.received.length;
        const chunked = await sendInTwo(running, backend, head(method, ['Transfer-Encoding: chunked']) + chunk(SMUGGLED.slice(0, 20)), chunk(SMUGGLED.slice(20)) + '0\r\n\r\n');
        assert.equal(chunked.statusLine, 'HTTP/1.1 200 OK', method);
        const sized = await sendInTwo(running, backend, head(method, [`Content-Length: 0${SMUGGLED.length}`]) + SMUGGLED.slice(0, 20), SMUGGLED.slice(20));
        assert.equal(sized.statusLine, 'HTTP/1.1 200 OK', method);
        assert.deepEqual(
          backend.received.slice(start).map((r) => [r.method, r.target, r.field('transfer-encoding'), r.field('content-length'), r.body]),
          [
            [method, `/${operationOf(method)}`, 'chunked', undefined, SMUGGLED],
            [method, `/${operationOf(method)}`, undefined, String(SMUGGLED.length), SMUGGLED],
          ],
          `${method}: exactly one backend request each, the body intact (the length as a plain number)`,
        );
      }
      assert.equal((await rawGet(running.origin, '/items/1')).status, 200, 'a request after them is answered as itself');
      assert.equal(backend.received.at(-1)!.target, '/getItem');
    } finally {
      await running.close();
    }
    assertInStep(backend);
    assert.equal(backend.connections.length, 1, 'one pooled connection carried them all');
  } finally {
    await backend.close();
  }
});

test('with validation on, a chunked DELETE body is read whole and checked first, then sent once with its length', async () => {
  const backend = await rawBackend();
  try {
    const running = await forwardingFacade(backend.origin, { validate: true });
    const socket = await rawSocket(Number(new URL(running.origin).port));
    try {
      socket.write(head('DELETE', ['Content-Type: text/plain', 'Transfer-Encoding: chunked']) + chunk(SMUGGLED.slice(0, 20)));
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(backend.connections.length, 0, 'nothing is forwarded before the body is whole');
      socket.write(chunk(SMUGGLED.slice(20)) + '0\r\n\r\n');
      await closedByServer(socket, 5000);
      assert.equal(firstAnswer(socket.received()).statusLine, 'HTTP/1.1 200 OK');
      assert.deepEqual(
        backend.received.map((r) => [r.method, r.field('transfer-encoding'), r.field('content-length'), r.body]),
        [['DELETE', undefined, String(SMUGGLED.length), SMUGGLED]],
      );
    } finally {
      socket.destroy();
      await running.close();
    }
    assertInStep(backend);
  } finally {
    await backend.close();
  }
});
