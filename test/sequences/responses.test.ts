// Answers made of items over real HTTP: a route's async iterable (or generator) is written item by item as it
// produces them, framed per the negotiated sequential media type (JSON Lines, NDJSON, JSON text sequences,
// SSE, multipart/mixed); a client going away ends the iteration; response validation cuts a stream at an
// item that does not conform.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { join } from 'node:path';
import type { Exchange, FacadeObjectConfig } from '../../lib/index.js';
import { rawRequest } from '../fixtures/http.js';
import { ROOT, serve } from '../helpers.js';

const CONTRACT = join(ROOT, 'test/fixtures/streams/streams.yaml');

async function facade(routes: FacadeObjectConfig['routes'], extra: Partial<FacadeObjectConfig> = {}) {
  return serve({ specification: CONTRACT, missingOperation: 'ignore', routes, ...extra });
}

function entries(n: number): (ex: Exchange) => void {
  return (ex) => {
    ex.body = (async function* () {
      for (let i = 0; i < n; i++) yield { level: i, message: `m${i}` };
    })();
  };
}

/** Opens a GET and resolves with the response as soon as its head arrives. */
function open(origin: string, path: string, headers: Record<string, string> = {}): Promise<IncomingMessage> {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, headers, agent: false }, resolve);
    req.on('error', reject);
    req.end();
  });
}

/** Reads from a response until `until` holds for what arrived so far. */
function readUntil(res: IncomingMessage, until: (text: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (c: Buffer): void => {
      text += c.toString('utf8');
      if (until(text)) {
        res.off('data', onData);
        res.pause();
        resolve(text);
      }
    };
    res.on('data', onData);
    res.on('error', reject);
    res.on('end', () => resolve(text));
  });
}

test('an async iterable answer is framed in the negotiated media type: JSON Lines, NDJSON, JSON text sequences', async () => {
  const app = await facade({ tailLogs: entries(3) });
  try {
    const lines = await fetch(`${app.origin}/api/logs`);
    assert.equal(lines.status, 200);
    assert.equal(lines.headers.get('content-type'), 'application/jsonl');
    assert.equal(lines.headers.get('content-length'), null);
    assert.equal(await lines.text(), '{"level":0,"message":"m0"}\n{"level":1,"message":"m1"}\n{"level":2,"message":"m2"}\n');
    const nd = await fetch(`${app.origin}/api/logs`, { headers: { accept: 'application/x-ndjson' } });
    assert.equal(nd.headers.get('content-type'), 'application/x-ndjson');
    assert.equal((await nd.text()).split('\n').length, 4);
    const seq = await fetch(`${app.origin}/api/logs`, { headers: { accept: 'application/json-seq' } });
    assert.equal(seq.headers.get('content-type'), 'application/json-seq');
    assert.equal(await seq.text(), '\x1e{"level":0,"message":"m0"}\n\x1e{"level":1,"message":"m1"}\n\x1e{"level":2,"message":"m2"}\n');
  } finally {
    await app.close();
  }
});

test('SSE: event objects are framed with event, id, retry and data lines; JSON data encoded, multi-line text split', async () => {
  const app = await facade({
    watchPrices: (ex) => {
      ex.body = (function* () {
        yield { event: 'tick', id: '1', retry: 3000, data: { symbol: 'ACME', price: 12.5 } };
        yield { comment: 'keep-alive' };
        yield { event: 'close', id: 'a\nb', data: 'last\nwords' };
      })();
    },
  });
  try {
    const res = await fetch(`${app.origin}/api/prices`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/event-stream');
    assert.equal(res.headers.get('cache-control'), 'no-cache');
    assert.equal(
      await res.text(),
      'event: tick\nid: 1\nretry: 3000\ndata: {"symbol":"ACME","price":12.5}\n\n' + ': keep-alive\n\n' + 'event: close\nid: ab\ndata: last\ndata: words\n\n',
    );
  } finally {
    await app.close();
  }
});

test('items are written as the route produces them, each before the next is made', async () => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const app = await facade({
    watchPrices: (ex) => {
      ex.body = (async function* () {
        yield { event: 'tick', data: { symbol: 'A', price: 1 } };
        await released; // the second event waits until the client has the first
        yield { event: 'tick', data: { symbol: 'B', price: 2 } };
      })();
    },
  });
  try {
    const res = await open(app.origin, '/api/prices');
    assert.equal(res.statusCode, 200);
    const first = await readUntil(res, (text) => text.endsWith('\n\n'));
    assert.equal(first, 'event: tick\ndata: {"symbol":"A","price":1}\n\n');
    release();
    res.resume();
    assert.equal(await readUntil(res, () => false), 'event: tick\ndata: {"symbol":"B","price":2}\n\n');
  } finally {
    await app.close();
  }
});

test('an infinite generator is stopped (return()) when the client goes away', async () => {
  let stopped!: (produced: number) => void;
  const whenStopped = new Promise<number>((resolve) => (stopped = resolve));
  const app = await facade({
    watchPrices: (ex) => {
      ex.body = (async function* () {
        let n = 0;
        try {
          for (;;) {
            await new Promise((resolve) => setImmediate(resolve));
            yield { id: String(n++), data: { symbol: 'A', price: n } };
          }
        } finally {
          stopped(n);
        }
      })();
    },
  });
  try {
    const res = await open(app.origin, '/api/prices');
    await readUntil(res, (text) => text.split('\n\n').length > 3);
    res.destroy();
    const produced = await whenStopped;
    assert.ok(produced >= 3);
    // The facade still answers.
    assert.equal((await fetch(`${app.origin}/api/logs`, { method: 'POST', headers: { 'content-type': 'application/jsonl' }, body: '' })).status, 204);
  } finally {
    await app.close();
  }
});

test('response validation checks each item; one that does not conform cuts the stream, after the ones before it', async () => {
  const app = await facade(
    {
      tailLogs: (ex) => {
        ex.body = (async function* () {
          yield { level: 1, message: 'fine' };
          yield { level: -1, message: 'negative' };
          yield { level: 2, message: 'never sent' };
        })();
      },
    },
    { restConfiguration: { clientResponseValidation: true } },
  );
  try {
    const res = await open(app.origin, '/api/logs');
    assert.equal(res.statusCode, 200);
    let text = '';
    const outcome = await new Promise<string>((resolve) => {
      res.on('data', (c: Buffer) => (text += c));
      res.on('end', () => resolve('ended'));
      res.on('error', () => resolve('cut'));
      res.on('aborted', () => resolve('cut'));
    });
    assert.equal(outcome, 'cut');
    assert.equal(text, '{"level":1,"message":"fine"}\n');
    assert.ok(app.logger.lines.some((l) => l.startsWith('ERROR') && l.includes('item 1 of the streamed answer does not conform') && l.includes('/1/level')), app.logger.lines.join('\n'));
  } finally {
    await app.close();
  }
});

test('an array answer is framed in a sequential type the route sets or the client negotiates; a sequential request can be streamed back', async () => {
  const app = await facade({
    tailLogs: (ex) => {
      const as = ex.header('as');
      if (as === 'json') ex.message.headers.set('Content-Type', 'application/json');
      else if (as === undefined) ex.message.headers.set('Content-Type', 'application/x-ndjson');
      ex.body = [{ level: 1, message: 'a' }, { level: 2, message: 'b' }];
    },
    // The route leaves the request's items as the body: they are written back as they are read.
    echoLines: () => undefined,
  });
  try {
    const res = await fetch(`${app.origin}/api/logs`);
    assert.equal(res.headers.get('content-type'), 'application/x-ndjson');
    assert.equal(await res.text(), '{"level":1,"message":"a"}\n{"level":2,"message":"b"}\n');
    // Without a Content-Type from the route, the negotiated (declared) type frames it; the route's own JSON type keeps a JSON array.
    const negotiated = await fetch(`${app.origin}/api/logs?as=array`, { headers: { accept: 'application/json-seq' } });
    assert.equal(negotiated.headers.get('content-type'), 'application/json-seq');
    assert.equal(await negotiated.text(), '\x1e{"level":1,"message":"a"}\n\x1e{"level":2,"message":"b"}\n');
    const json = await fetch(`${app.origin}/api/logs?as=json`);
    assert.equal(json.headers.get('content-type'), 'application/json');
    assert.deepEqual(await json.json(), [{ level: 1, message: 'a' }, { level: 2, message: 'b' }]);
    const echo = await fetch(`${app.origin}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/jsonl' }, body: '{"level":1,"message":"a"}\n\n{ "level": 2, "message": "b" }' });
    assert.equal(echo.status, 200);
    assert.equal(echo.headers.get('content-type'), 'application/jsonl');
    assert.equal(await echo.text(), '{"level":1,"message":"a"}\n{"level":2,"message":"b"}\n');
  } finally {
    await app.close();
  }
});

test('multipart/mixed answers: one part per item, with its own Content-Type, and the closing boundary', async () => {
  const app = await facade({
    sendParts: (ex) => {
      ex.body = (async function* () {
        yield { name: 'json' };
        yield 'text';
        yield Buffer.from([1, 2, 3]);
      })();
    },
  });
  try {
    const res = await fetch(`${app.origin}/api/parts`, { method: 'POST' });
    const type = res.headers.get('content-type')!;
    const boundary = /^multipart\/mixed; boundary=(\S+)$/.exec(type)?.[1];
    assert.ok(boundary, type);
    const body = Buffer.from(await res.arrayBuffer()).toString('latin1');
    assert.equal(
      body,
      `--${boundary}\r\nContent-Type: application/json\r\n\r\n{"name":"json"}\r\n` +
        `--${boundary}\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ntext\r\n` +
        `--${boundary}\r\nContent-Type: application/octet-stream\r\n\r\n\x01\x02\x03\r\n--${boundary}--\r\n`,
    );
  } finally {
    await app.close();
  }
});

test('HEAD of a stream answers its head only and never runs the generator', async () => {
  let started = false;
  const app = await facade({
    watchPrices: (ex) => {
      ex.body = (async function* () {
        started = true;
        yield { data: { symbol: 'A', price: 1 } };
      })();
    },
  });
  try {
    const res = await rawRequest(app.origin, '/api/prices', { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-type'], 'text/event-stream');
    assert.equal(res.body, '');
    assert.equal(started, false);
  } finally {
    await app.close();
  }
});

test('metrics and the access log count streamed answers', async () => {
  const app = await facade({ tailLogs: entries(2) }, { observe: { accessLog: true } });
  try {
    assert.equal((await (await fetch(`${app.origin}/api/logs`)).text()).split('\n').length, 3);
    const metrics = await (await fetch(`${app.origin}/observe/metrics`)).text();
    assert.match(metrics, /svc_http_requests_total\{[^}]*operationId="tailLogs"[^}]*status_class="2xx"[^}]*\} 1\n/);
    assert.ok(app.logger.lines.some((l) => l.includes('GET /api/logs') && l.includes('200')), app.logger.lines.join('\n'));
  } finally {
    await app.close();
  }
});

test('a route can answer items while it reads those of the request: an invalid request item then cuts the answer', async () => {
  const app = await facade(
    {
      echoLines: (ex) => {
        const lines = ex.body as AsyncIterable<{ level: number; message: string }>;
        ex.body = (async function* () {
          for await (const line of lines) yield { ...line, message: line.message.toUpperCase() };
        })();
      },
    },
    { restConfiguration: { clientRequestValidation: true } },
  );
  try {
    const good = await fetch(`${app.origin}/api/echo`, { method: 'POST', headers: { 'content-type': 'application/jsonl' }, body: '{"level":1,"message":"a"}\n{"level":2,"message":"b"}\n' });
    assert.equal(good.status, 200);
    assert.equal(await good.text(), '{"level":1,"message":"A"}\n{"level":2,"message":"B"}\n');
    const { port } = new URL(app.origin);
    const cut = await new Promise<{ text: string; outcome: string }>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/api/echo', method: 'POST', headers: { 'content-type': 'application/jsonl' }, agent: false }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve({ text, outcome: 'ended' }));
        res.on('error', () => resolve({ text, outcome: 'cut' }));
        res.on('aborted', () => resolve({ text, outcome: 'cut' }));
      });
      req.on('error', reject);
      req.end('{"level":1,"message":"a"}\n{"level":2,"message":"b"}\n{"level":-3,"message":"c"}\n{"level":4,"message":"d"}\n');
    });
    assert.deepEqual(cut, { text: '{"level":1,"message":"A"}\n{"level":2,"message":"B"}\n', outcome: 'cut' });
    assert.ok(app.logger.lines.some((l) => l.startsWith('WARN') && l.includes('stopped at item 2')), app.logger.lines.join('\n'));
  } finally {
    await app.close();
  }
});
