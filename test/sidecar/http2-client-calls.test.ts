// Backend calls of HTTP/2 clients: each stream's call is its own. A stream the client resets aborts its call
// (the backend sees its connection closed), and a stream that ends never aborts the calls of other streams of
// the same session still waiting for their backend.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http2 from 'node:http2';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { http2Answer, serve, tempDir } from '../helpers.js';
import { signal, within, type Signal } from './backends.js';

const CONTRACT = `openapi: 3.0.3
info: { title: h2 calls, version: '1' }
paths:
  /items/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get:
      operationId: getItem
      responses:
        '200': { description: ok, content: { text/plain: { schema: { type: string } } } }
`;

/** A raw backend that answers a request for /items/<id> only when the test calls answer(id). */
async function heldBackend(): Promise<{ origin: string; arrived: (id: string) => Promise<void>; answer: (id: string) => void; closed: (id: string) => Promise<void>; close: () => void }> {
  const sockets = new Map<string, Socket>();
  const arrivals = new Map<string, Signal>();
  const closings = new Map<string, Signal>();
  const get = (map: Map<string, Signal>, id: string): Signal => map.get(id) ?? (map.set(id, signal()), map.get(id)!);
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const match = /^GET \/items\/(\w+) /.exec(text);
      if (match === null || !text.includes('\r\n\r\n')) return;
      text = '';
      const id = match[1]!;
      sockets.set(id, socket);
      socket.once('close', () => get(closings, id).fire());
      get(arrivals, id).fire();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrived: (id) => get(arrivals, id).fired,
    answer: (id) => void sockets.get(id)!.write(`HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${id.length}\r\n\r\n${id}`),
    closed: (id) => get(closings, id).fired,
    close: () => {
      for (const socket of sockets.values()) socket.destroy();
      server.close();
    },
  };
}

function get(session: http2.ClientHttp2Session, id: string): { stream: http2.ClientHttp2Stream; answer: Promise<{ status: number; body: string }> } {
  const stream = session.request({ ':path': `/items/${id}` });
  return { stream, answer: http2Answer(stream).then(({ status, body }) => ({ status, body })) };
}

type HeldBackend = Awaited<ReturnType<typeof heldBackend>>;

/** A facade forwarding getItem to a held backend, and one HTTP/2 session to it, for `run`. */
async function onOneSession(run: (session: http2.ClientHttp2Session, backend: HeldBackend) => Promise<void>): Promise<void> {
  const backend = await heldBackend();
  const specification = join(tempDir({ 'openapi.yaml': CONTRACT }), 'openapi.yaml');
  const running = await serve({ specification, backend: { retries: 0 }, routes: { getItem: [{ kind: 'to', uri: `${backend.origin}?forwardPath=true` }] } });
  const session = http2.connect(running.origin);
  try {
    await run(session, backend);
  } finally {
    session.destroy();
    await running.close();
    backend.close();
  }
}

test('HTTP/2: a stream that ends does not abort the backend calls of the other streams of its session', () =>
  onOneSession(async (session, backend) => {
    const first = get(session, 'first');
    await within(backend.arrived('first'), 'the first call');
    const second = get(session, 'second');
    await within(backend.arrived('second'), 'the second call');
    backend.answer('first');
    assert.deepEqual(await within(first.answer, 'the first answer'), { status: 200, body: 'first' });
    // The first stream has closed; the second's call must still be there to answer.
    await new Promise((r) => setImmediate(r));
    backend.answer('second');
    assert.deepEqual(await within(second.answer, 'the second answer'), { status: 200, body: 'second' });
  }));

test('HTTP/2: a stream the client resets aborts its own backend call, and only its own', () =>
  onOneSession(async (session, backend) => {
    const kept = get(session, 'kept');
    await within(backend.arrived('kept'), 'the kept call');
    const cut = get(session, 'cut');
    cut.answer.catch(() => undefined);
    await within(backend.arrived('cut'), 'the call to cut');
    cut.stream.close(http2.constants.NGHTTP2_CANCEL);
    await within(backend.closed('cut'), 'the reset stream\'s backend connection closed');
    backend.answer('kept');
    assert.deepEqual(await within(kept.answer, 'the kept answer'), { status: 200, body: 'kept' });
  }));
