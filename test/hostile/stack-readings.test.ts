// Query names other stacks read as a declared parameter: PHP drops leading blanks, cuts at NUL and makes `.`
// and blanks `_`; Spring's binder takes `_status` and `!status` for `status`; ASP.NET ignores letter case;
// Rails, Rack and qs read `status[]`. With validation each is a 400 naming it and the backend gets nothing;
// a name holding a control character is a 400 whatever is declared. Ordinary names still pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, tempDir } from '../helpers.js';
import { rawBackend, rawGet } from './raw-peers.js';

const CONTRACT = `openapi: 3.0.3
info: { title: orders, version: '1' }
paths:
  /orders:
    get:
      operationId: listOrders
      parameters:
        - { name: status, in: query, schema: { type: string, enum: [open, closed] } }
        - { name: sort_by, in: query, schema: { type: string, enum: [date] } }
      responses: { '200': { description: ok } }
  /ping:
    get:
      operationId: ping
      responses: { '200': { description: ok } }
`;

const READ_AS: [string, string, string][] = [
  ['status=open&status%00=evil', 'status\u0000', 'control'],
  ['status%00x=evil', 'status\u0000x', 'control'],
  ['%20status=evil', ' status', 'query parameter status'],
  ['+status=evil', ' status', 'query parameter status'],
  ['status%20=evil', 'status ', 'query parameter status'],
  ['%09status=evil', '\tstatus', 'control'],
  ['sort.by=evil', 'sort.by', 'query parameter sort_by'],
  ['sort+by=evil', 'sort by', 'query parameter sort_by'],
  ['Sort.By=evil', 'Sort.By', 'query parameter sort_by'],
  ['_status=evil', '_status', 'query parameter status'],
  ['!status=evil', '!status', 'query parameter status'],
  ['STATUS=evil', 'STATUS', 'query parameter status'],
  ['status[]=evil', 'status[]', 'query parameter status'],
];

test('validation on: names PHP, Spring, ASP.NET, Rails or qs read as a declared parameter are a 400 naming them; control characters always', async () => {
  const backend = await rawBackend();
  const dir = tempDir({ 'openapi.yaml': CONTRACT });
  const routes = { listOrders: [{ kind: 'to' as const, uri: `${backend.origin}/orders` }], ping: [{ kind: 'to' as const, uri: `${backend.origin}/ping` }] };
  const running = await serve({ specification: join(dir, 'openapi.yaml'), restConfiguration: { clientRequestValidation: true }, routes });
  try {
    for (const [query, name, what] of READ_AS) {
      const answer = await rawGet(running.origin, `/orders?${query}`);
      assert.equal(answer.status, 400, `${query}: ${answer.body}`);
      const errors = JSON.parse(answer.body).errors as { in: string; name: string; message: string }[];
      const named = errors.find((e) => e.name === name);
      assert.ok(named !== undefined, `${query}: ${answer.body}`);
      assert.equal(named.in, 'query');
      assert.match(named.message, what === 'control' ? /control character/ : new RegExp(`declared ${what}`), query);
    }
    for (const query of ['x%01y=1', 'a%0Ab=1', 'a%7F=1']) {
      const answer = await rawGet(running.origin, `/ping?${query}`);
      assert.equal(answer.status, 400, `${query} on an operation without parameters: ${answer.body}`);
      assert.match(answer.body, /control character/);
    }
    assert.equal(backend.received.length, 0, 'nothing was forwarded');
    const ordinary = await rawGet(running.origin, '/orders?status=open&sort_by=date&_=1700000000&other.thing=1&page%20size=2&x=%00%0A');
    assert.equal(ordinary.status, 200, ordinary.body);
    assert.equal(backend.received.length, 1);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('validation off: those names never become the declared parameter\'s header', async () => {
  const backend = await rawBackend();
  const dir = tempDir({ 'openapi.yaml': CONTRACT });
  const running = await serve({ specification: join(dir, 'openapi.yaml'), routes: { listOrders: [{ kind: 'to', uri: `${backend.origin}/orders` }], ping: [{ kind: 'to', uri: `${backend.origin}/ping` }] } });
  try {
    const answer = await rawGet(running.origin, '/orders?status=open&status%00=evil&_status=evil&+status=evil&sort.by=evil');
    assert.equal(answer.status, 200);
    const received = backend.received[0]!;
    assert.equal(received.field('status'), 'open', received.bytes);
    assert.equal(received.field('sort.by'), undefined, received.bytes);
    assert.equal(received.field('_status'), undefined, received.bytes);
  } finally {
    await running.close();
    await backend.close();
  }
});
