// Embedding behind Express 4 and 5 with body parsers mounted before the facade (issue 23): the parser has
// read the stream, so the facade uses what it left (req.body, or the bytes a verify hook kept) and checks
// the same body the route gets; what it cannot use faithfully is refused at once, with a log line that says
// how to mount the facade. Never a request left hanging.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express4 from 'express';
// @ts-expect-error express5 is an npm alias of express@5, typed by @types/express (installed for 5) only under its own name
import express5 from 'express5';
import { embeddedFacade, post, type EmbeddedFacade } from './fixture.js';

type Express = typeof express4;
const VERSIONS: [string, Express][] = [['express 4', express4], ['express 5', express5 as Express]];

async function listen(app: ReturnType<Express>): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** The same facade as a plain node:http listener: the reference a mounted facade must answer like. */
async function listenAlone(embedded: EmbeddedFacade): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(embedded.facade.handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * An answer as two facades must agree on it: a problem without its `instance` (each request's own id), a
 * form the route got as its fields by name (written back, a form may spell and order its pairs otherwise).
 */
function comparable(answer: { status: number; body: unknown }): unknown {
  const body = answer.body as { instance?: string; text?: string };
  if (answer.status !== 200) return { ...answer, body: { ...body, instance: undefined } };
  const fields = [...new URLSearchParams(body.text)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return { status: answer.status, fields };
}

/** Express with every body parser before the facade, as an application commonly has them. */
async function behindParsers(express: Express, embedded: EmbeddedFacade, urlencoded: { extended: boolean }, verify?: (req: unknown, res: unknown, buf: Buffer) => void) {
  const app = express();
  const options = verify === undefined ? {} : { verify };
  app.use(express.json(options));
  app.use(express.urlencoded({ ...urlencoded, ...options }));
  app.use(express.raw(options));
  app.use(express.text(options));
  app.use(embedded.facade.middleware);
  app.use((_req, res) => void res.status(404).send('express: not the facade'));
  return listen(app);
}

for (const [name, express] of VERSIONS) {
  test(`${name}: json, urlencoded (extended: false), raw and text parsers before the facade: validated, the route gets the same body`, async () => {
    const embedded = await embeddedFacade();
    const app = await behindParsers(express, embedded, { extended: false });
    try {
      const json = await post(app.origin, '/items', 'application/json', '{"name": "bolt", "count": 3, "tags": ["a", "b"]}');
      assert.equal(json.status, 200);
      assert.deepEqual(JSON.parse((json.body as { text: string }).text), { name: 'bolt', count: 3, tags: ['a', 'b'] });
      assert.deepEqual(await post(app.origin, '/items', 'application/json', '{"count": 3}').then((r) => r.status), 400, 'a JSON body without name');
      assert.equal((await post(app.origin, '/items', 'application/json', '{"name": "bolt", "extra": 1}')).status, 400, 'an unknown property');

      const form = await post(app.origin, '/items', 'application/x-www-form-urlencoded', 'name=bolt+nut&count=3&tags=a&tags=b');
      assert.equal(form.status, 200);
      assert.deepEqual(new URLSearchParams((form.body as { text: string }).text).getAll('tags'), ['a', 'b']);
      assert.equal(new URLSearchParams((form.body as { text: string }).text).get('name'), 'bolt nut');
      assert.equal((await post(app.origin, '/items', 'application/x-www-form-urlencoded', 'name=bolt&count=three')).status, 400, 'count is not an integer');
      // extended: false keeps names as sent: every form gets the answer the facade alone gives it.
      const alone = await listenAlone(embedded);
      try {
        for (const sent of ['name=bolt&tags%5B%5D=a', 'name=bolt&tags%5B0%5D=a', 'name=bolt&tags=a&tags=b&count=-2', 'name=&count=1', 'name=a%26b%3Dc', 'count=1&name=x&count=2']) {
          const mounted = await post(app.origin, '/items', 'application/x-www-form-urlencoded', sent);
          assert.deepEqual(comparable(mounted), comparable(await post(alone.origin, '/items', 'application/x-www-form-urlencoded', sent)), sent);
        }
      } finally {
        await alone.close();
      }

      const bytes = Buffer.from([0, 1, 2, 0xff, 0xfe]);
      const raw = await post(app.origin, '/blobs', 'application/octet-stream', bytes);
      assert.equal(raw.status, 200);
      assert.deepEqual(raw.body, { type: 'Buffer', text: bytes.toString('base64') });
      assert.equal((await post(app.origin, '/blobs', 'application/octet-stream', Buffer.alloc(0))).status, 400, 'the required body is missing');
      assert.equal((await post(app.origin, '/blobs', 'application/json', '{"name": "bolt"}')).status, 415, 'JSON parsed for an operation that takes bytes only');

      const text = await post(app.origin, '/notes', 'text/plain', 'a short note é');
      assert.deepEqual(text, { status: 200, body: { type: 'string', text: 'a short note é' } });
      assert.equal((await post(app.origin, '/notes', 'text/plain', 'a note longer than twenty characters')).status, 400, 'over maxLength');

      // A media type no parser takes: the stream is untouched (Express 4 still sets req.body = {}), the facade reads it.
      assert.equal((await post(app.origin, '/items', 'application/xml', '<item><name>bolt</name></item>')).status, 415);
      assert.deepEqual(embedded.logger.lines.filter((l) => l.startsWith('ERROR')), []);
      // Paths outside the contract still go on to the application.
      assert.equal((await post(app.origin, '/elsewhere', 'application/json', '{}')).body, 'express: not the facade');
    } finally {
      await app.close();
      await embedded.close();
    }
  });

  test(`${name}: urlencoded with extended: true: a flat form is used, a nested one refused at once with a log line saying how to mount the facade`, async () => {
    const embedded = await embeddedFacade();
    const app = await behindParsers(express, embedded, { extended: true });
    try {
      const flat = await post(app.origin, '/items', 'application/x-www-form-urlencoded', 'name=bolt&count=4');
      assert.equal(flat.status, 200);
      assert.equal(new URLSearchParams((flat.body as { text: string }).text).get('count'), '4');
      const nested = await post(app.origin, '/items', 'application/x-www-form-urlencoded', 'name=bolt&count%5Bx%5D=4');
      assert.equal(nested.status, 500);
      assert.equal((nested.body as { detail: string }).detail, 'The request body was read before the facade got it, and what was left cannot stand for it.');
      const errors = embedded.logger.lines.filter((l) => l.startsWith('ERROR'));
      assert.equal(errors.length, 1);
      assert.match(errors[0]!, /POST \/items \(direct:addItem\): the request body was read by a middleware before the facade .*nested its form fields.* Mount the facade \(facade\.middleware or facade\.handler\) before the body parsers, or on a router without them/);
      // Said once per operation, answered every time.
      assert.equal((await post(app.origin, '/items', 'application/x-www-form-urlencoded', 'a%5Bb%5D=1')).status, 500);
      assert.equal(embedded.logger.lines.filter((l) => l.startsWith('ERROR')).length, 1);
    } finally {
      await app.close();
      await embedded.close();
    }
  });

  test(`${name}: the bytes a verify hook kept are the body itself, whatever the parser made of them`, async () => {
    const embedded = await embeddedFacade();
    const app = await behindParsers(express, embedded, { extended: true }, (req, _res, buf) => void ((req as { rawBody?: Buffer }).rawBody = buf));
    try {
      const json = await post(app.origin, '/items', 'application/json', '{ "name" : "bolt" }');
      assert.deepEqual(json, { status: 200, body: { type: 'string', text: '{ "name" : "bolt" }' } }, 'the bytes as sent, spaces and all');
      // Nested under extended: true, but the bytes say what was sent: checked as sent (tags[x] is no property).
      assert.equal((await post(app.origin, '/items', 'application/x-www-form-urlencoded', 'name=bolt&tags%5Bx%5D=a')).status, 400);
      assert.equal((await post(app.origin, '/items', 'application/json', '{"name": ""}')).status, 400, 'minLength 1');
    } finally {
      await app.close();
      await embedded.close();
    }
  });

  test(`${name}: a body sent compressed (the parser inflated it) is refused at once`, async () => {
    const embedded = await embeddedFacade();
    const app = await behindParsers(express, embedded, { extended: false });
    try {
      const res = await post(app.origin, '/items', 'application/json', gzipSync('{"name": "bolt"}'), { 'content-encoding': 'gzip' });
      assert.equal(res.status, 500);
      assert.match(embedded.logger.lines.join('\n'), /Content-Encoding: gzip, which the parser undid/);
    } finally {
      await app.close();
      await embedded.close();
    }
  });

  test(`${name}: a route forwarding to a backend gets the parsed body, validated or streamed`, async () => {
    for (const validation of [true, false]) {
      const embedded = await embeddedFacade(validation);
      const app = await behindParsers(express, embedded, { extended: false });
      try {
        const res = await post(app.origin, '/forwarded', 'application/json', '{"name": "bolt"}');
        assert.deepEqual(res, { status: 200, body: { backend: 'got it' } }, `validation ${validation}`);
        assert.deepEqual(embedded.backendReceived.map((b) => JSON.parse(b)), [{ name: 'bolt' }]);
        if (validation) assert.equal((await post(app.origin, '/forwarded', 'application/json', '{}')).status, 400);
        assert.equal(embedded.backendReceived.length, 1, 'an invalid body never reaches the backend');
      } finally {
        await app.close();
        await embedded.close();
      }
    }
  });
}

test('express 5 on a router without body parsers: the facade reads the stream itself', async () => {
  const embedded = await embeddedFacade();
  const app = express5();
  const api = express5.Router();
  api.use(embedded.facade.middleware);
  app.use(api);
  app.use('/other', express5.json(), (req: { body: unknown }, res: { json(v: unknown): void }) => res.json({ parsed: req.body }));
  const running = await listen(app);
  try {
    const res = await post(running.origin, '/items', 'application/json', '{"name":"bolt"}');
    assert.deepEqual(res, { status: 200, body: { type: 'string', text: '{"name":"bolt"}' } });
    assert.deepEqual((await post(running.origin, '/other', 'application/json', '{"a":1}')).body, { parsed: { a: 1 } });
  } finally {
    await running.close();
    await embedded.close();
  }
});
