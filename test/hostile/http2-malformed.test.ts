// HTTP/2 requests carrying a connection-specific field (RFC 9113 §8.2.2: Transfer-Encoding, Connection,
// Keep-Alive, Upgrade, Proxy-Connection, TE other than `trailers`) are malformed. Node's client refuses to send
// them, so this client writes the frames itself: the connection preface, SETTINGS, and HEADERS blocks in
// HPACK's plainest form (every field a literal without indexing, no Huffman). The backend is a raw socket
// server recording every byte; it must receive only the well-formed request sent after them on the same session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as h2connect } from 'node:http2';
import { connect, type Socket } from 'node:net';
import { PETSTORE, serve } from '../helpers.js';
import { rawBackend } from './raw-peers.js';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
const TYPE = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, GOAWAY: 7 } as const;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;
const ACK = 0x1;
const PROTOCOL_ERROR = 1;

function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** A header block of literal fields without indexing, new names, no Huffman (RFC 7541 §6.2.2); every string under 127 bytes. */
function headerBlock(fields: [string, string][]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    assert.ok(name.length < 127 && value.length < 127);
    parts.push(Buffer.from([0x00, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value));
  }
  return Buffer.concat(parts);
}

/** A POST /api/v3/pet on `stream` with `extra` fields, its body in one DATA frame ending the stream. */
function post(stream: number, marker: string, extra: [string, string][]): Buffer {
  const body = JSON.stringify({ name: marker, photoUrls: [] });
  const fields: [string, string][] = [[':method', 'POST'], [':scheme', 'http'], [':path', '/api/v3/pet'], [':authority', '127.0.0.1'], ['content-type', 'application/json'], ['x-marker', marker], ...extra];
  return Buffer.concat([frame(TYPE.HEADERS, END_HEADERS, stream, headerBlock(fields)), frame(TYPE.DATA, END_STREAM, stream, Buffer.from(body))]);
}

interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
}

/** Reads the server's frames; acknowledges its SETTINGS. */
function frames(socket: Socket): Frame[] {
  const seen: Frame[] = [];
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 9) {
      const length = pending.readUIntBE(0, 3);
      if (pending.length < 9 + length) break;
      const f = { type: pending[3]!, flags: pending[4]!, stream: pending.readUInt32BE(5) & 0x7fffffff, payload: pending.subarray(9, 9 + length) };
      pending = pending.subarray(9 + length);
      seen.push(f);
      if (f.type === TYPE.SETTINGS && (f.flags & ACK) === 0) socket.write(frame(TYPE.SETTINGS, ACK, 0));
    }
  });
  return seen;
}

async function until(check: () => boolean, what: string): Promise<void> {
  // A ceiling against a hang, not the assertion: the loop ends as soon as the condition holds.
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.ok(check(), what);
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
    await until(() => seen.some((f) => f.stream === good && f.type === TYPE.DATA && (f.flags & END_STREAM) !== 0), 'the well-formed stream is answered in full');
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
