// A request body the client cuts off with RST_STREAM before its END_STREAM never reaches a route, even when
// the bytes that did arrive parse as a whole document: over HTTP/2 as over HTTP/1.1 (a connection lost
// mid-body), a body is complete only when its end arrived. The client writes exact frames (raw-h2.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import type { Exchange } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';
import { until } from './raw-client.js';
import { ACK, END_HEADERS, END_STREAM, frame, frames, headerBlock, PREFACE, TYPE } from './raw-h2.js';

const PET = '{"name":"rex","photoUrls":[]}';
const CANCEL = Buffer.from([0, 0, 0, 8]);

test('HTTP/2: a body reset before its END_STREAM never reaches the route; the same body ended does', async () => {
  const received: unknown[] = [];
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    restConfiguration: { clientRequestValidation: true },
    routes: {
      addPet: (ex: Exchange) => {
        received.push(ex.body);
        ex.message.headers.set('content-type', 'application/json');
        ex.body = { id: 1, name: 'rex', photoUrls: [] };
      },
      getPetById: (ex: Exchange) => {
        ex.message.headers.set('content-type', 'application/json');
        ex.body = { id: 1, name: 'rex', photoUrls: [] };
      },
    },
  });
  const { port } = new URL(running.origin);
  const socket = connect(Number(port), '127.0.0.1');
  try {
    await once(socket, 'connect');
    const seen = frames(socket);
    const post = headerBlock([[':method', 'POST'], [':scheme', 'http'], [':path', '/api/v3/pet'], [':authority', 'localhost'], ['content-type', 'application/json']]);
    const get = headerBlock([[':method', 'GET'], [':scheme', 'http'], [':path', '/api/v3/pet/1'], [':authority', 'localhost']]);
    const ended = (stream: number): boolean => seen.some((f) => f.stream === stream && (f.type === TYPE.RST_STREAM || (f.flags & END_STREAM) !== 0));
    let pings = 0;
    const roundTrip = async (): Promise<void> => {
      const payload = Buffer.alloc(8);
      payload.writeUInt32BE(++pings, 4);
      socket.write(frame(TYPE.PING, 0, 0, payload));
      await until(() => `the PING ${pings} was answered`, () => seen.some((f) => f.type === TYPE.PING && (f.flags & ACK) !== 0 && f.payload.equals(payload)));
    };

    // A whole JSON document in DATA without END_STREAM: the request has not ended.
    socket.write(Buffer.concat([PREFACE, frame(TYPE.SETTINGS, 0, 0), frame(TYPE.HEADERS, END_HEADERS, 1, post), frame(TYPE.DATA, 0, 1, Buffer.from(PET))]));
    // Two round trips: the DATA was read, and the turn that starts serving the stream has passed.
    await roundTrip();
    await roundTrip();
    socket.write(frame(TYPE.RST_STREAM, 0, 1, CANCEL));
    // A later stream on the same connection is answered after the cut one was settled, whichever way.
    socket.write(frame(TYPE.HEADERS, END_STREAM | END_HEADERS, 3, get));
    await until(() => 'stream 3 was answered', () => ended(3));
    assert.deepEqual(received, [], 'the route never saw the cut body');

    // The control: the same body with END_STREAM does reach it.
    socket.write(Buffer.concat([frame(TYPE.HEADERS, END_HEADERS, 5, post), frame(TYPE.DATA, END_STREAM, 5, Buffer.from(PET))]));
    await until(() => 'stream 5 was answered', () => ended(5));
    assert.equal(received.length, 1, 'the ended body reached the route');
  } finally {
    socket.destroy();
    await running.close();
  }
});

test('HTTP/2: a body forwarded as it arrives and reset before its END_STREAM never reaches the backend ended', async () => {
  // The backend records the exact bytes it receives: a cut body must not arrive as a whole chunked one.
  const received: Buffer[] = [];
  let requestArrived!: () => void;
  const arrived = new Promise<void>((resolve) => (requestArrived = resolve));
  let closedBackendSide!: () => void;
  const backendClosed = new Promise<void>((resolve) => (closedBackendSide = resolve));
  const backend = createNetServer((s) => {
    s.on('data', (chunk: Buffer) => {
      received.push(chunk);
      if (Buffer.concat(received).includes('rex')) requestArrived();
    });
    s.on('error', () => undefined);
    s.on('close', closedBackendSide);
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: { addPet: [{ kind: 'to', uri: `http://127.0.0.1:${(backend.address() as AddressInfo).port}/pets` }] },
  });
  const socket = connect(Number(new URL(running.origin).port), '127.0.0.1');
  try {
    await once(socket, 'connect');
    frames(socket);
    const post = headerBlock([[':method', 'POST'], [':scheme', 'http'], [':path', '/api/v3/pet'], [':authority', 'localhost'], ['content-type', 'application/json']]);
    socket.write(Buffer.concat([PREFACE, frame(TYPE.SETTINGS, 0, 0), frame(TYPE.HEADERS, END_HEADERS, 1, post), frame(TYPE.DATA, 0, 1, Buffer.from(PET))]));
    await arrived;
    socket.write(frame(TYPE.RST_STREAM, 0, 1, CANCEL));
    await backendClosed;
    const bytes = Buffer.concat(received).toString('latin1');
    assert.match(bytes, /^POST \/pets HTTP\/1\.1\r\n/);
    assert.match(bytes, /\r\ntransfer-encoding: chunked\r\n/i);
    assert.doesNotMatch(bytes, /\r\n0\r\n\r\n$/, `the backend never got the last chunk: ${JSON.stringify(bytes)}`);
  } finally {
    socket.destroy();
    await running.close();
    backend.close();
  }
});
