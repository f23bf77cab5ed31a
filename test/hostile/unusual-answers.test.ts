// Backends that answer unusually but lawfully (RFC 9110 §15.2: a client skips 1xx it did not ask for; §8.6:
// a 304 may say the length of the representation it does not carry; no body after HEAD, 204 or 304) and
// ones that answer unlawfully (a status outside 100–599): the final answer reaches the client, each request
// is sent once, and a status no HTTP client knows is the backend's fault (502), its cause in the log line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PETSTORE, serve, type Running } from '../helpers.js';
import { rawBackend, rawGet, type RawBackend } from './raw-peers.js';

/** getInventory streams the backend's answer (the route's last step); getPetById reads it whole (a step follows). */
function facade(backend: RawBackend): Promise<Running> {
  return serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getInventory: [{ kind: 'to', uri: `${backend.origin}/streamed` }],
      getPetById: [{ kind: 'to', uri: `${backend.origin}/whole` }, { kind: 'setHeader', name: 'X-After', expression: { constant: 'yes' } }],
    },
  });
}

const PATHS = { streamed: '/api/v3/store/inventory', whole: '/api/v3/pet/1' };

test('unsolicited 1xx before the final answer are skipped: the final answer reaches the client, the request is sent once', async () => {
  let raw = '';
  const backend = await rawBackend(() => ({ raw }));
  const running = await facade(backend);
  try {
    const interim = ['HTTP/1.1 100 Continue\r\n\r\n', 'HTTP/1.1 102 Processing\r\n\r\n', 'HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n'];
    for (const before of interim) {
      for (const [mode, path] of Object.entries(PATHS)) {
        raw = `${before}HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{"a":"b"}`;
        const sent = backend.received.length;
        const answer = await rawGet(running.origin, path);
        assert.equal(answer.status, 200, `${mode} after ${JSON.stringify(before)}: ${answer.head}\n${answer.body}`);
        assert.equal(answer.body, '{"a":"b"}');
        assert.equal(backend.received.length, sent + 1, 'sent once');
      }
    }
  } finally {
    await running.close();
    await backend.close();
  }
});

test('304 and 204 carrying Content-Length without a body, and the answer to HEAD, pass with their fields; the connection carries the next answer', async () => {
  let raw = '';
  const backend = await rawBackend(() => ({ raw }));
  const running = await facade(backend);
  const next = 'HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext';
  try {
    for (const [mode, path] of Object.entries(PATHS)) {
      raw = 'HTTP/1.1 304 Not Modified\r\nETag: "v1"\r\nContent-Length: 1234\r\n\r\n';
      const notModified = await rawGet(running.origin, path, ['If-None-Match: "v1"']);
      assert.equal(notModified.status, 304, `${mode}: ${notModified.head}`);
      assert.equal(notModified.fields.find(([n]) => n === 'etag')?.[1], '"v1"');
      assert.equal(notModified.body, '');
      raw = 'HTTP/1.1 204 No Content\r\nX-Done: yes\r\nContent-Length: 50\r\n\r\n';
      const noContent = await rawGet(running.origin, path);
      assert.equal(noContent.status, 204, `${mode}: ${noContent.head}`);
      assert.equal(noContent.fields.find(([n]) => n === 'x-done')?.[1], 'yes');
      assert.equal(noContent.fields.find(([n]) => n === 'content-length'), undefined, 'a 204 never says a length (RFC 9110 §8.6)');
      assert.equal(noContent.body, '');
      raw = 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n';
      const head = await rawGet(running.origin, path, [], 'HEAD');
      assert.equal(head.status, 200, `${mode} HEAD: ${head.head}`);
      assert.equal(head.body, '');
      raw = next;
      const after = await rawGet(running.origin, path);
      assert.equal(after.body, 'next', `${mode}: the backend connection was read in step`);
    }
    // undici closes the connection after a 204/304 whose Content-Length it takes for a body still to come; the next answer comes on a new one.
    assert.equal(backend.received.length, 8, 'each request sent once');
    assert.deepEqual(running.logger.lines.filter((l) => l.startsWith('ERROR')), []);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('a status outside 100–599 is the backend\'s fault: 502 problem, the status in the log line', async () => {
  let raw = '';
  const backend = await rawBackend(() => ({ raw }));
  const running = await facade(backend);
  try {
    for (const status of [600, 999]) {
      for (const [mode, path] of Object.entries(PATHS)) {
        raw = `HTTP/1.1 ${status} Odd\r\nContent-Length: 2\r\n\r\nno`;
        const before = running.logger.lines.length;
        const answer = await rawGet(running.origin, path);
        assert.equal(answer.status, 502, `${status} ${mode}: ${answer.head}`);
        assert.match(answer.head, /content-type: application\/problem\+json/i);
        const logged = running.logger.lines.slice(before).join('\n');
        assert.match(logged, new RegExp(`status ${status}`), logged);
      }
    }
  } finally {
    await running.close();
    await backend.close();
  }
});
