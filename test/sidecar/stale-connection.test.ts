// The keep-alive race: a backend closes a pooled connection just as a request is sent on it, without
// answering. An idempotent request whose body is at hand is sent once more on a new connection; a POST never
// is (the backend may have acted on it), and neither is a request whose connection was new (the backend
// refused that request itself, not an idle connection).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';
import { PETSTORE, serve } from '../helpers.js';
import { httpBackend } from './backends.js';

const PET = '{"id":1,"name":"doggie","photoUrls":[]}';

test('a pooled connection closed by the backend without an answer: GET is sent again on a new connection, POST is a 502 sent once', async () => {
  const seen: [number, string, string][] = [];
  const sockets: Socket[] = [];
  // Every connection answers its first request and closes on its second, unanswered.
  const backend = await httpBackend((req, res) => {
    let connection = sockets.indexOf(req.socket);
    if (connection === -1) connection = sockets.push(req.socket) - 1;
    const nth = seen.filter(([c]) => c === connection).length;
    seen.push([connection, req.method!, req.url!]);
    req.resume();
    if (nth > 0) return void req.socket.destroy();
    res.setHeader('content-type', 'application/json');
    res.end(PET);
  });
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: { getPetById: [{ kind: 'to', uri: `${backend.origin}/pet` }], addPet: [{ kind: 'to', uri: `${backend.origin}/pet` }] },
  });
  try {
    assert.equal((await fetch(`${running.origin}/api/v3/pet/1`)).status, 200);
    const again = await fetch(`${running.origin}/api/v3/pet/2`);
    assert.equal(again.status, 200, 'the GET went again, on a new connection');
    assert.equal(await again.text(), PET);
    assert.deepEqual(seen, [
      [0, 'GET', '/pet'],
      [0, 'GET', '/pet'],
      [1, 'GET', '/pet'],
    ]);
    // One more GET, answered on a connection of its own (undici reconnects the pool's first slot), and the
    // POST after it on that same connection, which the backend closes.
    assert.equal((await fetch(`${running.origin}/api/v3/pet/3`)).status, 200);
    const post = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: PET });
    assert.equal(post.status, 502);
    const posts = seen.filter(([, method]) => method === 'POST');
    assert.equal(posts.length, 1, 'the POST was sent once');
    const [connection] = posts[0]!;
    assert.ok(seen.filter(([c]) => c === connection).length === 2, `it went on a pooled connection that had answered a GET: ${JSON.stringify(seen)}`);
    assert.match(running.logger.lines.filter((l) => l.startsWith('ERROR')).join('\n'), /SVC_BACKEND_FAILED: .* Caused by: ECONNRESET the backend closed the connection/);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('a new connection closed by the backend without an answer is a 502 for a GET too: sent once with retries=0, three times with the default retries (docs/sidecar.md#retries-and-time-limits)', async () => {
  let requests = 0;
  const backend = await httpBackend((req) => {
    requests++;
    req.socket.destroy();
  });
  try {
    for (const [backendOptions, expected] of [[{ retries: 0 }, 1], [{}, 3]] as const) {
      requests = 0;
      const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', backend: backendOptions, routes: { getPetById: [{ kind: 'to', uri: `${backend.origin}/pet` }] } });
      try {
        assert.equal((await fetch(`${running.origin}/api/v3/pet/1`)).status, 502);
        assert.equal(requests, expected);
      } finally {
        await running.close();
      }
    }
  } finally {
    await backend.close();
  }
});
