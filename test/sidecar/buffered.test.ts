// When something after `to: http://` needs the answer's body (a later step, a route calling through
// `to: direct:`, response validation), it is read whole: decoded like before, and bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import type { Exchange } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';
import { httpBackend } from './backends.js';

test('a later step reads the answer whole: decoded (gzip) and without Content-Encoding; through to: direct: as well', async () => {
  const target = await httpBackend((_req, res) => res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync('{"compressed":true}')));
  const seen: unknown[] = [];
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getInventory: [{ kind: 'to', uri: `${target.origin}/gz` }, { kind: 'process', fn: (ex: Exchange) => void seen.push(ex.body) }],
      'direct:backend': [{ kind: 'to', uri: `${target.origin}/gz` }],
      getPetById: [{ kind: 'to', uri: 'direct:backend' }, { kind: 'process', fn: (ex: Exchange) => void seen.push(ex.body) }],
    },
  });
  try {
    for (const path of ['/api/v3/store/inventory', '/api/v3/pet/1']) {
      const res = await fetch(`${running.origin}${path}`, { headers: { 'accept-encoding': 'identity' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-encoding'), null, path);
      assert.equal(await res.text(), '{"compressed":true}');
    }
    assert.deepEqual(seen, ['{"compressed":true}', '{"compressed":true}'], 'the steps saw the decoded text');
  } finally {
    await running.close();
    await target.close();
  }
});

test('an answer read whole over svc.backend.maxResponseSize is a 502 naming the limit (after decoding, so no zip bomb); the origin is in the log', async () => {
  const target = await httpBackend((req, res) => {
    const body = Buffer.alloc(5000, 'a');
    if (req.url === '/gz') res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(gzipSync(body));
    else res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  const later = { kind: 'removeHeader' as const, name: 'x-none' };
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    backend: { maxResponseSize: '1KB' },
    routes: { getInventory: [{ kind: 'to', uri: `${target.origin}/plain` }, later], getPetById: [{ kind: 'to', uri: `${target.origin}/gz` }, later], findPetsByStatus: [{ kind: 'to', uri: `${target.origin}/plain` }] },
  });
  try {
    for (const path of ['/api/v3/store/inventory', '/api/v3/pet/1']) {
      const res = await fetch(`${running.origin}${path}`);
      assert.equal(res.status, 502, path);
      assert.equal(((await res.json()) as { detail: string }).detail, 'The backend answered with a body over the limit of 1000 bytes.');
    }
    const logged = running.logger.lines.filter((l) => l.startsWith('ERROR'));
    assert.equal(logged.length, 2);
    for (const line of logged) assert.match(line, new RegExp(`over the limit of 1000 bytes\\. Backend: ${target.origin}\\. Caused by: more than 1000 bytes$`));
    const streamed = await fetch(`${running.origin}/api/v3/pet/findByStatus`);
    assert.equal((await streamed.text()).length, 5000, 'a streamed answer is not held, so not limited');
  } finally {
    await running.close();
    await target.close();
  }
});

test('with request validation on, the body is read and checked first: an invalid one never reaches the backend, a valid one arrives whole', async () => {
  const received: string[] = [];
  const target = await httpBackend((req, res) => {
    let text = '';
    req.setEncoding('utf8').on('data', (c: string) => void (text += c));
    req.on('end', () => {
      received.push(`${req.headers['content-length']} ${text}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end(text);
    });
  });
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { clientRequestValidation: true }, routes: { addPet: [{ kind: 'to', uri: `${target.origin}/pets` }] } });
  try {
    const post = (body: string): Promise<Response> => fetch(`${running.origin}/api/v3/pet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal((await post('{"name":1}')).status, 400);
    const ok = await post('{"name":"rex","photoUrls":[]}');
    assert.equal(ok.status, 200);
    assert.deepEqual(received, ['29 {"name":"rex","photoUrls":[]}']);
  } finally {
    await running.close();
    await target.close();
  }
});
