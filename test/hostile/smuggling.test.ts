// The classic request-smuggling families against the facade, over raw sockets to a raw backend: CL.TE, TE.CL,
// TE.TE with an obfuscated Transfer-Encoding, duplicate and signed Content-Length, chunk extensions, bare LF
// and CR. Each is either refused (4xx, the backend gets no whole request from it) or reaches the backend as
// exactly one request carrying the same body, framed by the facade itself. Which of the two is node's
// parser's call (llhttp, strict mode); this file pins what it does today, so a change shows up here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assertInStep, chunk, forwardingFacade, head, sendInTwo, SMUGGLED } from './forwarding-facade.js';
import { until } from './raw-client.js';
import { rawBackend, rawSend } from './raw-peers.js';

const FIRST = SMUGGLED.slice(0, 20);
const REST = SMUGGLED.slice(20);
const LAST = '0\r\n\r\n';

/** Refused by the parser: 400 with the catalogue's malformed-request problem. */
const REFUSED: [string, string][] = [
  ['CL.TE', head('POST', ['Content-Length: 6', 'Transfer-Encoding: chunked']) + LAST + SMUGGLED],
  ['TE.CL', head('POST', ['Transfer-Encoding: chunked', 'Content-Length: 4']) + chunk(SMUGGLED) + LAST],
  ['TE.TE: xchunked', head('POST', ['Transfer-Encoding: xchunked']) + chunk(SMUGGLED) + LAST],
  ['TE.TE: chunked, identity', head('POST', ['Transfer-Encoding: chunked, identity']) + chunk(SMUGGLED) + LAST],
  ['TE.TE: duplicated', head('POST', ['Transfer-Encoding: chunked', 'Transfer-Encoding: chunked']) + chunk(SMUGGLED) + LAST],
  ['TE.TE: duplicated, second not chunked', head('POST', ['Transfer-Encoding: chunked', 'Transfer-encoding: cow']) + chunk(SMUGGLED) + LAST],
  ['TE.TE: space before the colon', head('POST', ['Transfer-Encoding : chunked']) + chunk(SMUGGLED) + LAST],
  ['TE.TE: folded onto another field', head('POST', ['X-Pad: 1', ' Transfer-Encoding: chunked']) + chunk(SMUGGLED) + LAST],
  ['TE.TE: xchunked beside a Content-Length', head('POST', [`Content-Length: ${SMUGGLED.length}`, 'Transfer-Encoding: xchunked']) + SMUGGLED],
  ['signed Content-Length +', head('POST', [`Content-Length: +${SMUGGLED.length}`]) + SMUGGLED],
  ['signed Content-Length -', head('POST', ['Content-Length: -1']) + SMUGGLED],
  ['Content-Length list of two values', head('POST', [`Content-Length: ${SMUGGLED.length}, 6`]) + SMUGGLED],
  ['Content-Length list of one value twice', head('POST', [`Content-Length: ${SMUGGLED.length}, ${SMUGGLED.length}`]) + SMUGGLED],
  ['duplicate Content-Length, same value', head('POST', [`Content-Length: ${SMUGGLED.length}`, `Content-Length: ${SMUGGLED.length}`]) + SMUGGLED],
  ['duplicate Content-Length, other value', head('POST', [`Content-Length: ${SMUGGLED.length}`, 'Content-Length: 6']) + SMUGGLED],
  ['hexadecimal Content-Length', head('POST', [`Content-Length: 0x${SMUGGLED.length.toString(16)}`]) + SMUGGLED],
  ['chunk extension quoting a CRLF', head('POST', ['Transfer-Encoding: chunked']) + `5;a="\r\n0\r\n\r\n${SMUGGLED}"\r\nhello\r\n` + LAST],
  ['chunk size line ending in a bare LF', head('POST', ['Transfer-Encoding: chunked']) + `${FIRST.length.toString(16)}\n${FIRST}\r\n` + chunk(REST) + LAST],
  ['chunk data ending in a bare LF', head('POST', ['Transfer-Encoding: chunked']) + `${FIRST.length.toString(16)}\r\n${FIRST}\n` + chunk(REST) + LAST],
  ['chunk size overflowing 64 bits', head('POST', ['Transfer-Encoding: chunked']) + `1${'0'.repeat(16)}${FIRST.length.toString(16)}\r\n${FIRST}\r\n` + LAST],
  ['head lines ending in a bare LF', `POST /items/1 HTTP/1.1\nHost: facade\nConnection: close\nContent-Length: ${SMUGGLED.length}\n\n${SMUGGLED}`],
  ['head line ending in a bare CR', `POST /items/1 HTTP/1.1\rHost: facade\r\nConnection: close\r\nContent-Length: ${SMUGGLED.length}\r\n\r\n${SMUGGLED}`],
];

/** Accepted by the parser: [name, first part (the head and the first chunk or bytes), the rest]. */
const ACCEPTED: [string, string, string][] = [
  ['Transfer-Encoding with extra leading whitespace', head('POST', ['Transfer-Encoding:   chunked']) + chunk(FIRST), chunk(REST) + LAST],
  ['Transfer-Encoding after a tab', head('POST', ['Transfer-Encoding:\tchunked']) + chunk(FIRST), chunk(REST) + LAST],
  ['Transfer-Encoding in capitals', head('POST', ['Transfer-Encoding: CHUNKED']) + chunk(FIRST), chunk(REST) + LAST],
  ['Transfer-Encoding identity, chunked (chunked last)', head('POST', ['Transfer-Encoding: identity, chunked']) + chunk(FIRST), chunk(REST) + LAST],
  ['chunk extensions', head('POST', ['Transfer-Encoding: chunked']) + `${FIRST.length.toString(16)};a=b;c="d;e"\r\n${FIRST}\r\n`, `${REST.length.toString(16)};x\r\n${REST}\r\n0;last=1\r\n\r\n`],
  ['a trailer field after the last chunk', head('POST', ['Transfer-Encoding: chunked']) + chunk(FIRST), chunk(REST) + '0\r\nX-Trailer: GET /internal/x\r\n\r\n'],
  ['Content-Length with leading zeros', head('POST', [`Content-Length: 000${SMUGGLED.length}`]) + FIRST, REST],
  ['a DELETE with a chunked body', head('DELETE', ['Transfer-Encoding: chunked']) + chunk(FIRST), chunk(REST) + LAST],
  ['an OPTIONS with a Content-Length body', head('OPTIONS', [`Content-Length: ${SMUGGLED.length}`]) + FIRST, REST],
];

test('smuggling attempts the parser refuses: a 400 problem, and the backend never gets a whole request of theirs', async () => {
  const backend = await rawBackend();
  const running = await forwardingFacade(backend.origin);
  try {
    for (const [name, bytes] of REFUSED) {
      const answer = await rawSend(running.origin, bytes);
      assert.equal(answer.status, 400, name);
      assert.equal(JSON.parse(answer.body).detail, 'The request is not valid HTTP.', name);
    }
    // A body found malformed after its head was forwarded leaves the backend part of a request: the facade
    // closes that connection when the client's goes, and a backend reads no whole request from it.
    await until('every backend connection the facade cut is closed', () => backend.connections.every((c) => c.closed || c.bytes === ''));
    assert.deepEqual(backend.received, [], 'no whole request reached the backend');
    assertInStep(backend, true);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('smuggling-shaped requests the parser accepts reach the backend as exactly one request with the same body, framed by the facade, whole or still arriving', async () => {
  const backend = await rawBackend();
  const running = await forwardingFacade(backend.origin);
  try {
    for (const [name, first, rest] of ACCEPTED) {
      const method = first.slice(0, first.indexOf(' '));
      const whole = backend.received.length;
      assert.equal((await rawSend(running.origin, first + rest)).status, 200, name);
      // Arrived whole with its head: sent whole, with its length.
      assert.deepEqual(
        backend.received.slice(whole).map((r) => [r.method, r.field('content-length'), r.field('transfer-encoding'), r.field('x-trailer'), r.body]),
        [[method, String(SMUGGLED.length), undefined, undefined, SMUGGLED]],
        name,
      );
      const streamed = backend.received.length;
      assert.equal((await sendInTwo(running, backend, first, rest)).statusLine, 'HTTP/1.1 200 OK', name);
      // Still arriving: streamed, chunked by the facade (its own chunks, without the client's extensions), or with the client's length.
      const sized = /content-length/i.test(first);
      assert.deepEqual(
        backend.received.slice(streamed).map((r) => [r.method, r.field('content-length'), r.field('transfer-encoding'), r.body]),
        [[method, sized ? String(SMUGGLED.length) : undefined, sized ? undefined : 'chunked', SMUGGLED]],
        `${name}, streamed`,
      );
    }
    assertInStep(backend);
    assert.equal(backend.connections.length, 1, 'one pooled connection, in step throughout');
  } finally {
    await running.close();
    await backend.close();
  }
});
