// The frames of an HTTP/2 answer, read off a raw socket: HEADERS, the body's DATA, and END_STREAM on the last
// DATA frame that carries bytes. No empty DATA frame (node's compatibility layer sends one after every body:
// it waits for trailers), and no trailers. The client writes exact bytes (raw-h2.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { once } from 'node:events';
import { PETSTORE, serve } from '../helpers.js';
import { until } from './raw-client.js';
import { END_HEADERS, END_STREAM, frame, frames, headerBlock, PREFACE, TYPE } from './raw-h2.js';

const PET = '{"id":1,"name":"doggie","photoUrls":[]}';

test('an HTTP/2 answer is HEADERS then DATA ending the stream: no empty DATA frame, no trailers', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: { getPetById: [{ kind: 'setBody', expression: { constant: PET } }, { kind: 'setHeader', name: 'Content-Type', expression: { constant: 'application/json' } }] },
  });
  const { port } = new URL(running.origin);
  const socket = connect(Number(port), '127.0.0.1');
  try {
    await once(socket, 'connect');
    const seen = frames(socket);
    const block = headerBlock([[':method', 'GET'], [':scheme', 'http'], [':path', '/api/v3/pet/1'], [':authority', 'localhost']]);
    socket.write(Buffer.concat([PREFACE, frame(TYPE.SETTINGS, 0, 0), frame(TYPE.HEADERS, END_STREAM | END_HEADERS, 1, block)]));
    const ofStream = (): typeof seen => seen.filter((f) => f.stream === 1);
    await until(() => `the stream ended; its frames: ${JSON.stringify(ofStream())}`, () => ofStream().some((f) => (f.flags & END_STREAM) !== 0));
    const summary = ofStream().map((f) => ({ type: f.type, flags: f.flags, length: f.payload.length }));
    const shown = JSON.stringify(summary);
    const [head, ...data] = summary;
    assert.equal(head!.type, TYPE.HEADERS, 'the answer starts with its HEADERS');
    assert.ok(data.length > 0 && data.every((f) => f.type === TYPE.DATA), `then DATA only: ${shown}`);
    assert.ok(data.every((f) => f.length > 0), `no empty DATA frame: ${shown}`);
    assert.equal(data.reduce((n, f) => n + f.length, 0), PET.length);
    assert.ok(data.at(-1)!.flags & END_STREAM, 'the last DATA frame ends the stream');
  } finally {
    socket.destroy();
    await running.close();
  }
});
