// The item decoders of sequential bodies, fed the same bytes whole and one byte at a time (how a body may
// arrive over TCP): the items, and the index a malformed item is reported at, are the same either way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder, SequenceError } from '../../lib/codec/sequence-decode.js';
import type { SequenceKind } from '../../lib/codec/sequential-media.js';

function decodeBytewise(kind: SequenceKind, contentType: string, body: Buffer, max = 1024): unknown[] {
  const decoder = createDecoder(kind, contentType, max);
  const items: unknown[] = [];
  for (const byte of body) items.push(...decoder.push(Buffer.from([byte])));
  return [...items, ...decoder.end()];
}

function decodeWhole(kind: SequenceKind, contentType: string, body: Buffer, max = 1024): unknown[] {
  const decoder = createDecoder(kind, contentType, max);
  return [...decoder.push(body), ...decoder.end()];
}

function both(kind: SequenceKind, contentType: string, text: string): unknown[] {
  const body = Buffer.from(text, 'utf8');
  const whole = decodeWhole(kind, contentType, body);
  assert.deepEqual(decodeBytewise(kind, contentType, body), whole);
  return whole;
}

test('JSON Lines: LF and CRLF, blank lines skipped, multi-byte characters split across chunks, no final newline', () => {
  assert.deepEqual(both('json-lines', 'application/jsonl', '{"a":"é€😀"}\r\n\n  \n[1,2]\n"x"\n3'), [{ a: 'é€😀' }, [1, 2], 'x', 3]);
});

test('JSON text sequences: an item ends at the next RS, or at once when its text so far ends with LF and parses', () => {
  assert.deepEqual(both('json-seq', 'application/json-seq', '\x1e{"a":\n1}\n\x1e\x1e"two"\n\x1e3\n'), [{ a: 1 }, 'two', 3]);
  // A live stream: the first item is out before the second starts.
  const decoder = createDecoder('json-seq', 'application/json-seq', 1024);
  assert.deepEqual(decoder.push(Buffer.from('\x1e{"a":1}\n')), [{ a: 1 }]);
  assert.deepEqual(decoder.push(Buffer.from('\x1e{"b":')), []);
  // A body that ends inside an item is malformed.
  assert.throws(() => decoder.end(), (err: unknown) => err instanceof SequenceError && err.index === 1);
});

test('SSE: CR, LF and CRLF line ends (a CRLF split across chunks), a BOM, comments, fields without a colon', () => {
  const text = '\ufeffdata: one\r\ndata\rdata:  two\n\nevent: e\r\nid: 1\r\nretry: x\r\nretry: 20\r\ndata: 😀\r\n\r\n: only a comment\n\n';
  assert.deepEqual(both('sse', 'text/event-stream', text), [{ data: 'one\n\n two' }, { data: '😀', event: 'e', id: '1', retry: 20 }]);
});

test('multipart/mixed: preamble, parts with and without headers, transport padding, epilogue', () => {
  const text = 'ignored\r\n--b \t\r\nContent-Type: application/json\r\n\r\n{"a":1}\r\n--b\r\n\r\nplain\r\n--b--\r\nepilogue';
  assert.deepEqual(both('multipart', 'multipart/mixed; boundary="b"', text), [{ a: 1 }, 'plain']);
});

test('a malformed item and an item over the cap name the same index however the bytes arrive', () => {
  const cases: [SequenceKind, string, string, number, boolean][] = [
    ['json-lines', 'application/jsonl', '1\n2\n{bad\n4\n', 2, false],
    ['json-seq', 'application/json-seq', '\x1e1\n\x1e{bad\n', 1, false],
    ['json-seq', 'application/json-seq', '1\n', 0, false],
    ['json-lines', 'application/jsonl', `1\n"${'x'.repeat(40)}"\n`, 1, true],
    ['sse', 'text/event-stream', `data: a\n\ndata: ${'x'.repeat(40)}\n\n`, 1, true],
    ['multipart', 'multipart/mixed; boundary=b', '--b\r\n\r\na\r\n--b\r\nno colon here\r\n\r\nx\r\n--b--', 1, false],
  ];
  for (const [kind, type, text, index, tooLarge] of cases) {
    for (const decode of [decodeWhole, decodeBytewise]) {
      assert.throws(
        () => decode(kind, type, Buffer.from(text), 32),
        (err: unknown) => err instanceof SequenceError && err.index === index && err.tooLarge === tooLarge,
        `${kind} ${JSON.stringify(text)} (${decode.name})`,
      );
    }
  }
});

test('parsed JSON items never carry prototype-reaching keys', () => {
  const [item] = both('json-lines', 'application/jsonl', '{"__proto__":{"polluted":true},"a":{"constructor":{"x":1}},"\\u005f_proto__":1}\n') as Record<string, unknown>[];
  assert.deepEqual(Object.keys(item!), ['a']);
  assert.deepEqual(Object.keys(item!.a as object), []);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
