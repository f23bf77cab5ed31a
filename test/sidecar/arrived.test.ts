// Bodies that have arrived whole by the time they are forwarded (a small request or answer comes in the
// packets of its head) are sent whole, in one write, instead of piped; bodies still arriving stream as before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { PETSTORE, serve } from '../helpers.js';
import { httpBackend, signal } from './backends.js';

interface Seen {
  headers: IncomingHttpHeaders;
  body: string;
}

/** Reads one HTTP/1.1 response with a Content-Length from a raw socket. */
function readResponse(socket: Socket): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    let data = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      data = Buffer.concat([data, chunk]);
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = data.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (data.length < end + 4 + length) return;
      socket.off('data', onData);
      resolve({ status: Number(head.slice(9, 12)), head, body: data.subarray(end + 4, end + 4 + length).toString() });
    };
    socket.on('data', onData);
    socket.once('error', reject);
  });
}

test('a request body that came with its head is sent whole with its length (a chunked one too); one still arriving streams to the backend', async () => {
  const seen: Seen[] = [];
  let arrived = signal();
  const target = await httpBackend((req, res) => {
    arrived.fire();
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => void (body += c));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      const answer = JSON.stringify({ got: body });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) }).end(answer);
    });
  });
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { addPet: [{ kind: 'to', uri: `${target.origin}/pets` }] } });
  const socket = connect(Number(new URL(running.origin).port), '127.0.0.1');
  try {
    await new Promise((resolve) => socket.once('connect', resolve));
    const head = 'POST /api/v3/pet HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';
    // Each in one write, one after the other on the same connection: the facade must have read each body through.
    socket.write(`${head}Content-Length: 7\r\n\r\n{"a":1}`);
    assert.deepEqual(await readResponse(socket).then((r) => [r.status, r.body]), [200, '{"got":"{\\"a\\":1}"}']);
    socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n5\r\n{"b":\r\n2\r\n2}\r\n0\r\n\r\n`);
    assert.deepEqual(await readResponse(socket).then((r) => [r.status, r.body]), [200, '{"got":"{\\"b\\":2}"}']);
    socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n`);
    assert.deepEqual(await readResponse(socket).then((r) => [r.status, r.body]), [200, '{"got":""}']);
    assert.deepEqual(
      seen.map((s) => [s.headers['content-length'], s.headers['transfer-encoding'], s.body]),
      [
        ['7', undefined, '{"a":1}'],
        ['7', undefined, '{"b":2}'],
        ['0', undefined, ''],
      ],
    );

    // The head and a first chunk only: the backend is called while the client still sends, and gets the rest.
    arrived = signal();
    socket.write(`${head}Transfer-Encoding: chunked\r\n\r\n5\r\n{"c":\r\n`);
    await arrived.fired;
    const answer = readResponse(socket);
    socket.write('2\r\n3}\r\n0\r\n\r\n');
    assert.deepEqual(await answer.then((r) => [r.status, r.body]), [200, '{"got":"{\\"c\\":3}"}']);
    assert.deepEqual([seen[3]!.headers['content-length'], seen[3]!.headers['transfer-encoding'], seen[3]!.body], [undefined, 'chunked', '{"c":3}']);
  } finally {
    socket.destroy();
    await running.close();
    await target.close();
  }
});

test('an answer that came with its head goes out whole, an empty one with length 0, one still arriving is streamed', async () => {
  const more = signal();
  const target = await httpBackend((req, res) => {
    if (req.url === '/small') return void res.writeHead(201, { 'content-type': 'application/json', 'content-length': '7', 'x-kind': 'small' }).end('{"n":1}');
    if (req.url === '/empty') return void res.writeHead(200, { 'content-length': '0' }).end();
    // Chunked, the first part now and the rest once the client has seen it.
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('first;');
    void more.fired.then(() => res.end('second'));
  });
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getInventory: [{ kind: 'to', uri: `${target.origin}/small` }],
      logoutUser: [{ kind: 'to', uri: `${target.origin}/empty` }],
      getPetById: [{ kind: 'to', uri: `${target.origin}/slow` }],
    },
  });
  try {
    const small = await fetch(`${running.origin}/api/v3/store/inventory`);
    assert.deepEqual([small.status, small.headers.get('content-length'), small.headers.get('x-kind'), small.headers.get('via'), await small.text()], [201, '7', 'small', '1.1 svc-facade', '{"n":1}']);
    const empty = await fetch(`${running.origin}/api/v3/user/logout`);
    assert.deepEqual([empty.status, empty.headers.get('content-length'), await empty.text()], [200, '0', '']);
    const head = await fetch(`${running.origin}/api/v3/store/inventory`, { method: 'HEAD' });
    assert.deepEqual([head.status, head.headers.get('content-length'), await head.text()], [201, '7', '']);

    const slow = await fetch(`${running.origin}/api/v3/pet/1`);
    assert.equal(slow.status, 200);
    const reader = slow.body!.getReader();
    const first = await reader.read();
    assert.equal(Buffer.from(first.value!).toString(), 'first;', 'the first part reached the client before the backend sent the rest');
    more.fire();
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += Buffer.from(r.value).toString();
    assert.equal(rest, 'second');
  } finally {
    await running.close();
    await target.close();
  }
});
