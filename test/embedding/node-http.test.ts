// Embedding in a plain node:http server (issue 23): facade.handler as the listener reads the stream itself;
// a listener that read the body first hands over the bytes as req.rawBody, or gets an answer at once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { embeddedFacade, post } from './fixture.js';

async function listen(listener: RequestListener): Promise<{ origin: string; close(): Promise<void> }> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Reads the whole request body, as a listener doing its own parsing would, then calls `then`. */
function readFirst(req: IncomingMessage, then: (bytes: Buffer) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => then(Buffer.concat(chunks)));
}

test('node:http: facade.handler as the listener validates the body and hands the route the same body', async () => {
  const embedded = await embeddedFacade();
  const server = await listen(embedded.facade.handler);
  try {
    assert.deepEqual(await post(server.origin, '/items', 'application/json', '{"name":"bolt","count":2}'), { status: 200, body: { type: 'string', text: '{"name":"bolt","count":2}' } });
    assert.equal((await post(server.origin, '/items', 'application/json', '{"name":"bolt","count":"two"}')).status, 400);
    assert.deepEqual(await post(server.origin, '/notes', 'text/plain', 'hello'), { status: 200, body: { type: 'string', text: 'hello' } });
    assert.equal((await post(server.origin, '/items', 'application/x-www-form-urlencoded', 'count=2')).status, 400, 'name is required');
  } finally {
    await server.close();
    await embedded.close();
  }
});

test('node:http: a listener that read the body and kept it as req.rawBody: the facade checks and routes those bytes', async () => {
  const embedded = await embeddedFacade();
  const server = await listen((req, res) => readFirst(req, (bytes) => {
    (req as IncomingMessage & { rawBody?: Buffer }).rawBody = bytes;
    embedded.facade.handler(req, res);
  }));
  try {
    assert.deepEqual(await post(server.origin, '/items', 'application/json', '{"name":"bolt"}'), { status: 200, body: { type: 'string', text: '{"name":"bolt"}' } });
    assert.equal((await post(server.origin, '/items', 'application/json', '{"name":"bolt",')).status, 400, 'not JSON');
    assert.equal((await post(server.origin, '/notes', 'text/plain', 'x'.repeat(21))).status, 400, 'over maxLength');
  } finally {
    await server.close();
    await embedded.close();
  }
});

test('node:http: a listener that read the body and left nothing: answered at once with a problem, and a log line on how to mount', async () => {
  const embedded = await embeddedFacade();
  const server = await listen((req, res) => readFirst(req, () => embedded.facade.handler(req, res)));
  try {
    const started = Date.now();
    const res = await post(server.origin, '/items', 'application/json', '{"name":"bolt"}');
    assert.ok(Date.now() - started < 2000, 'no waiting for a body that will never come');
    assert.equal(res.status, 500);
    assert.equal((res.body as { detail: string }).detail, 'The request body was read before the facade got it, and what was left cannot stand for it.');
    assert.match(embedded.logger.lines.join('\n'), /^ERROR POST \/items \(direct:addItem\): the request body was read by a middleware before the facade .*: the parser left no body\. Mount the facade/m);
    // A request without a body needs nothing from the stream: still served.
    const empty = await fetch(`${server.origin}/items`, { method: 'POST', signal: AbortSignal.timeout(5000) });
    assert.equal(empty.status, 400, 'the required body is missing');
  } finally {
    await server.close();
    await embedded.close();
  }
});
