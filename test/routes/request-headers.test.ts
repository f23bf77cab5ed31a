// The exchange headers a request gives a route are filled in lazily: a name read before the fill (answered
// from the request alone) must have the value it has after it, for every kind of name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Exchange } from '../../lib/index.js';
import { serve, tempDir } from '../helpers.js';

/** Each is read first (before anything fills the exchange's headers), in a request of its own. */
const NAMES = ['SvcHttpMethod', 'SvcHttpPath', 'SvcHttpUri', 'SvcHttpQuery', 'content-type', 'authorization', 'cookie', 'accept', 'x-request-id', 'traceparent', 'tracestate', 'x-missing', 'kind'];

function contract(): string {
  const dir = tempDir({
    'api.json': JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'headers', version: '1' },
      servers: [{ url: '/base' }],
      paths: {
        '/things/{id}': {
          post: {
            operationId: 'postThing',
            parameters: [
              { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
              // A query parameter named like a request field: its default fills the field only when absent.
              { name: 'cookie', in: 'query', schema: { type: 'string', default: 'from-default' } },
              { name: 'kind', in: 'query', schema: { type: 'string', default: 'plain' } },
            ],
            requestBody: { content: { 'text/plain': { schema: { type: 'string' } } } },
            responses: { '200': { description: 'ok' } },
          },
        },
      },
    }),
  });
  return join(dir, 'api.json');
}

/** The name the request asks about (`x-read`, taken from the request itself) read first, then all names after a fill. */
function readBothWays(ex: Exchange): void {
  const name = String(ex.request!.headers['x-read']);
  const first = ex.header(name);
  ex.message.body = JSON.stringify({ first: first ?? null, filled: ex.message.headers.toObject() });
  ex.message.headers.set('content-type', 'application/json');
}

test('a name read before the fill has the value the fill gives it (SvcHttp*, request fields, defaults, request id, trace context)', async () => {
  const running = await serve({ specification: contract(), routes: { postThing: readBothWays } });
  try {
    const requests: { query: string; headers: Record<string, string> }[] = [
      { query: '?authorization=Bearer%20forged&content-type=text%2Fevil&x-request-id=forged', headers: { authorization: 'Bearer real', 'content-type': 'text/plain', accept: 'application/json', cookie: 'session=1', traceparent: 'not-a-trace', tracestate: 'a=1' } },
      { query: '', headers: { 'content-type': 'text/plain', 'x-request-id': 'client-id-7', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' } },
      { query: '?kind=odd&SvcHttpPath=/forged', headers: { 'content-type': 'text/plain' } },
    ];
    for (const { query, headers } of requests) {
      const seen: Record<string, unknown> = {};
      for (const name of NAMES) {
        const res = await fetch(`${running.origin}/base/things/42${query}`, { method: 'POST', headers: { ...headers, 'x-read': name }, body: 'hello' });
        assert.equal(res.status, 200);
        const { first, filled } = (await res.json()) as { first: unknown; filled: Record<string, unknown> };
        assert.deepEqual(first, filled[name.toLowerCase()] ?? null, `${name} with ${query} ${JSON.stringify(headers)}`);
        seen[name] = name === 'x-request-id' ? first === res.headers.get('x-request-id') : first;
      }
      assert.equal(seen['SvcHttpPath'], '/things/42');
      assert.equal(seen['SvcHttpUri'], '/base/things/42');
      assert.equal(seen['x-request-id'], true, 'the id the response carries');
      assert.equal(seen['content-type'], 'text/plain', 'a query parameter never poses as a request field');
      assert.equal(seen.authorization, headers.authorization ?? null);
      assert.equal(seen.cookie, headers.cookie ?? 'from-default', "a request field's query default applies only when the field is absent");
      // Only a trace context that parses is passed on, with its tracestate.
      assert.equal(seen.traceparent, headers.traceparent === 'not-a-trace' ? null : (headers.traceparent ?? null));
      assert.equal(seen.tracestate, headers.traceparent === 'not-a-trace' ? null : (headers.tracestate ?? null));
    }
  } finally {
    await running.close();
  }
});
