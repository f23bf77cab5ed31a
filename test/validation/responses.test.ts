// clientResponseValidation: what routes answer is checked against the contract's response for that status
// (or its range, or default) and media type; a violation is a 500 with the schema errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Exchange } from '../../lib/index.js';
import { call, serveContract, where } from './fixtures.js';

const CONTRACT = {
  openapi: '3.0.3',
  info: { title: 'responses', version: '1' },
  paths: {
    '/users/{id}': {
      get: {
        operationId: 'getUser',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } } },
          '4XX': { description: 'client', content: { 'application/json': { schema: { type: 'object', required: ['code'] } } } },
          default: { description: 'other', content: { 'application/json': { schema: { type: 'object', required: ['message'] } } } },
        },
      },
    },
    '/plain': {
      get: { operationId: 'plain', responses: { '200': { description: 'ok' } } },
    },
  },
  components: {
    schemas: {
      User: {
        type: 'object',
        required: ['id', 'name', 'password'],
        properties: { id: { type: 'integer' }, name: { type: 'string' }, password: { type: 'string', writeOnly: true }, email: { type: 'string', format: 'email' } },
      },
    },
  },
};

/** Each request's path picks what the route answers: `/users/<case>`. */
const ANSWERS: Record<string, { code?: number; type?: string; body: unknown }> = {
  good: { body: { id: 1, name: 'n' } },
  goodText: { type: 'application/json', body: '{"id":1,"name":"n"}' },
  bad: { body: { id: 'one', email: 'nope' } },
  badText: { type: 'application/json; charset=utf-8', body: '{"id":1,' },
  notFound: { code: 404, body: { code: 'NF' } },
  notFoundBad: { code: 404, body: { reason: 'x' } },
  server: { code: 503, body: { message: 'down' } },
  serverBad: { code: 503, body: { oops: true } },
  xml: { type: 'application/xml', body: '<user/>' },
  empty: { code: 200, body: undefined },
};

const route = (ex: Exchange): void => {
  const answer = ANSWERS[String(ex.message.headers.get('id'))]!;
  if (answer.code !== undefined) ex.message.headers.set('SvcHttpResponseCode', answer.code);
  if (answer.type !== undefined) ex.message.headers.set('Content-Type', answer.type);
  ex.message.body = answer.body;
};

test('responses that match the contract pass unchanged (writeOnly properties are not required)', async () => {
  const r = await serveContract(CONTRACT, { routes: { getUser: route, plain: (ex) => void (ex.message.body = 'anything') }, responses: true });
  try {
    for (const [name, status] of [['good', 200], ['goodText', 200], ['notFound', 404], ['server', 503], ['empty', 200]] as const) {
      assert.equal((await call(r, 'GET', `/users/${name}`)).status, status, name);
    }
    assert.equal((await call(r, 'GET', '/plain')).status, 200, 'no content declared: any body goes');
  } finally {
    await r.close();
  }
});

test('responses that break the contract are a 500 "Invalid response JSon payload." with the violations', async () => {
  const r = await serveContract(CONTRACT, { routes: { getUser: route }, responses: true });
  try {
    const bad = await call(r, 'GET', '/users/bad');
    assert.equal(bad.status, 500);
    assert.equal(bad.body.detail, 'Invalid response JSon payload.');
    assert.deepEqual(where(bad).sort(), ['body:email /email', 'body:id /id', 'body:name /name']);
    assert.equal((await call(r, 'GET', '/users/badText')).status, 500);
    assert.deepEqual(where(await call(r, 'GET', '/users/notFoundBad')), ['body:code /code'], 'the 4XX range applies');
    assert.deepEqual(where(await call(r, 'GET', '/users/serverBad')), ['body:message /message'], 'default applies');
    const xml = await call(r, 'GET', '/users/xml');
    assert.equal(xml.status, 500);
    assert.match(xml.body.errors[0].message, /media type application\/xml is not declared for status 200/);
    assert.ok(r.logger.lines.some((l) => l.startsWith('ERROR') && l.includes('getUser')), 'the defect is logged server-side');
  } finally {
    await r.close();
  }
});

test('a status the operation does not declare is a violation, even where the declared one has no content (docs/validation.md)', async () => {
  const created = (ex: Exchange): void => {
    ex.message.headers.set('SvcHttpResponseCode', 201);
    ex.message.body = 'anything';
  };
  const r = await serveContract(CONTRACT, { routes: { getUser: route, plain: created }, responses: true });
  try {
    const answer = await call(r, 'GET', '/plain');
    assert.equal(answer.status, 500);
    assert.equal(answer.body.detail, 'Invalid response JSon payload.');
    assert.deepEqual(answer.body.errors.map((e: { message: string }) => e.message), ['status 201 is not declared for this operation']);
  } finally {
    await r.close();
  }
});

test('with clientResponseValidation off (the default) responses are not checked', async () => {
  const r = await serveContract(CONTRACT, { routes: { getUser: route } });
  try {
    assert.equal((await call(r, 'GET', '/users/bad')).status, 200);
  } finally {
    await r.close();
  }
});

test('range and default keys are read in any letter case, as mocks and binding read them', async () => {
  const lower = JSON.parse(JSON.stringify(CONTRACT)) as typeof CONTRACT;
  const responses = lower.paths['/users/{id}'].get.responses as Record<string, unknown>;
  responses['4xx'] = responses['4XX'];
  responses.Default = responses.default;
  delete responses['4XX'];
  delete responses.default;
  const r = await serveContract(lower, { routes: { getUser: route }, responses: true });
  try {
    assert.equal((await call(r, 'GET', '/users/notFound')).status, 404);
    assert.deepEqual(where(await call(r, 'GET', '/users/notFoundBad')), ['body:code /code'], 'the 4xx range applies');
    assert.deepEqual(where(await call(r, 'GET', '/users/serverBad')), ['body:message /message'], 'Default applies');
  } finally {
    await r.close();
  }
});

test('an invalid response is logged with its violations on one line, no stack', async () => {
  const r = await serveContract(CONTRACT, { routes: { getUser: route, plain: (ex) => void (ex.message.body = 'anything') }, responses: true });
  try {
    assert.equal((await call(r, 'GET', '/users/bad')).status, 500);
    const lines = r.logger.lines.filter((line) => line.startsWith('ERROR '));
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(lines[0]!, /^ERROR GET \/users\/\{id\} \(direct:getUser\) failed: SvcError SVC_INVALID_RESPONSE: Invalid response JSon payload\. /);
    assert.match(lines[0]!, /\[body \/id: [^\]]*integer[^\]]*\]/, 'the violation at /id');
    assert.match(lines[0]!, /\[body [^\]]*name[^\]]*\]/, 'the missing name');
    assert.doesNotMatch(lines[0]!, /\n|\bat /);
  } finally {
    await r.close();
  }
});
