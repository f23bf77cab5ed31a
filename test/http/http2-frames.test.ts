// The frames of an HTTP/2 answer, read off a raw socket: HEADERS, the body's DATA, and END_STREAM on the last
// DATA frame that carries bytes. No empty DATA frame (node's compatibility layer sends one after every body:
// it waits for trailers), and no trailers. The client writes exact bytes: the preface, an empty SETTINGS and
// one HEADERS frame whose header block uses only HPACK literals.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { PETSTORE, serve } from '../helpers.js';

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const HEADERS = 0x1;
const DATA = 0x0;
const SETTINGS = 0x4;
const END_STREAM = 0x1;
const END_HEADERS = 0x4;

function frame(type: number, flags: number, stream: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK literal field without indexing, its name from the static table (RFC 7541 §6.2.2). */
function literal(nameIndex: number, value: string): Buffer {
  return Buffer.concat([Buffer.from([nameIndex, value.length]), Buffer.from(value, 'latin1')]);
}

interface Frame {
  type: number;
  flags: number;
  stream: number;
  length: number;
}

test('an HTTP/2 answer is HEADERS then DATA ending the stream: no empty DATA frame, no trailers', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: { getPetById: [{ kind: 'setBody', expression: { constant: '{"id":1,"name":"doggie","photoUrls":[]}' } }, { kind: 'setHeader', name: 'Content-Type', expression: { constant: 'application/json' } }] },
  });
  const { port } = new URL(running.origin);
  const socket = connect(Number(port), '127.0.0.1');
  try {
    await once(socket, 'connect');
    // :method GET (2), :scheme http (6), :path (4), :authority (1).
    const block = Buffer.concat([literal(2, 'GET'), literal(6, 'http'), literal(4, '/api/v3/pet/1'), literal(1, 'localhost')]);
    socket.write(Buffer.concat([PREFACE, frame(SETTINGS, 0, 0, Buffer.alloc(0)), frame(HEADERS, END_STREAM | END_HEADERS, 1, block)]));
    const frames: Frame[] = [];
    let pending = Buffer.alloc(0);
    const ended = new Promise<void>((resolve, reject) => {
      socket.on('error', reject);
      socket.on('close', () => reject(new Error(`closed before the stream ended; frames: ${JSON.stringify(frames)}`)));
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 9) {
          const length = pending.readUIntBE(0, 3);
          if (pending.length < 9 + length) return;
          const f = { type: pending[3]!, flags: pending[4]!, stream: pending.readUInt32BE(5) & 0x7fffffff, length };
          pending = pending.subarray(9 + length);
          if (f.stream === 1) frames.push(f);
          if (f.stream === 1 && f.flags & END_STREAM) return resolve();
        }
      });
    });
    let timer: NodeJS.Timeout | undefined;
    // A ceiling against a hang, not the assertion.
    await Promise.race([ended, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('the stream never ended')), 10_000)))]).finally(() => clearTimeout(timer));
    assert.equal(frames[0]!.type, HEADERS, 'the answer starts with its HEADERS');
    const data = frames.slice(1);
    assert.ok(data.length > 0 && data.every((f) => f.type === DATA), `then DATA only: ${JSON.stringify(frames)}`);
    assert.ok(data.every((f) => f.length > 0), `no empty DATA frame: ${JSON.stringify(frames)}`);
    assert.equal(data.reduce((n, f) => n + f.length, 0), '{"id":1,"name":"doggie","photoUrls":[]}'.length);
    assert.ok(data.at(-1)!.flags & END_STREAM, 'the last DATA frame ends the stream');
  } finally {
    socket.destroy();
    await running.close();
  }
});
