// The mock's answers in sequential media types: an Example Object's `serializedValue` as is, an example
// array framed item by item, else a few items synthesized from `itemSchema`; each a finite stream that ends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ROOT, serve } from '../helpers.js';

const CONTRACT = join(ROOT, 'test/fixtures/streams/streams.yaml');

/** The events of an SSE body (blank-line separated), each as its `field: value` lines. */
function events(text: string): Record<string, string>[] {
  return text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)])));
}

test('a serializedValue is sent as is; an example array is framed item by item', async () => {
  const app = await serve({ specification: CONTRACT, missingOperation: 'mock' });
  try {
    const lines = await fetch(`${app.origin}/api/mock/logs`);
    assert.equal(lines.status, 200);
    assert.equal(lines.headers.get('content-type'), 'application/jsonl');
    assert.equal(await lines.text(), '{"level":1,"message":"Hi!"}\n{"level":1,"message":"Bye!"}\n');
    for (const prefer of ['example=two', 'example=no-such-example']) {
      const named = await fetch(`${app.origin}/api/mock/logs`, { headers: { prefer } });
      assert.equal(await named.text(), '{"level":1,"message":"Hi!"}\n{"level":1,"message":"Bye!"}\n', prefer);
    }
    const seq = await fetch(`${app.origin}/api/mock/logs`, { headers: { accept: 'application/json-seq' } });
    assert.equal(seq.headers.get('content-type'), 'application/json-seq');
    assert.equal(await seq.text(), '\x1e{"level":2,"message":"first"}\n\x1e{"level":3,"message":"second"}\n');
  } finally {
    await app.close();
  }
});

test('without an example, three events are synthesized from itemSchema, each valid for it', async () => {
  const app = await serve({ specification: CONTRACT, missingOperation: 'mock' });
  try {
    const res = await fetch(`${app.origin}/api/mock/prices`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    const sent = events(await res.text());
    assert.equal(sent.length, 3);
    for (const event of sent) {
      assert.ok(['tick', 'close'].includes(event.event!), JSON.stringify(event));
      const data = JSON.parse(event.data!) as { symbol: unknown; price: number };
      assert.equal(data.symbol, 'ACME'); // the property's example
      assert.equal(data.price, 12.5);
    }
    // Dynamic mode makes fresh items, still valid: a request-validating facade accepts them sent back.
    const dynamic = events(await (await fetch(`${app.origin}/api/mock/prices`, { headers: { prefer: 'dynamic=true, seed=7' } })).text());
    assert.equal(dynamic.length, 3);
    const again = events(await (await fetch(`${app.origin}/api/mock/prices`, { headers: { prefer: 'dynamic=true, seed=7' } })).text());
    assert.deepEqual(again, dynamic);
    for (const event of dynamic) assert.ok((JSON.parse(event.data!) as { price: number }).price >= 0);
  } finally {
    await app.close();
  }
});

test('mocked streams pass the facade’s own request validation when sent back', async () => {
  const app = await serve({ specification: CONTRACT, missingOperation: 'mock', restConfiguration: { clientRequestValidation: true } });
  try {
    const body = await (await fetch(`${app.origin}/api/mock/prices`, { headers: { prefer: 'dynamic=true, seed=3' } })).text();
    // sendPrices is mocked too: its body is read whole and each event checked against the same itemSchema.
    const res = await fetch(`${app.origin}/api/prices`, { method: 'POST', headers: { 'content-type': 'text/event-stream' }, body });
    assert.equal(res.status, 200, await res.clone().text());
    const bad = await fetch(`${app.origin}/api/prices`, { method: 'POST', headers: { 'content-type': 'text/event-stream' }, body: `${body}data: {"symbol":"A"}\n\n` });
    assert.equal(bad.status, 400);
    assert.deepEqual(((await bad.json()) as { errors: { pointer: string }[] }).errors.map((e) => e.pointer), ['/3/data/price']);
  } finally {
    await app.close();
  }
});
