// Log format and access log (issue 12): JSON lines parsed back, the access-log fields, and what is never logged.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger, type Exchange } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';

const SECRET_TOKEN = 'Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0.c2lnbmF0dXJl';
const SECRET_COOKIE = 'session=cookie-secret-value';
const SECRET_BODY = '{"name":"body-secret-value","photoUrls":[]}';
const SECRET_QUERY = 'api_key=query-secret-value';

function capture(format: 'text' | 'json'): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const write = (l: string) => void lines.push(l);
  return { lines, logger: createLogger(format, write, write) };
}

async function exercise(origin: string): Promise<string[]> {
  const ids: string[] = [];
  const requests: [string, RequestInit][] = [
    [`/api/v3/pet/7?${SECRET_QUERY}`, { headers: { authorization: SECRET_TOKEN, cookie: SECRET_COOKIE, 'x-request-id': 'log-1' } }],
    ['/api/v3/pet', { method: 'POST', headers: { 'content-type': 'application/json', authorization: SECRET_TOKEN }, body: SECRET_BODY }],
    ['/nowhere', { headers: { cookie: SECRET_COOKIE } }],
    ['/api/v3/pet/7', { method: 'PATCH' }],
  ];
  for (const [path, init] of requests) {
    const res = await fetch(`${origin}${path}`, init);
    await res.arrayBuffer();
    ids.push(res.headers.get('x-request-id')!);
  }
  return ids;
}

function assertNoSecrets(lines: string[]): void {
  for (const secret of ['eyJhbGciOiJIUzI1NiJ9', 'cookie-secret-value', 'body-secret-value', 'query-secret-value']) {
    assert.ok(!lines.some((l) => l.includes(secret)), `${secret} is never logged:\n${lines.join('')}`);
  }
}

const routes = {
  getPetById: [
    { kind: 'log', message: 'fetching pet ${header.petId}' },
    { kind: 'setBody', expression: { json: { id: 7 } } },
  ],
};

test('json: every line is one JSON object; the access log has time, method, path, operationId, status, duration, bytes and request id', async () => {
  const { lines, logger } = capture('json');
  const app = await serve({ specification: PETSTORE, missingOperation: 'mock', routes, observe: { logFormat: 'json', accessLog: true } }, { logger });
  try {
    const ids = await exercise(app.origin);
    const records = lines.map((l) => {
      assert.ok(l.endsWith('\n') && !l.slice(0, -1).includes('\n'), 'one line each');
      return JSON.parse(l) as Record<string, unknown>;
    });
    for (const r of records) {
      assert.match(String(r.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(['info', 'warn', 'error'].includes(String(r.level)));
    }
    const routeLog = records.find((r) => r.msg === '[getPetById] fetching pet 7')!;
    assert.equal(routeLog.requestId, 'log-1', 'a route log line carries the request id');

    const access = records.filter((r) => r.msg === 'access');
    assert.equal(access.length, 4);
    const [pet, post, missing, patch] = access as Record<string, unknown>[];
    assert.deepEqual(
      { ...pet, time: undefined, durationMs: undefined },
      { time: undefined, level: 'info', msg: 'access', method: 'GET', path: '/api/v3/pet/7', operationId: 'getPetById', status: 200, durationMs: undefined, bytes: 8, requestId: 'log-1' },
    );
    assert.equal(typeof pet!.durationMs, 'number');
    assert.ok((pet!.durationMs as number) >= 0);
    assert.deepEqual([post!.method, post!.path, post!.operationId, post!.status, post!.bytes, post!.requestId], ['POST', '/api/v3/pet', 'addPet', 200, Buffer.byteLength(SECRET_BODY), ids[1]]);
    assert.deepEqual([missing!.path, missing!.status, missing!.operationId, missing!.requestId], ['/nowhere', 404, undefined, ids[2]]);
    assert.deepEqual([patch!.method, patch!.status, patch!.requestId], ['PATCH', 405, ids[3]]);
    assertNoSecrets(lines);
  } finally {
    await app.close();
  }
});

test('text: the access log is one plain line per request; off by default', async () => {
  const { lines, logger } = capture('text');
  const app = await serve({ specification: PETSTORE, missingOperation: 'mock', routes, observe: { accessLog: true } }, { logger });
  try {
    const ids = await exercise(app.origin);
    const access = lines.filter((l) => /^\d{4}-\d\d-\d\dT/.test(l));
    assert.equal(access.length, 4);
    assert.match(access[0]!, /^\S+Z GET \/api\/v3\/pet\/7 200 \d+(\.\d+)?ms 8B operationId=getPetById requestId=log-1\n$/);
    assert.match(access[2]!, new RegExp(`^\\S+Z GET /nowhere 404 0ms \\d+B requestId=${ids[2]}\\n$`));
    assert.ok(lines.includes('[getPetById] fetching pet 7 requestId=log-1\n'));
    assertNoSecrets(lines);
  } finally {
    await app.close();
  }

  const quiet = capture('text');
  const off = await serve({ specification: PETSTORE, missingOperation: 'mock', routes: { getPetById: (ex: Exchange) => void (ex.body = { id: 7 }) } }, { logger: quiet.logger });
  try {
    const before = quiet.lines.length;
    await exercise(off.origin);
    assert.deepEqual(quiet.lines.slice(before), [], 'no access log unless asked for');
  } finally {
    await off.close();
  }
});
