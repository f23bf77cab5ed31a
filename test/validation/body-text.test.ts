// The text a route gets as its body when validation has already read that body: decoded once, shared by the
// two, and still the text exactly as sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { request } from 'node:http';
import type { Exchange } from '../../lib/index.js';
import { serve, tempDir } from '../helpers.js';

const contract = {
  openapi: '3.0.3',
  info: { title: 'notes', version: '1' },
  paths: {
    '/notes': {
      post: {
        operationId: 'addNote',
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { type: 'object', required: ['text'], properties: { text: { type: 'string' } } } },
            'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
            'text/plain': { schema: { type: 'string' } },
          },
        },
        responses: { '204': { description: 'kept' } },
      },
    },
  },
};

function post(origin: string, body: Buffer, contentType: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-length': body.length };
    if (contentType !== undefined) headers['content-type'] = contentType;
    const req = request(`${origin}/notes`, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end(body);
  });
}

test('a validated body reaches its route as the text sent (a byte-order mark kept), bytes when its media type is not text, whatever came before', async () => {
  const seen: unknown[] = [];
  const r = await serve(
    {
      specification: join(tempDir({ 'api.json': JSON.stringify(contract) }), 'api.json'),
      restConfiguration: { clientRequestValidation: true },
      routes: {
        addNote: [
          {
            kind: 'process',
            fn: (ex: Exchange) => {
              seen.push(ex.message.body);
              ex.message.body = undefined; // answered 204, as declared
            },
          },
        ],
      },
    },
    { env: {} },
  );
  try {
    const json = '{"text":"é ünïcode"}';
    const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)]);
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80]);
    assert.equal(await post(r.origin, Buffer.from(json), 'application/json'), 204);
    assert.equal(await post(r.origin, withBom, 'application/json'), 204, 'validation reads JSON past its byte-order mark');
    assert.equal(await post(r.origin, bytes, 'application/octet-stream'), 204);
    assert.equal(await post(r.origin, Buffer.from(json), 'application/json'), 204);
    // Without a Content-Type, validation reads the body as the first declared media type; the route gets bytes.
    assert.equal(await post(r.origin, Buffer.from(json), undefined), 204);
    assert.equal(await post(r.origin, Buffer.from('plain words'), 'text/plain'), 204);
    assert.equal(await post(r.origin, Buffer.from('{"text":1}'), 'application/json'), 400, 'an invalid body never reaches the route');
    assert.equal(seen.length, 6);
    assert.equal(seen[0], json);
    assert.equal(seen[1], `\ufeff${json}`, 'the route gets the text as sent, its byte-order mark too');
    assert.ok(Buffer.isBuffer(seen[2]) && seen[2].equals(bytes), 'an octet-stream body stays bytes');
    assert.equal(seen[3], json);
    assert.ok(Buffer.isBuffer(seen[4]) && seen[4].equals(Buffer.from(json)), 'a body without Content-Type stays bytes');
    assert.equal(seen[5], 'plain words');
  } finally {
    await r.close();
  }
});
