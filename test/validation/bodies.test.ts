// Request bodies other than plain JSON: multipart/form-data (fields, files, JSON parts, limits),
// application/x-www-form-urlencoded, text and opaque types; the multipart parser on its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { boundaryOf, MultipartError, parseMultipart } from '../../lib/codec/multipart.js';
import { CORPUS } from '../helpers.js';
import { call, serveContract, serveFile, where } from './fixtures.js';

/** A multipart body as a browser would send it (the platform's own FormData encoder). */
async function multipart(fields: Record<string, string | Blob | (string | Blob)[]>): Promise<{ body: Buffer; headers: Record<string, string> }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (v instanceof Blob) form.append(name, v, 'upload.bin');
      else form.append(name, v);
    }
  }
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { body: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type')! } };
}

const png = (bytes: number[]): Blob => new Blob([new Uint8Array(bytes)], { type: 'image/png' });

test('multipart (corpus): typed fields and a file pass; a field of the wrong type is a 400', async () => {
  const r = await serveFile(join(CORPUS, 'readme-oas-examples/3.0/file-uploads.yaml'));
  try {
    const good = await call(r, 'POST', '/anything/multipart-formdata', await multipart({ orderId: '12', userId: '3', documentFile: png([0x89, 0x50, 0x4e, 0x47, 0, 255]) }));
    assert.equal(good.status, 200);
    const bad = await call(r, 'POST', '/anything/multipart-formdata', await multipart({ orderId: 'twelve', documentFile: png([1]) }));
    assert.equal(bad.status, 400);
    assert.deepEqual(where(bad), ['body:orderId /orderId']);
    // Several files under one array property.
    assert.equal((await call(r, 'PUT', '/anything/multipart-formdata', await multipart({ filename: [png([1]), png([2])] }))).status, 200);
    // image/png is opaque: only its Content-Type is checked.
    assert.equal((await call(r, 'POST', '/anything/image-png', { body: Buffer.from([0x89, 0x50]), headers: { 'content-type': 'image/png' } })).status, 200);
    assert.equal((await call(r, 'POST', '/anything/image-png', { body: 'x', headers: { 'content-type': 'image/gif' } })).status, 415);
  } finally {
    await r.close();
  }
});

const UPLOAD = {
  openapi: '3.0.3',
  info: { title: 'upload', version: '1' },
  paths: {
    '/upload': {
      post: {
        operationId: 'upload',
        requestBody: {
          required: true,
          content: {
            'multipart/form-data': {
              schema: {
                type: 'object',
                required: ['meta', 'file'],
                additionalProperties: false,
                properties: {
                  meta: { type: 'object', required: ['title'], properties: { title: { type: 'string' }, pages: { type: 'integer' } } },
                  tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
                  file: { type: 'string', format: 'binary', maxLength: 8 },
                },
              },
            },
          },
        },
        responses: { '204': { description: 'none' } },
      },
    },
    '/note': {
      post: {
        operationId: 'note',
        requestBody: { content: { 'text/plain': { schema: { type: 'string', maxLength: 5 } } } },
        responses: { '204': { description: 'none' } },
      },
    },
  },
};

test('multipart: an object part is JSON, repeated parts make arrays, file size bounds apply, strays are named', async () => {
  const r = await serveContract(UPLOAD);
  try {
    const ok = await multipart({ meta: '{"title":"t","pages":2}', tags: ['a', 'b'], file: png([1, 2, 3]) });
    assert.equal((await call(r, 'POST', '/upload', ok)).status, 200);
    const bad = await multipart({ meta: '{"pages":"many"}', tags: ['a', 'c'], file: png([1, 2, 3, 4, 5, 6, 7, 8, 9]), stray: 'x' });
    const res = await call(r, 'POST', '/upload', bad);
    assert.equal(res.status, 400);
    assert.deepEqual(where(res).sort(), ['body:1 /tags/1', 'body:file /file', 'body:pages /meta/pages', 'body:stray /stray', 'body:title /meta/title']);
    const missing = await call(r, 'POST', '/upload', await multipart({ meta: '{"title":"t"}' }));
    assert.deepEqual(where(missing), ['body:file /file']);
    const notJson = await call(r, 'POST', '/upload', await multipart({ meta: 'title=t', file: png([1]) }));
    assert.deepEqual(where(notJson), ['body:meta /meta']);
  } finally {
    await r.close();
  }
});

test('multipart: a body that is not multipart as announced is a 400 naming the problem', async () => {
  const r = await serveContract(UPLOAD);
  try {
    const noBoundary = await call(r, 'POST', '/upload', { body: 'x', headers: { 'content-type': 'multipart/form-data' } });
    assert.equal(noBoundary.status, 400);
    assert.match(noBoundary.body.errors[0].message, /no boundary/);
    const truncated = await call(r, 'POST', '/upload', { body: '--b\r\nContent-Disposition: form-data; name="meta"\r\n\r\n{}', headers: { 'content-type': 'multipart/form-data; boundary=b' } });
    assert.equal(truncated.status, 400);
    assert.match(truncated.body.errors[0].message, /closing boundary/);
  } finally {
    await r.close();
  }
});

test('text/plain bodies are checked as strings', async () => {
  const r = await serveContract(UPLOAD);
  try {
    assert.equal((await call(r, 'POST', '/note', { body: 'hello', headers: { 'content-type': 'text/plain; charset=utf-8' } })).status, 200);
    const long = await call(r, 'POST', '/note', { body: 'hello world', headers: { 'content-type': 'text/plain' } });
    assert.equal(long.status, 400);
    assert.deepEqual(where(long), ['body:']);
  } finally {
    await r.close();
  }
});

test('form bodies (corpus): required fields, int32 coercion; an absent optional body passes', async () => {
  const r = await serveFile(join(CORPUS, 'readme-oas-examples/3.0/form-data.yaml'));
  try {
    const send = (body: string) => call(r, 'POST', '/anything', { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal((await send('client_id=a&client_secret=b&scope=7')).status, 200);
    const bad = await send('client_id=a&scope=seven');
    assert.equal(bad.status, 400);
    assert.deepEqual(where(bad).sort(), ['body:client_secret /client_secret', 'body:scope /scope']);
    assert.equal((await call(r, 'POST', '/anything')).status, 204);
  } finally {
    await r.close();
  }
});

test('form bodies (corpus): encoding styles per property, as for query parameters', async () => {
  const r = await serveFile(join(CORPUS, 'readme-oas-examples/3.0/parameters-style.yaml'));
  try {
    const form = (path: string, method: string, body: string) => call(r, method, path, { body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    // The corpus declares these bodies as multipart; a form body is a 415 there.
    assert.equal((await form('/anything/form-data/form', 'POST', 'primitive=x')).status, 415);
    const parts = await multipart({ primitive: 'x', array: 'a,b', object: '{"foo":"f","bar":"b"}' });
    assert.equal((await call(r, 'POST', '/anything/form-data/form', parts)).status, 200);
    const deep = await multipart({ 'object[foo]': 'f', 'object[bar]': 'b' });
    assert.equal((await call(r, 'POST', '/anything/form-data/deepObject', deep)).status, 200);
  } finally {
    await r.close();
  }
});

test('parseMultipart: fields, files, quoted and RFC 5987 names, preamble, transport padding', () => {
  const body = Buffer.from(
    'preamble\r\n--XyZ  \r\n' +
      'Content-Disposition: form-data; name="a"\r\n\r\n1\r\n' +
      '--XyZ\r\nContent-Disposition: form-data; name="f"; filename="x \\"q\\".txt"; filename*=UTF-8\'\'%C3%A9.txt\r\nContent-Type: text/plain\r\n\r\nline1\r\nline2\r\n' +
      '--XyZ--\r\nepilogue',
  );
  const parts = parseMultipart(body, 'XyZ');
  assert.equal(parts.length, 2);
  assert.deepEqual([parts[0]!.name, parts[0]!.filename, parts[0]!.data.toString()], ['a', undefined, '1']);
  assert.deepEqual([parts[1]!.name, parts[1]!.filename, parts[1]!.contentType, parts[1]!.data.toString()], ['f', 'é.txt', 'text/plain', 'line1\r\nline2']);
  assert.equal(boundaryOf('multipart/form-data; boundary="with space"'), 'with space');
  assert.equal(boundaryOf('multipart/form-data; charset=utf-8'), undefined);
});

test('parseMultipart: limits and malformed input throw MultipartError', () => {
  const many = Buffer.from(`${'--b\r\nContent-Disposition: form-data; name="x"\r\n\r\nv\r\n'.repeat(5)}--b--`);
  assert.equal(parseMultipart(many, 'b').length, 5);
  assert.throws(() => parseMultipart(many, 'b', { maxParts: 4, maxHeaderBytes: 1024 }), MultipartError);
  const bigHeader = Buffer.from(`--b\r\nContent-Disposition: form-data; name="x"\r\nX-Pad: ${'p'.repeat(200)}\r\n\r\nv\r\n--b--`);
  assert.throws(() => parseMultipart(bigHeader, 'b', { maxParts: 10, maxHeaderBytes: 100 }), /too long/);
  assert.throws(() => parseMultipart(Buffer.from('--b\r\nContent-Type: text/plain\r\n\r\nv\r\n--b--'), 'b'), /no Content-Disposition name/);
  assert.throws(() => parseMultipart(Buffer.from('nothing here'), 'b'), /no boundary/);
  assert.throws(() => parseMultipart(Buffer.from('--b\r\nContent-Disposition: form-data; name="x"\r\nno colon here\r\n\r\nv\r\n--b--'), 'b'), (err: unknown) => err instanceof MultipartError && err.message.startsWith('malformed part header'));
});
