// Query names other stacks read as a declared parameter: PHP drops leading blanks, cuts at NUL and makes `.`
// and blanks `_`; Spring's binder takes `_status` and `!status` for `status`; ASP.NET ignores letter case;
// Rails, Rack and qs read `status[]`. With validation each is a 400 naming it and the backend gets nothing;
// a name holding a control character is a 400 whatever is declared. Ordinary names still pass.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, tempDir } from '../helpers.js';
import { rawBackend, rawGet, rawSend } from './raw-peers.js';

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
    post:
      operationId: createOrder
      requestBody:
        required: true
        content:
          application/x-www-form-urlencoded:
            schema: { type: object, properties: { role: { type: string, enum: [user] }, sort_by: { type: string }, tags: { type: array, items: { type: string } } } }
          multipart/form-data:
            schema: { type: object, properties: { role: { type: string, enum: [user] } } }
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
  const running = await serve({ specification: join(dir, 'openapi.yaml'), missingOperation: 'ignore', restConfiguration: { clientRequestValidation: true }, routes });
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
  const running = await serve({ specification: join(dir, 'openapi.yaml'), missingOperation: 'ignore', routes: { listOrders: [{ kind: 'to', uri: `${backend.origin}/orders` }], ping: [{ kind: 'to', uri: `${backend.origin}/ping` }] } });
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

test('validation on: form field names other stacks read as a declared property are a 400 naming them, in urlencoded and multipart bodies', async () => {
  const backend = await rawBackend();
  const dir = tempDir({ 'openapi.yaml': CONTRACT });
  const running = await serve({ specification: join(dir, 'openapi.yaml'), restConfiguration: { clientRequestValidation: true }, routes: { createOrder: [{ kind: 'to', uri: `${backend.origin}/orders` }], listOrders: [{ kind: 'to', uri: `${backend.origin}/orders` }], ping: [{ kind: 'to', uri: `${backend.origin}/ping` }] } });
  const send = (contentType: string, body: string) => rawSend(running.origin, `POST /orders HTTP/1.1\r\nHost: x\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  const FORM = 'application/x-www-form-urlencoded';
  try {
    for (const [body, name] of [['role=user&role%00=admin', 'role\u0000'], ['role=user&+role=admin', ' role'], ['role=user&_role=admin', '_role'], ['role=user&!role=admin', '!role'], ['role=user&ROLE=admin', 'ROLE'], ['sort.by=x', 'sort.by'], ['a%0Ab=1', 'a\nb']] as const) {
      const answer = await send(FORM, body);
      assert.equal(answer.status, 400, `${body}: ${answer.body}`);
      assert.ok((JSON.parse(answer.body).errors as { name: string }[]).some((e) => e.name === name), `${body}: ${answer.body}`);
    }
    const multipart = await send('multipart/form-data; boundary=B', '--B\r\nContent-Disposition: form-data; name="role"\r\n\r\nuser\r\n--B\r\nContent-Disposition: form-data; name="_role"\r\n\r\nadmin\r\n--B--\r\n');
    assert.equal(multipart.status, 400, multipart.body);
    assert.match(multipart.body, /_role/);
    assert.equal(backend.received.length, 0, 'nothing was forwarded');
    const ordinary = await send(FORM, 'role=user&sort_by=date&tags[]=a&tags[]=b&other.thing=1');
    assert.equal(ordinary.status, 200, ordinary.body);
  } finally {
    await running.close();
    await backend.close();
  }
});
