// HTTP/2 requests carrying a connection-specific field (RFC 9113 §8.2.2: Transfer-Encoding, Connection,
// Keep-Alive, Upgrade, Proxy-Connection, TE other than `trailers`) are malformed. Node's client refuses to send
// them, so this client writes the frames itself: the connection preface, SETTINGS, and HEADERS blocks in
// HPACK's plainest form (every field a literal without indexing, no Huffman). The backend is a raw socket
// server recording every byte; it must receive only the well-formed request sent after them on the same session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as h2connect } from 'node:http2';
import { connect } from 'node:net';
import { PETSTORE, serve } from '../helpers.js';
import { until } from './raw-client.js';
import { rawBackend } from './raw-peers.js';
import { END_HEADERS, END_STREAM, frame, frames, headerBlock, PREFACE, TYPE } from './raw-h2.js';

const PROTOCOL_ERROR = 1;

/** A POST /api/v3/pet on `stream` with `extra` fields, its body in one DATA frame ending the stream. */
function post(stream: number, marker: string, extra: [string, string][]): Buffer {
  const body = JSON.stringify({ name: marker, photoUrls: [] });
  const fields: [string, string][] = [[':method', 'POST'], [':scheme', 'http'], [':path', '/api/v3/pet'], [':authority', '127.0.0.1'], ['content-type', 'application/json'], ['x-marker', marker], ...extra];
  return Buffer.concat([frame(TYPE.HEADERS, END_HEADERS, stream, headerBlock(fields)), frame(TYPE.DATA, END_STREAM, stream, Buffer.from(body))]);
}

const MALFORMED: [string, [string, string][]][] = [
  ['transfer-encoding', [['transfer-encoding', 'chunked']]],
  ['connection', [['connection', 'keep-alive']]],
  ['keep-alive', [['keep-alive', 'timeout=5']]],
  ['upgrade', [['upgrade', 'websocket']]],
  ['proxy-connection', [['proxy-connection', 'keep-alive']]],
  ['te other than trailers', [['te', 'gzip']]],
];

test('an HTTP/2 request carrying transfer-encoding, connection or another connection-specific field is reset with PROTOCOL_ERROR and never reaches the backend; the session and the facade go on', async () => {
  const backend = await rawBackend(() => ({ status: 200, lines: ['Content-Type: application/json'], body: '{"id":1,"name":"ok","photoUrls":[]}' }));
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { addPet: [{ kind: 'to', uri: `${backend.origin}/pets` }] } });
  const socket = connect(Number(new URL(running.origin).port), '127.0.0.1');
  socket.on('error', () => undefined);
  const seen = frames(socket);
  try {
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(Buffer.concat([PREFACE, frame(TYPE.SETTINGS, 0, 0)]));
    const streams = MALFORMED.map((_, i) => 1 + 2 * i);
    socket.write(Buffer.concat(MALFORMED.map(([name, extra], i) => post(streams[i]!, `bad-${name}`, extra))));
    // Then a well-formed one on the same session.
    const good = 1 + 2 * MALFORMED.length;
    socket.write(post(good, 'good', []));
    await until('the well-formed stream is answered in full', () => seen.some((f) => f.stream === good && f.type === TYPE.DATA && (f.flags & END_STREAM) !== 0));
    for (const [i, [name]] of MALFORMED.entries()) {
      const reset = seen.find((f) => f.stream === streams[i] && f.type === TYPE.RST_STREAM);
      assert.ok(reset, `${name}: the stream is reset`);
      assert.equal(reset.payload.readUInt32BE(0), PROTOCOL_ERROR, name);
      assert.equal(seen.some((f) => f.stream === streams[i] && f.type === TYPE.HEADERS), false, `${name}: no answer`);
    }
    assert.equal(seen.some((f) => f.type === TYPE.GOAWAY), false, 'the session stays open');
    // The backend got the well-formed request and nothing of the others, byte for byte.
    assert.equal(backend.received.length, 1);
    assert.equal(backend.received[0]!.field('x-marker'), 'good');
    const bytes = backend.connections.map((c) => c.bytes).join('');
    assert.doesNotMatch(bytes, /bad-/);
    assert.doesNotMatch(bytes, /transfer-encoding/i);

    // And another client, on a new connection, is served.
    const other = h2connect(running.origin);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const stream = other.request({ ':method': 'POST', ':path': '/api/v3/pet', 'content-type': 'application/json' });
        stream.on('response', (h) => resolve(Number(h[':status']))).resume();
        stream.on('error', reject);
        stream.end(JSON.stringify({ name: 'later', photoUrls: [] }));
      });
      assert.equal(status, 200);
    } finally {
      other.close();
    }
    assert.equal(backend.received.length, 2);
  } finally {
    socket.destroy();
    await running.close();
    await backend.close();
  }
});
