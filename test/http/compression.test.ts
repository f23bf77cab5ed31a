// Compressed answers and coded request bodies (issue 30, docs/cors.md#compression): br or gzip by the client's
// Accept-Encoding and its q-values, only for compressible bodies over the threshold and when nothing says no;
// Vary, weak ETags, HEAD; a backend's answer compressed as it passes, its own coding kept or undone; streams of
// items still item by item; request bodies decoded within maxBodySize, a decompression bomb a 413.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { brotliDecompressSync, createGunzip, gunzipSync, gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import type { Exchange } from '../../lib/index.js';
import { negotiateCoding } from '../../lib/http/compression.js';
import { ROOT, serve, tempDir } from '../helpers.js';

const CONTRACT = `openapi: 3.0.3
info: {title: compression, version: '1'}
paths:
  /items:
    get:
      operationId: listItems
      responses:
        '200':
          description: items
          headers: {ETag: {schema: {type: string}}}
          content: {application/json: {schema: {type: array, items: {type: object}}}}
    post:
      operationId: addItem
      requestBody:
        required: true
        content: {application/json: {schema: {type: object, required: [name], properties: {name: {type: string}}}}}
      responses:
        '200': {description: the item, content: {application/json: {schema: {type: object}}}}
  /picture:
    get:
      operationId: getPicture
      responses:
        '200': {description: a picture, content: {image/png: {schema: {type: string, format: binary}}}}
  /fixed:
    get:
      operationId: getFixed
      responses:
        '200':
          description: a fixed answer
          content:
            application/json:
              schema: {type: array, items: {type: string}}
              example: [${Array.from({ length: 200 }, (_, i) => `"item number ${i} of the example"`).join(', ')}]
  /forwarded:
    get:
      operationId: getForwarded
      responses:
        '200': {description: from the backend, content: {application/json: {schema: {type: array}}}}
`;

/** About 4 KiB of JSON. */
const ITEMS = Array.from({ length: 60 }, (_, i) => ({ id: i, name: `item ${i}`, tags: ['a', 'b'], price: i * 1.5 }));
const ITEMS_TEXT = JSON.stringify(ITEMS);

interface Answer {
  status: number;
  headers: IncomingMessage['headers'];
  bytes: Buffer;
}

/** A request with exactly these headers (fetch would add its own Accept-Encoding and undo the coding). */
function send(origin: string, path: string, headers: Record<string, string> = {}, method = 'GET', body?: Buffer): Promise<Answer> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function app(extra: Record<string, unknown> = {}, routes: Record<string, (ex: Exchange) => unknown> = {}) {
  const dir = tempDir({ 'api.yaml': CONTRACT });
  return serve({
    specification: join(dir, 'api.yaml'),
    missingOperation: 'mock',
    routes: {
      listItems: (ex) => {
        ex.message.headers.set('ETag', '"v1"');
        ex.body = ITEMS;
      },
      getPicture: (ex) => {
        ex.message.headers.set('Content-Type', 'image/png');
        ex.body = Buffer.alloc(4096, 7);
      },
      ...routes,
    },
    ...extra,
  });
}

test('Accept-Encoding and its q-values choose the coding: br before gzip at equal q, * for the rest, identity;q=0', () => {
  const coding = (header: string) => negotiateCoding(header, 1024).coding;
  assert.equal(coding('gzip, deflate, br'), 'br');
  assert.equal(coding('gzip'), 'gzip');
  assert.equal(coding('br;q=0.5, gzip'), 'gzip');
  assert.equal(coding('br;q=0, *'), 'gzip');
  assert.equal(coding('*'), 'br');
  assert.equal(coding('deflate, identity'), undefined);
  assert.equal(coding('gzip;q=0, br;q=0'), undefined);
  assert.equal(coding('x-gzip'), 'gzip');
  assert.equal(negotiateCoding('identity;q=0, gzip', 1024).identityRefused, true);
  assert.equal(negotiateCoding('*;q=0, gzip', 1024).identityRefused, true);
  assert.equal(negotiateCoding('*;q=0, identity, gzip', 1024).identityRefused, false);
  assert.equal(negotiateCoding('gzip', 1024).identityRefused, false);
});

test('a JSON answer over the threshold is compressed as the client prefers; without Accept-Encoding the bytes are as before', async () => {
  const running = await app();
  try {
    const br = await send(running.origin, '/items', { 'accept-encoding': 'gzip, deflate, br' });
    assert.equal(br.status, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.equal(br.headers.etag, 'W/"v1"', 'a strong ETag names the identity bytes: weak once coded');
    assert.equal(Number(br.headers['content-length']), br.bytes.length);
    assert.ok(br.bytes.length < ITEMS_TEXT.length / 3, `${br.bytes.length} bytes from ${ITEMS_TEXT.length}`);
    assert.equal(brotliDecompressSync(br.bytes).toString(), ITEMS_TEXT);

    const gzip = await send(running.origin, '/items', { 'accept-encoding': 'br;q=0.5, gzip' });
    assert.equal(gzip.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(gzip.bytes).toString(), ITEMS_TEXT);

    const plain = await send(running.origin, '/items');
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, undefined);
    assert.equal(plain.headers.etag, '"v1"');
    assert.equal(plain.bytes.toString(), ITEMS_TEXT);

    const refused = await send(running.origin, '/items', { 'accept-encoding': 'deflate' });
    assert.equal(refused.headers['content-encoding'], undefined);
    assert.equal(refused.headers.vary, 'Accept-Encoding', 'the choice depended on Accept-Encoding');
    assert.equal(refused.bytes.toString(), ITEMS_TEXT);

    // HEAD gets the fields GET gets.
    const head = await send(running.origin, '/items', { 'accept-encoding': 'br' }, 'HEAD');
    assert.equal(head.headers['content-encoding'], 'br');
    assert.equal(head.headers['content-length'], br.headers['content-length']);
    assert.equal(head.bytes.length, 0);

    // Never an image, whatever its size.
    const picture = await send(running.origin, '/picture', { 'accept-encoding': 'br, gzip' });
    assert.equal(picture.headers['content-encoding'], undefined);
    assert.equal(picture.bytes.length, 4096);
  } finally {
    await running.close();
  }
});

test('below the threshold, no-transform, an answer coded already: sent as they are', async () => {
  const running = await app({ server: { compressionThreshold: '8KiB' } }, {
    listItems: (ex) => {
      ex.body = ITEMS;
      if (ex.header('x-case') === 'no-transform') ex.message.headers.set('Cache-Control', 'max-age=60, no-transform');
      if (ex.header('x-case') === 'coded') {
        ex.message.headers.set('Content-Encoding', 'gzip');
        ex.message.headers.set('Content-Type', 'application/json');
        ex.body = gzipSync(ITEMS_TEXT);
      }
    },
  });
  try {
    const small = await send(running.origin, '/items', { 'accept-encoding': 'br' });
    assert.equal(small.headers['content-encoding'], undefined, 'under the 8 KiB threshold');
    assert.equal(small.bytes.toString(), ITEMS_TEXT);
    // identity refused: compressed whatever the size.
    const forced = await send(running.origin, '/items', { 'accept-encoding': 'br, identity;q=0' });
    assert.equal(forced.headers['content-encoding'], 'br');
    const noTransform = await send(running.origin, '/items', { 'accept-encoding': 'br, identity;q=0', 'x-case': 'no-transform' });
    assert.equal(noTransform.headers['content-encoding'], undefined);
    const coded = await send(running.origin, '/items', { 'accept-encoding': 'br, gzip', 'x-case': 'coded' });
    assert.equal(coded.headers['content-encoding'], 'gzip');
    assert.equal(gunzipSync(coded.bytes).toString(), ITEMS_TEXT, 'coded once, not twice');
  } finally {
    await running.close();
  }
  const off = await app({ server: { compression: false } });
  try {
    const plain = await send(off.origin, '/items', { 'accept-encoding': 'br' });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.headers.vary, undefined);
  } finally {
    await off.close();
  }
});

test('the mock\'s fixed answer and the published contract are compressed, once, then served from what was kept', async () => {
  const running = await app({ restConfiguration: { apiContextPath: '/api-doc' } });
  try {
    const first = await send(running.origin, '/fixed', { 'accept-encoding': 'br' });
    const second = await send(running.origin, '/fixed', { 'accept-encoding': 'br' });
    assert.equal(first.headers['content-encoding'], 'br');
    assert.deepEqual(second.bytes, first.bytes);
    assert.equal(JSON.parse(brotliDecompressSync(first.bytes).toString()).length, 200);
    const contract = await send(running.origin, '/api-doc', { 'accept-encoding': 'gzip' });
    assert.equal(contract.headers['content-encoding'], 'gzip');
    assert.equal(contract.headers.vary, 'Accept, Accept-Encoding');
    assert.equal(JSON.parse(gunzipSync(contract.bytes).toString()).paths['/fixed'].get.operationId, 'getFixed');
  } finally {
    await running.close();
  }
});

/** A backend answering ~4 KiB of JSON in chunks (no length), or, asked with X-Path: gzip, the same gzip-coded. */
async function backend(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.headers['x-path'] === 'gzip') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      res.end(gzipSync(ITEMS_TEXT));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write(ITEMS_TEXT.slice(0, 1000));
    setTimeout(() => res.end(ITEMS_TEXT.slice(1000)), 20);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

test('forwarded answers: compressed as they pass; a backend\'s own coding passed untouched, or undone for a client that does not take it', async () => {
  const upstream = await backend();
  const dir = tempDir({ 'api.yaml': CONTRACT });
  const running = await serve({ specification: join(dir, 'api.yaml'), missingOperation: 'mock', routes: { getForwarded: [{ kind: 'to', uri: `${upstream.url}/items` }] } });
  try {
    const streamed = await send(running.origin, '/forwarded', { 'accept-encoding': 'gzip', 'x-path': 'plain' });
    assert.equal(streamed.status, 200);
    assert.equal(streamed.headers['content-encoding'], 'gzip');
    assert.equal(streamed.headers['content-length'], undefined);
    assert.equal(gunzipSync(streamed.bytes).toString(), ITEMS_TEXT);

    const kept = await send(running.origin, '/forwarded', { 'accept-encoding': 'gzip, br', 'x-path': 'gzip' });
    assert.equal(kept.headers['content-encoding'], 'gzip');
    assert.deepEqual(kept.bytes, gzipSync(ITEMS_TEXT), 'the backend\'s bytes, untouched');

    const undone = await send(running.origin, '/forwarded', { 'accept-encoding': 'br;q=1, gzip;q=0', 'x-path': 'gzip' });
    assert.equal(undone.headers['content-encoding'], undefined);
    assert.equal(undone.bytes.toString(), ITEMS_TEXT);
  } finally {
    await running.close();
    await upstream.close();
  }
});

// The timeout is a ceiling against a hang (a compressor holding the first item back would), not the assertion.
test('a forwarded answer still arriving is compressed chunk by chunk: what the backend sent reaches the client before the rest', { timeout: 20_000 }, async () => {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const upstream = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('[{"part":1}');
    void finished.then(() => res.end(',{"part":2}]'));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const dir = tempDir({ 'api.yaml': CONTRACT });
  const running = await serve({ specification: join(dir, 'api.yaml'), missingOperation: 'mock', routes: { getForwarded: [{ kind: 'to', uri: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/items` }] } });
  try {
    const { port } = new URL(running.origin);
    const res = await new Promise<IncomingMessage>((resolve, reject) => httpRequest({ host: '127.0.0.1', port, path: '/forwarded', headers: { 'accept-encoding': 'gzip' }, agent: false }, resolve).on('error', reject).end());
    assert.equal(res.headers['content-encoding'], 'gzip');
    const gunzip = createGunzip();
    res.pipe(gunzip);
    let text = '';
    await new Promise<void>((resolve) => {
      gunzip.on('data', (c: Buffer) => {
        text += c.toString();
        if (text === '[{"part":1}') resolve();
      });
    });
    finish();
    await new Promise((resolve) => gunzip.on('end', resolve));
    assert.equal(text, '[{"part":1},{"part":2}]');
  } finally {
    finish();
    await running.close();
    upstream.closeAllConnections();
    await new Promise((resolve) => upstream.close(resolve));
  }
});

test('streamed items reach the client one by one with compression on: SSE is never compressed', { timeout: 20_000 }, async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const running = await serve({
    specification: join(ROOT, 'test/fixtures/streams/streams.yaml'),
    missingOperation: 'ignore',
    server: { compressionThreshold: 0 },
    routes: {
      watchPrices: (ex) => {
        ex.body = (async function* () {
          yield { event: 'tick', data: { symbol: 'A', price: 1 } };
          await released; // the second event waits until the client has the first
          yield { event: 'tick', data: { symbol: 'B', price: 2 } };
        })();
      },
    },
  });
  try {
    const { port } = new URL(running.origin);
    const res = await new Promise<IncomingMessage>((resolve, reject) => httpRequest({ host: '127.0.0.1', port, path: '/api/prices', headers: { 'accept-encoding': 'gzip, br' }, agent: false }, resolve).on('error', reject).end());
    assert.equal(res.headers['content-encoding'], undefined);
    let text = '';
    await new Promise<void>((resolve) => {
      res.on('data', (c: Buffer) => {
        text += c.toString();
        if (text.endsWith('\n\n')) resolve();
      });
    });
    assert.equal(text, 'event: tick\ndata: {"symbol":"A","price":1}\n\n', 'the first item arrived before the second was made');
    release();
    await new Promise((resolve) => res.on('end', resolve));
    assert.match(text, /"B"/);
  } finally {
    release();
    await running.close();
  }
});

test('request bodies: gzip, deflate and br decoded before validation; another coding is a 415 naming those taken', async () => {
  const seen: unknown[] = [];
  const running = await app({ restConfiguration: { clientRequestValidation: true } }, {
    addItem: (ex) => {
      seen.push([ex.body, ex.header('content-encoding')]);
      ex.body = { ok: true };
    },
  });
  try {
    const json = Buffer.from('{"name":"x"}');
    for (const [coding, bytes] of [['gzip', gzipSync(json)], ['deflate', deflateSync(json)], ['br', brotliCompressSync(json)]] as const) {
      const res = await send(running.origin, '/items', { 'content-type': 'application/json', 'content-encoding': coding }, 'POST', bytes);
      assert.equal(res.status, 200, `${coding}: ${res.bytes}`);
    }
    assert.deepEqual(seen, Array(3).fill(['{"name":"x"}', undefined]));
    const invalid = await send(running.origin, '/items', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'POST', gzipSync('{"name":7}'));
    assert.equal(invalid.status, 400, 'validated after decoding');
    const unknown = await send(running.origin, '/items', { 'content-type': 'application/json', 'content-encoding': 'compress' }, 'POST', json);
    assert.equal(unknown.status, 415);
    assert.equal(unknown.headers['accept-encoding'], 'gzip, deflate, br');
    assert.match(JSON.parse(unknown.bytes.toString()).detail, /Content-Encoding "compress"; accepted: gzip, deflate, br/);
    const garbage = await send(running.origin, '/items', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'POST', json);
    assert.equal(garbage.status, 400);
    assert.match(JSON.parse(garbage.bytes.toString()).detail, /cannot be decoded as its Content-Encoding "gzip"/);
  } finally {
    await running.close();
  }
});

test('a decompression bomb (1 MiB that inflates to 1 GiB) is a 413 once maxBodySize is passed, in bounded memory', async () => {
  // 64 gzip members of 16 MiB of zeros each: about 1 MiB on the wire, 1 GiB decoded.
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  const bomb = Buffer.concat(Array(64).fill(member));
  assert.ok(bomb.length < 2 * 1024 * 1024, `${bomb.length} bytes`);
  const running = await app({ server: { maxBodySize: '2MiB' } });
  try {
    const before = process.memoryUsage().rss;
    const res = await send(running.origin, '/items', { 'content-type': 'application/json', 'content-encoding': 'gzip' }, 'POST', bomb);
    assert.equal(res.status, 413);
    assert.equal(res.headers.connection, 'close');
    assert.match(JSON.parse(res.bytes.toString()).detail, /exceeds the limit of 2097152 bytes/);
    const grown = process.memoryUsage().rss - before;
    assert.ok(grown < 256 * 1024 * 1024, `RSS grew by ${Math.round(grown / 1048576)} MiB`);
  } finally {
    await running.close();
  }
});
