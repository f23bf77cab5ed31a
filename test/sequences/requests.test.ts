// OpenAPI 3.2 sequential request bodies over real HTTP: JSON Lines, NDJSON, JSON text sequences, SSE and
// multipart/mixed reach the route as an async iterable of parsed items, read as they arrive, each checked
// against `itemSchema`; a violation or a malformed frame is a 400 naming the item's 0-based index.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Exchange, FacadeObjectConfig } from '../../lib/index.js';
import { ROOT, serve, tempDir } from '../helpers.js';

const CONTRACT = join(ROOT, 'test/fixtures/streams/streams.yaml');
const LOGS = '/api/logs';

/** A route that reads every item and answers how many, remembering what it saw. */
function counting(seen: unknown[]): (ex: Exchange) => Promise<void> {
  return async (ex) => {
    for await (const item of ex.body as AsyncIterable<unknown>) seen.push(item);
    ex.body = { count: seen.length };
  };
}

async function facade(routes: FacadeObjectConfig['routes'], extra: Partial<FacadeObjectConfig> = {}, validate = true) {
  return serve({ specification: CONTRACT, missingOperation: 'ignore', restConfiguration: { clientRequestValidation: validate }, routes, ...extra });
}

function post(origin: string, path: string, contentType: string, body: string | Buffer): Promise<Response> {
  return fetch(origin + path, { method: 'POST', headers: { 'content-type': contentType }, body });
}

test('JSON Lines, NDJSON and JSON text sequences reach the route as parsed items', async () => {
  const seen: unknown[] = [];
  const app = await facade({ importLogs: counting(seen) });
  try {
    const lines = '{"level":1,"message":"a"}\r\n\n{"level":2,"message":"b"}';
    for (const type of ['application/jsonl', 'application/x-ndjson; charset=utf-8']) {
      seen.length = 0;
      const res = await post(app.origin, LOGS, type, lines);
      assert.equal(res.status, 200, type);
      assert.deepEqual(await res.json(), { count: 2 });
      assert.deepEqual(seen, [{ level: 1, message: 'a' }, { level: 2, message: 'b' }]);
    }
    seen.length = 0;
    // RFC 7464: each text after a Record Separator; a text may span lines; RS RS is no empty item.
    const seq = await post(app.origin, LOGS, 'application/json-seq', '\x1e{"level":1,\n "message":"a"}\n\x1e\x1e{"level":2,"message":"b"}\n');
    assert.equal(seq.status, 200);
    assert.deepEqual(seen, [{ level: 1, message: 'a' }, { level: 2, message: 'b' }]);
  } finally {
    await app.close();
  }
});

test('an item that violates itemSchema is a 400 naming its index; the route saw the items before it', async () => {
  const seen: unknown[] = [];
  const app = await facade({ importLogs: counting(seen) });
  try {
    const body = ['{"level":1,"message":"a"}', '{"level":2,"message":"b"}', '{"level":-1,"message":"c"}', '{"level":3,"message":"d"}'].join('\n');
    const res = await post(app.origin, LOGS, 'application/jsonl', body);
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    const problem = (await res.json()) as { detail: string; errors: { in: string; name: string; pointer: string; message: string }[] };
    assert.equal(problem.detail, 'The request does not conform to the contract.');
    assert.deepEqual(problem.errors, [{ in: 'body', name: 'level', pointer: '/2/level', message: 'item 2: must be >= 0' }]);
    assert.equal(seen.length, 2);
    // A missing required property names the item too.
    const missing = await post(app.origin, LOGS, 'application/x-ndjson', '{"level":1,"message":"a"}\n{"level":1}\n');
    assert.equal(missing.status, 400);
    assert.equal(((await missing.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer, '/1/message');
  } finally {
    await app.close();
  }
});

test('malformed lines and frames are a clear 400, with or without validation', async () => {
  for (const validate of [true, false]) {
    const app = await facade({ importLogs: counting([]), sendPrices: counting([]), sendParts: counting([]) }, {}, validate);
    try {
      const broken = await post(app.origin, LOGS, 'application/jsonl', '{"level":1,"message":"a"}\n{"level":2,\n');
      assert.equal(broken.status, 400);
      const problem = (await broken.json()) as { detail: string; errors: { pointer: string; message: string }[] };
      assert.equal(problem.detail, 'Invalid JSon payload.');
      assert.equal(problem.errors[0]!.pointer, '/1');
      assert.match(problem.errors[0]!.message, /^item 1 is not valid JSON/);

      const noSeparator = await post(app.origin, LOGS, 'application/json-seq', '{"level":1,"message":"a"}\n');
      assert.equal(noSeparator.status, 400);
      assert.match(((await noSeparator.json()) as { errors: { message: string }[] }).errors[0]!.message, /Record Separator/);

      const noBoundary = await post(app.origin, '/api/parts', 'multipart/mixed', '--x\r\n\r\n{}\r\n--x--\r\n');
      assert.equal(noBoundary.status, 400);
      const unclosed = await post(app.origin, '/api/parts', 'multipart/mixed; boundary=x', '--x\r\nContent-Type: application/json\r\n\r\n{"name":"a"}');
      assert.equal(unclosed.status, 400);
      assert.match(((await unclosed.json()) as { errors: { message: string }[] }).errors[0]!.message, /closing boundary/);
    } finally {
      await app.close();
    }
  }
});

test('Server-Sent Events are parsed as the WHATWG standard says: data lines joined, comments and unknown fields ignored', async () => {
  const seen: unknown[] = [];
  const app = await facade({ sendPrices: counting(seen) });
  try {
    const body = [
      'event: tick', 'data: {"symbol":"A",', 'data: "price":2}', 'retry: 5', 'unknown: ignored', '',
      ': a comment', 'id: 7', 'data:{"symbol":"B","price":3}', '', 'retry: 10', '', // no data: no event
      'data: {"symbol":"C","price":4}', // the last event may end with the body
    ].join('\r\n');
    const res = await post(app.origin, '/api/prices', 'text/event-stream', body);
    assert.equal(res.status, 200);
    assert.deepEqual(seen, [
      { data: '{"symbol":"A",\n"price":2}', event: 'tick', retry: 5 },
      { data: '{"symbol":"B","price":3}', id: '7' },
      { data: '{"symbol":"C","price":4}' },
    ]);
    // `data` is text on the wire; its JSON is checked against the schema of `data` (item 1's price).
    const bad = await post(app.origin, '/api/prices', 'text/event-stream', 'data: {"symbol":"A","price":1}\n\ndata: {"symbol":"A","price":-1}\n\n');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer, '/1/data/price');
  } finally {
    await app.close();
  }
});

test('multipart/mixed parts are items: JSON parsed, text as a string, each checked', async () => {
  const seen: unknown[] = [];
  const app = await facade({ sendParts: counting(seen) }, {}, false);
  try {
    const body = 'preamble\r\n--b1\r\nContent-Type: application/json\r\n\r\n{"name":"a"}\r\n--b1\r\n\r\nplain text\r\n--b1\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n--b1--\r\n';
    const res = await post(app.origin, '/api/parts', 'multipart/mixed; boundary=b1', Buffer.from(body, 'latin1'));
    assert.equal(res.status, 200);
    assert.deepEqual(seen.slice(0, 2), [{ name: 'a' }, 'plain text']);
    assert.deepEqual(seen[2], Buffer.from('\x89PNG', 'latin1'));
  } finally {
    await app.close();
  }
});

test('items reach the route as they arrive, before the client has sent the rest', async () => {
  let firstSeen!: () => void;
  const first = new Promise<void>((resolve) => (firstSeen = resolve));
  const seen: unknown[] = [];
  const app = await facade({
    importLogs: async (ex) => {
      for await (const item of ex.body as AsyncIterable<unknown>) {
        seen.push(item);
        if (seen.length === 1) firstSeen();
      }
      ex.body = { count: seen.length };
    },
  });
  try {
    const { port } = new URL(app.origin);
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: LOGS, method: 'POST', headers: { 'content-type': 'application/jsonl', 'transfer-encoding': 'chunked' } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: text }));
      });
      req.on('error', reject);
      req.write('{"level":1,"message":"first"}\n');
      // The second line is sent only once the route has the first item.
      void first.then(() => req.end('{"level":2,"message":"second"}\n'));
    });
    const res = await answer;
    assert.equal(res.status, 200);
    assert.deepEqual(JSON.parse(res.body), { count: 2 });
  } finally {
    await app.close();
  }
});

test('the body limit applies to the whole sequence and the item cap to each item (413)', async () => {
  const app = await facade({ importLogs: counting([]) }, { server: { maxBodySize: 300, maxItemSize: 64 } });
  try {
    const line = '{"level":1,"message":"a"}\n';
    const tooMany = await post(app.origin, LOGS, 'application/jsonl', line.repeat(20));
    assert.equal(tooMany.status, 413);
    assert.equal(((await tooMany.json()) as { detail: string }).detail, 'The request body exceeds the limit of 300 bytes.');
    const big = await post(app.origin, LOGS, 'application/jsonl', `${line}{"level":1,"message":"${'x'.repeat(100)}"}\n`);
    assert.equal(big.status, 413);
    const problem = (await big.json()) as { detail: string; errors: { pointer: string }[] };
    assert.equal(problem.detail, 'Item 1 of the request body exceeds the limit of 64 bytes for one item.');
    assert.equal(problem.errors[0]!.pointer, '/1');
  } finally {
    await app.close();
  }
});

test('items the route leaves unread are still checked before its answer', async () => {
  const app = await facade({ importLogs: (ex) => void (ex.body = { count: 0 }) });
  try {
    const bad = await post(app.origin, LOGS, 'application/jsonl', '{"level":1,"message":"a"}\n{"level":1,"message":"b"}\n{"level":"x","message":"c"}\n');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer, '/2/level');
    const good = await post(app.origin, LOGS, 'application/jsonl', '{"level":1,"message":"a"}\n');
    assert.equal(good.status, 200);
    assert.deepEqual(await good.json(), { count: 0 });
  } finally {
    await app.close();
  }
});

test('a 3.2 `schema` on a sequential type is the whole sequence as an array (checked when a request ends)', async () => {
  const app = await facade({
    importExcerpt: async (ex) => {
      await (ex.body as { collect(): Promise<unknown[]> }).collect();
      ex.body = undefined;
    },
  });
  try {
    const line = '{"level":1,"message":"a"}\n';
    assert.equal((await post(app.origin, '/api/logs/excerpt', 'application/jsonl', line.repeat(2))).status, 204);
    const tooMany = await post(app.origin, '/api/logs/excerpt', 'application/jsonl', line.repeat(3));
    assert.equal(tooMany.status, 400);
    assert.equal(((await tooMany.json()) as { errors: { message: string }[] }).errors[0]!.message, 'must NOT have more than 2 items');
  } finally {
    await app.close();
  }
});

test('a YAML route sees the items as an array where a step reads the body', async () => {
  const dir = tempDir({
    'config.yaml': [
      '- rest:',
      '    openApi:',
      `      specification: ${CONTRACT}`,
      '      missingOperation: ignore',
      '- route:',
      '    from:',
      '      uri: direct:importLogs',
      '      steps:',
      "        - setHeader: { name: X-Second, simple: '${body[1].message}' }",
      "        - setBody: { simple: '${body}' }",
    ].join('\n'),
  });
  const app = await serve([join(dir, 'config.yaml')]);
  try {
    const res = await post(app.origin, LOGS, 'application/jsonl', '{"level":1,"message":"a"}\n{"level":2,"message":"b"}\n');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-second'), 'b');
    assert.deepEqual(await res.json(), [{ level: 1, message: 'a' }, { level: 2, message: 'b' }]);
  } finally {
    await app.close();
  }
});

test('a route that forwards the body to a backend sends the bytes as they were, after checking each item', async () => {
  const received: string[] = [];
  const backend = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c));
    req.on('end', () => {
      received.push(`${req.headers['content-type']} ${text}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"count":2}');
    });
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const app = await facade({ importLogs: [{ kind: 'to', uri: `http://127.0.0.1:${(backend.address() as AddressInfo).port}/import` }] });
  try {
    const body = '{"level":1, "message":"a"}\n{"level":2,"message":"b"}\n';
    const res = await post(app.origin, LOGS, 'application/jsonl', body);
    assert.equal(res.status, 200);
    assert.deepEqual(received, [`application/jsonl ${body}`]);
    const bad = await post(app.origin, LOGS, 'application/jsonl', '{"level":1,"message":"a"}\n{"level":2}\n');
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { errors: { pointer: string }[] }).errors[0]!.pointer, '/1/message');
    const malformed = await post(app.origin, LOGS, 'application/jsonl', '{"level":1,"message":"a"}\n{"level":\n');
    assert.equal(malformed.status, 400);
    assert.equal(((await malformed.json()) as { detail: string }).detail, 'Invalid JSon payload.');
    assert.equal(received.length, 1);
  } finally {
    await app.close();
    backend.close();
  }
});
