// Request ids and trace context (issue 12): accepted or made, echoed, in problem bodies and log lines, on the
// exchange, and seen by a real `to: http` backend together with `traceparent`/`tracestate`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger, type Exchange } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A backend that records the headers of every request it receives. */
async function recordingBackend(): Promise<{ origin: string; received: IncomingHttpHeaders[]; server: Server }> {
  const received: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    received.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"from":"backend"}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

test('X-Request-Id: a plain one is kept and echoed; a missing, long or odd one is replaced by a UUID; routes read it as a header', async () => {
  const app = await serve({ specification: PETSTORE, missingOperation: 'mock', routes: { getPetById: (ex: Exchange) => void (ex.body = { seen: ex.header('X-Request-Id') }) } });
  try {
    const kept = await fetch(`${app.origin}/api/v3/pet/1`, { headers: { 'x-request-id': 'req-42.a:b@c/d+e=f~g_h' } });
    assert.equal(kept.headers.get('x-request-id'), 'req-42.a:b@c/d+e=f~g_h');
    assert.deepEqual(await kept.json(), { seen: 'req-42.a:b@c/d+e=f~g_h' });

    for (const sent of [undefined, 'x'.repeat(129), 'has space', 'quote"d', '<script>', 'ünïcode']) {
      const res = await fetch(`${app.origin}/api/v3/pet/1`, { headers: sent === undefined ? {} : { 'x-request-id': sent } });
      const id = res.headers.get('x-request-id')!;
      assert.match(id, UUID, `sent ${sent}`);
      assert.deepEqual(await res.json(), { seen: id }, 'the route sees the id the client is told, not the rejected one');
    }
    const a = (await fetch(`${app.origin}/api/v3/pet/1`)).headers.get('x-request-id');
    const b = (await fetch(`${app.origin}/api/v3/pet/1`)).headers.get('x-request-id');
    assert.notEqual(a, b, 'each request gets its own');
    assert.equal((await fetch(`${app.origin}/api/v3/pet/1`, { headers: { 'x-request-id': 'y'.repeat(128) } })).headers.get('x-request-id'), 'y'.repeat(128), '128 characters are accepted');
  } finally {
    await app.close();
  }
});

test('problem bodies carry the request id as instance: 404, 405, validation 400 and a failed route (logged with the id)', async () => {
  const lines: string[] = [];
  const logger = createLogger('text', (l) => void lines.push(l), (l) => void lines.push(l));
  const app = await serve({
    specification: PETSTORE,
    missingOperation: 'mock',
    restConfiguration: { clientRequestValidation: true },
    routes: {
      getPetById: () => {
        throw new Error('boom');
      },
    },
  }, { logger });
  try {
    const cases: [string, RequestInit, number][] = [
      ['/nowhere', {}, 404],
      ['/api/v3/pet/1', { method: 'PATCH' }, 405],
      ['/api/v3/pet/abc', {}, 400],
      ['/api/v3/pet/1', {}, 500],
    ];
    for (const [path, init, status] of cases) {
      const res = await fetch(`${app.origin}${path}`, { ...init, headers: { 'x-request-id': `case-${status}` } });
      assert.equal(res.status, status);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal(res.headers.get('x-request-id'), `case-${status}`);
      const body = (await res.json()) as { status: number; instance: string; detail: string };
      assert.equal(body.status, status);
      assert.equal(body.instance, `case-${status}`);
    }
    const generated = await fetch(`${app.origin}/nowhere`);
    assert.equal(((await generated.json()) as { instance: string }).instance, generated.headers.get('x-request-id'));
    const failure = lines.filter((l) => l.startsWith('ERROR GET /pet/{petId} (direct:getPetById) failed: '));
    assert.equal(failure.length, 1);
    assert.match(failure[0]!, /boom[\s\S]* requestId=case-500\n$/);
  } finally {
    await app.close();
  }
});

test('to: http forwards X-Request-Id, traceparent and tracestate to a real backend; an invalid traceparent is not passed on', async () => {
  const backend = await recordingBackend();
  const app = await serve({
    specification: PETSTORE,
    missingOperation: 'mock',
    routes: { getPetById: [{ kind: 'to', uri: `${backend.origin}/pets` }] },
  });
  try {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await fetch(`${app.origin}/api/v3/pet/1`, { headers: { 'x-request-id': 'abc-123', traceparent, tracestate: 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7' } });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { from: 'backend' });
    assert.equal(res.headers.get('x-request-id'), 'abc-123');
    assert.equal(backend.received[0]!['x-request-id'], 'abc-123');
    assert.equal(backend.received[0]!.traceparent, traceparent);
    assert.equal(backend.received[0]!.tracestate, 'congo=t61rcWkgMzE,rojo=00f067aa0ba902b7');

    const made = await fetch(`${app.origin}/api/v3/pet/1`);
    assert.equal(backend.received[1]!['x-request-id'], made.headers.get('x-request-id'), 'a generated id reaches the backend too');
    assert.equal(backend.received[1]!.traceparent, undefined, 'no trace context is made up');

    const invalid = [
      '00-00000000000000000000000000000000-00f067aa0ba902b7-01', // all-zero trace id
      '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01', // all-zero parent id
      'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', // version ff
      '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01', // upper case
      '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra', // version 00 has exactly four fields
      'garbage',
    ];
    for (const [i, value] of invalid.entries()) {
      await (await fetch(`${app.origin}/api/v3/pet/1`, { headers: { traceparent: value, tracestate: 'congo=t61rcWkgMzE' } })).arrayBuffer();
      const seen = backend.received[2 + i]!;
      assert.equal(seen.traceparent, undefined, value);
      assert.equal(seen.tracestate, undefined, `${value}: tracestate means nothing without a valid traceparent`);
    }
    const future = '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-more';
    await (await fetch(`${app.origin}/api/v3/pet/1`, { headers: { traceparent: future } })).arrayBuffer();
    assert.equal(backend.received.at(-1)!.traceparent, future, 'a later version may carry more fields');
  } finally {
    await app.close();
    backend.server.close();
  }
});
