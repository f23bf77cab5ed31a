// svc.server.requestTimeout per HTTP/2 stream (lib/http/http2-request-timeout.ts): a stream whose body arrives
// slower than the limit gets 408 problem+json and is closed, while the other streams of the same session are
// served before, during and after it, and the session stays open until its own idle limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import type { Exchange } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';

function get(session: ClientHttp2Session, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path });
    let status = 0;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('end', () => resolve(status)).on('error', reject).resume();
    stream.end();
  });
}

interface Outcome {
  status: number;
  type: string | undefined;
  body: string;
  rstCode: number | undefined;
  ms: number;
}

/** A POST whose body comes one byte every 100 ms and never ends. */
function slowPost(session: ClientHttp2Session, path: string): { stream: ClientHttp2Stream; outcome: Promise<Outcome> } {
  const started = Date.now();
  const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/json' });
  const dripping = setInterval(() => {
    if (stream.writable) stream.write(' ');
  }, 100);
  stream.write('{"name":');
  const outcome = new Promise<Outcome>((resolve) => {
    let status = 0;
    let type: string | undefined;
    let body = '';
    stream.on('response', (h) => {
      status = Number(h[':status']);
      type = h['content-type'] as string | undefined;
    });
    stream.setEncoding('utf8').on('data', (d: string) => (body += d));
    stream.on('error', () => undefined);
    stream.on('close', () => {
      clearInterval(dripping);
      resolve({ status, type, body, rstCode: stream.rstCode, ms: Date.now() - started });
    });
  });
  return { stream, outcome };
}

test('HTTP/2: a stream whose body is slower than svc.server.requestTimeout gets 408 problem and is closed; the session\'s other streams are served', { timeout: 30_000 }, async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'mock',
    server: { requestTimeout: '1s', keepAliveTimeout: '500ms' },
    routes: {
      addPet: (ex: Exchange) => {
        ex.message.headers.set('content-type', 'application/json');
        ex.body = { id: 1, name: 'read', photoUrls: [] };
      },
    },
  });
  const session = connect(running.origin);
  try {
    const slow = slowPost(session, '/api/v3/pet');
    // Served while the slow body drips.
    assert.equal(await get(session, '/api/v3/pet/1'), 200);
    const outcome = await slow.outcome;
    assert.equal(outcome.status, 408, outcome.body);
    assert.equal(outcome.type, 'application/problem+json');
    assert.equal(JSON.parse(outcome.body).code, 'SVC_REQUEST_TIMEOUT');
    // Closed by the facade once answered (the client is told to stop sending), not left half open.
    assert.equal(outcome.rstCode, 0);
    // A timer never fires early: the limit is at least the configured second.
    assert.ok(outcome.ms >= 900, `answered after ${outcome.ms} ms`);
    assert.equal(session.closed || session.destroyed, false, 'the session stays open');
    assert.equal(await get(session, '/api/v3/pet/2'), 200);

    // A body that arrives in time is not cut, even when it takes several writes.
    const inTime = await new Promise<number>((resolve, reject) => {
      const stream = session.request({ ':method': 'POST', ':path': '/api/v3/pet', 'content-type': 'application/json' });
      stream.on('response', (h) => resolve(Number(h[':status']))).on('error', reject).resume();
      stream.write('{"name":"a",');
      setTimeout(() => stream.end('"photoUrls":[]}'), 200);
    });
    assert.equal(inTime, 200);

    // The session's own idle limit (max of keepAliveTimeout and headersTimeout, here 1 s) still closes it
    // once no stream is left; the test's timeout is the ceiling.
    await new Promise((resolve) => (session.closed ? resolve(undefined) : session.once('close', resolve)));
    assert.ok(session.closed || session.destroyed);
  } finally {
    session.destroy();
    await running.close();
  }
});

test('HTTP/2: a body the requestTimeout cut off never reaches the route, though what arrived parses whole', { timeout: 30_000 }, async () => {
  const received: unknown[] = [];
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    server: { requestTimeout: '300ms' },
    routes: {
      addPet: (ex: Exchange) => {
        received.push(ex.body);
        ex.message.headers.set('content-type', 'application/json');
        ex.body = { id: 1, name: 'read', photoUrls: [] };
      },
    },
  });
  const session = connect(running.origin);
  try {
    // A whole JSON document, but no END_STREAM: the facade answers 408 and closes the stream itself.
    const stream = session.request({ ':method': 'POST', ':path': '/api/v3/pet', 'content-type': 'application/json' }, { endStream: false });
    let status = 0;
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('error', () => undefined).resume();
    stream.write('{"name":"rex","photoUrls":[]}');
    await new Promise((resolve) => stream.on('close', resolve));
    assert.equal(status, 408);
    // A later stream of the session is answered after the cut one was settled, whichever way.
    assert.equal(await get(session, '/api/v3/pet/1'), 204); // no route: answered empty (missingOperation: ignore)
    assert.deepEqual(received, [], 'the route never saw the cut body');
  } finally {
    session.destroy();
    await running.close();
  }
});
