// A backend's answer in a sequential media type (`to: http`) with response validation on: streamed through
// to the client as it arrives (never read whole, so an endless event stream works), each item checked as it
// passes; one that does not conform cuts the stream after the ones before it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve, tempDir } from '../helpers.js';

const CONTRACT = `
openapi: 3.2.0
info: { title: Relay, version: 1.0.0 }
paths:
  /events:
    get:
      operationId: events
      responses:
        '200':
          description: Counts, as the backend makes them
          content:
            text/event-stream:
              itemSchema:
                type: object
                required: [data]
                properties:
                  data: { type: object, required: [n], properties: { n: { type: integer, minimum: 0 } } }
            application/jsonl:
              itemSchema: { type: object, required: [n], properties: { n: { type: integer, minimum: 0 } } }
`;

async function backendServer(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function relay(backend: string) {
  const dir = tempDir({
    'relay.yaml': CONTRACT,
    'routes.yaml': `
- restConfiguration: { clientResponseValidation: true }
- rest: { openApi: { specification: relay.yaml } }
- route: { from: { uri: direct:events, steps: [ { to: '${backend}' } ] } }
`,
  });
  return serve([join(dir, 'routes.yaml')], { env: {} });
}

test('an endless event stream from the backend reaches the client as it comes; the client leaving stops the backend call', { timeout: 120_000 }, async () => {
  let backendGone!: () => void;
  const gone = new Promise<void>((resolve) => (backendGone = resolve));
  const backend = await backendServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    // Never ends: only a client reading the events as they pass sees one.
    res.write('data: {"n":0}\n\n');
    res.on('close', backendGone);
  });
  const app = await relay(backend.url);
  try {
    const first = await new Promise<{ type: string | undefined; text: string }>((resolve, reject) => {
      const req = request(`${app.origin}/events`, { headers: { accept: 'text/event-stream' } }, (res) => {
        res.once('data', (chunk: Buffer) => {
          resolve({ type: res.headers['content-type'], text: chunk.toString() });
          req.destroy();
        });
      });
      req.on('error', () => undefined);
      req.once('response', () => undefined);
      req.end();
      req.once('close', () => reject(new Error('closed before an event')));
    });
    assert.deepEqual(first, { type: 'text/event-stream', text: 'data: {"n":0}\n\n' });
    await gone;
  } finally {
    await app.close();
    await backend.close();
  }
});

test('a backend item that does not conform, or cannot be read, cuts the stream: none of its bytes, nor any after, reach the client', { timeout: 120_000 }, async () => {
  for (const [body, logged] of [
    ['{"n":1}\n{"n":-1}\n{"n":2}\n', '/1/n item 1: must be >= 0'],
    ['{"n":1}\n{oops\n', '/1 item 1 is not valid JSON'],
  ] as const) {
    const backend = await backendServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/jsonl' });
      res.end(body);
    });
    const app = await relay(backend.url);
    try {
      // The backend's answer is one chunk: cut before any of it is written, the client may see no head at all.
      const outcome = await new Promise<{ status?: number; text: string; end: string }>((resolve) => {
        const req = request(`${app.origin}/events`, { headers: { accept: 'application/jsonl' } }, (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode, text, end: 'complete' }));
          res.on('error', () => resolve({ status: res.statusCode, text, end: 'cut' }));
          res.on('aborted', () => resolve({ status: res.statusCode, text, end: 'cut' }));
        });
        req.on('error', () => resolve({ text: '', end: 'cut' }));
        req.end();
      });
      assert.ok(outcome.status === undefined || outcome.status === 200, body);
      assert.equal(outcome.end, 'cut', body);
      assert.ok('{"n":1}\n'.startsWith(outcome.text), `${JSON.stringify(outcome.text)}: no byte of item 1 or later is sent`);
      assert.ok(app.logger.lines.some((l) => l.startsWith('ERROR') && l.includes('of the streamed answer does not conform') && l.includes(logged)), app.logger.lines.join('\n'));
    } finally {
      await app.close();
      await backend.close();
    }
  }
});

test('a conforming backend stream passes through byte for byte and ends', async () => {
  const body = '{"n":1}\n{"n":2}\n';
  const backend = await backendServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/jsonl' });
    res.end(body);
  });
  const app = await relay(backend.url);
  try {
    const res = await fetch(`${app.origin}/events`, { headers: { accept: 'application/jsonl' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/jsonl');
    assert.equal(await res.text(), body);
  } finally {
    await app.close();
    await backend.close();
  }
});
