// Where the three parts of OpenAPI 3.2 support meet, over real HTTP: a QUERY (named by GENOPID) with a
// sequential request body; a sequential response given by a `components/mediaTypes` reference chain (its
// itemSchema checks the route's items, its Example Objects' dataValue and serializedValue feed the mock);
// `in: querystring` in front of the mock; XML nodeType in the mock's synthesized XML.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Exchange } from '../../lib/index.js';
import { serve, tempDir } from '../helpers.js';

const CONTRACT = `
openapi: 3.2.0
info: { title: Seams, version: 1.0.0 }
components:
  mediaTypes:
    Counts:
      itemSchema:
        type: object
        required: [n]
        properties: { n: { type: integer, minimum: 0 } }
      examples:
        data: { dataValue: [{ n: 1 }, { n: 2 }] }
        wire: { serializedValue: "{\\"n\\":7}\\n" }
    CountsAgain:
      $ref: '#/components/mediaTypes/Counts'
  schemas:
    Price:
      type: object
      xml: { name: price }
      required: [currency, amount]
      properties:
        currency: { type: string, enum: [EUR], xml: { nodeType: attribute } }
        amount: { type: integer, minimum: 3, maximum: 3, xml: { nodeType: text } }
paths:
  /counts:
    query:
      requestBody:
        required: true
        content:
          application/jsonl:
            itemSchema: { type: object, required: [q], properties: { q: { type: string } } }
      responses:
        '200':
          description: One count per query
          content:
            application/x-ndjson: { $ref: '#/components/mediaTypes/CountsAgain' }
  /find:
    get:
      operationId: find
      parameters:
        - name: filter
          in: querystring
          required: true
          content:
            application/json:
              schema: { type: object, required: [page], properties: { page: { type: integer, minimum: 1 } } }
      responses:
        '200':
          description: Found
          content:
            application/json: { example: { found: 1 } }
  /price:
    get:
      operationId: price
      responses:
        '200':
          description: A price
          content:
            application/xml: { schema: { $ref: '#/components/schemas/Price' } }
`;

function app(options: { routes?: Record<string, (ex: Exchange) => unknown> } = {}) {
  return serve(
    {
      specification: 'seams.yaml',
      baseDir: tempDir({ 'seams.yaml': CONTRACT }),
      missingOperation: 'mock',
      restConfiguration: { clientRequestValidation: true, clientResponseValidation: true },
      routes: options.routes ?? {},
    },
    { env: {} },
  );
}

const jsonl = (...items: unknown[]) => ({ method: 'QUERY', headers: { 'content-type': 'application/jsonl' }, body: items.map((i) => `${JSON.stringify(i)}\n`).join('') });

test('a QUERY without operationId is direct:GENOPID_QUERY<path>; its sequential body reaches the route item by item and its answer streams', async () => {
  const seen: unknown[] = [];
  const running = await app({
    routes: {
      'GENOPID_QUERY.counts': async (ex) => {
        for await (const item of ex.message.body as AsyncIterable<{ q: string }>) seen.push(item.q);
        ex.message.body = (async function* () {
          for (let n = 0; n < seen.length; n++) yield { n };
        })();
      },
    },
  });
  try {
    assert.ok(running.facade.startupReport.includes('QUERY /counts -> direct:GENOPID_QUERY.counts [route]'), running.facade.startupReport.join('\n'));
    const ok = await fetch(`${running.origin}/counts`, jsonl({ q: 'a' }, { q: 'b' }));
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('content-type'), 'application/x-ndjson');
    assert.equal(await ok.text(), '{"n":0}\n{"n":1}\n');
    assert.deepEqual(seen, ['a', 'b']);
    const bad = await fetch(`${running.origin}/counts`, jsonl({ q: 'a' }, { x: 1 }));
    assert.equal(bad.status, 400);
    assert.deepEqual((await bad.json()).errors, [{ in: 'body', name: 'q', pointer: '/1/q', message: "item 1: must have required property 'q'" }]);
    const none = await fetch(`${running.origin}/counts`, { method: 'QUERY' });
    assert.equal(none.status, 400);
  } finally {
    await running.close();
  }
});

test('the itemSchema of a referenced media type checks a streamed answer: an invalid item cuts the stream', async () => {
  const running = await app({
    routes: {
      'GENOPID_QUERY.counts': (ex) => {
        ex.message.body = (async function* () {
          yield { n: 1 };
          yield { n: -1 };
        })();
      },
    },
  });
  try {
    // node:http, not fetch: undici takes a chunked body cut with `connection: close` for a complete one.
    const outcome = await new Promise<{ status?: number; text: string; end: string }>((resolve, reject) => {
      const req = request(`${running.origin}/counts`, { method: 'QUERY', headers: { 'content-type': 'application/jsonl' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode, text, end: 'complete' }));
        res.on('error', () => resolve({ status: res.statusCode, text, end: 'cut' }));
        res.on('aborted', () => resolve({ status: res.statusCode, text, end: 'cut' }));
      });
      req.on('error', reject);
      req.end('{"q":"a"}\n');
    });
    assert.deepEqual(outcome, { status: 200, text: '{"n":1}\n', end: 'cut' });
    assert.ok(running.logger.lines.some((l) => l.includes('item 1 of the streamed answer does not conform to the contract') && l.includes('/1/n')), running.logger.lines.join('\n'));
  } finally {
    await running.close();
  }
});

test('the mock streams a referenced media type\'s examples: dataValue items framed, serializedValue as is, synthesized items valid for its itemSchema', async () => {
  const running = await app();
  try {
    const first = await fetch(`${running.origin}/counts`, jsonl({ q: 'a' }));
    assert.equal(first.headers.get('content-type'), 'application/x-ndjson');
    assert.equal(await first.text(), '{"n":1}\n{"n":2}\n');
    const wire = await fetch(`${running.origin}/counts`, { ...jsonl({ q: 'a' }), headers: { 'content-type': 'application/jsonl', prefer: 'example=wire' } });
    assert.equal(await wire.text(), '{"n":7}\n');
    const dynamic = await fetch(`${running.origin}/counts`, { ...jsonl({ q: 'a' }), headers: { 'content-type': 'application/jsonl', prefer: 'dynamic=true' } });
    const items = (await dynamic.text()).split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as { n: unknown });
    assert.equal(items.length, 3);
    for (const item of items) assert.ok(Number.isInteger(item.n) && (item.n as number) >= 0, JSON.stringify(item));
  } finally {
    await running.close();
  }
});

test('in: querystring in front of the mock: checked, then the example', async () => {
  const running = await app();
  try {
    const ok = await fetch(`${running.origin}/find?${encodeURIComponent('{"page":2}')}`);
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { found: 1 });
    for (const [query, message] of [
      [encodeURIComponent('{"page":0}'), 'must be >= 1'],
      ['%7B%ZZ', 'is not a valid percent-encoded query string'],
      ['{nope', 'is not valid application/json'],
    ] as const) {
      const bad = await fetch(`${running.origin}/find?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal((await bad.json()).errors[0].message, message, query);
    }
    const missing = await fetch(`${running.origin}/find`);
    assert.equal(missing.status, 400);
    assert.equal((await missing.json()).detail, 'Some of the required query parameters are missing.');
  } finally {
    await running.close();
  }
});

test('the mock synthesizes XML by nodeType: an attribute and the element text', async () => {
  const running = await app();
  try {
    for (const prefer of [undefined, 'dynamic=true']) {
      const res = await fetch(`${running.origin}/price`, { headers: prefer ? { prefer } : {} });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /<price currency="EUR">3<\/price>$/, prefer);
    }
  } finally {
    await running.close();
  }
});
