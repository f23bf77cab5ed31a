// Query parameters posing as fields only a browser sets: a cross-site form posting to
// `/pet?x-requested-with=XMLHttpRequest&origin=...&sec-fetch-site=same-origin` must not reach the backend with
// those header fields (query parameters become exchange headers, as in Camel), or it forges the CSRF checks
// backends rely on. The client's own fields still pass as it sent them; the query string is forwarded as is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PETSTORE, serve } from '../helpers.js';
import { rawBackend, rawSend } from './raw-peers.js';

const POSING = [
  'x-requested-with=XMLHttpRequest', 'X_Requested_With=XMLHttpRequest', 'origin=https://bank.example', 'Referer=https://bank.example/transfer',
  'sec-fetch-site=same-origin', 'sec_fetch_mode=cors', 'Sec-Fetch-Dest=empty', 'sec-ch-ua=forged', 'cookie=session%3Dstolen',
  'host=internal', 'authorization=Bearer%20forged', 'proxy-authorization=Basic%20x', 'proxy-whatever=1', 'x-forwarded-for=10.0.0.1',
  'x-real-ip=10.0.0.1', 'access-control-request-method=DELETE', 'dnt=1', 'keep-alive=1', 'date=yesterday', 'accept-encoding=identity',
];

test('query parameters never become Origin, Referer, Sec-*, X-Requested-With, Cookie, Authorization, Proxy-* or forwarding fields', async () => {
  const backend = await rawBackend();
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { addPet: [{ kind: 'to', uri: `${backend.origin}/pet` }] } });
  try {
    const body = '{"name":"rex","photoUrls":[]}';
    const target = `/api/v3/pet?${POSING.join('&')}&tag=kept`;
    const answer = await rawSend(running.origin, `POST ${target} HTTP/1.1\r\nHost: facade\r\nOrigin: https://attacker.example\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    assert.equal(answer.status, 200, answer.body);
    const received = backend.received[0]!;
    const names = received.fields.map(([name]) => name.replace(/_/g, '-'));
    for (const posing of ['x-requested-with', 'referer', 'cookie', 'authorization', 'proxy-authorization', 'proxy-whatever', 'x-real-ip', 'access-control-request-method', 'dnt', 'keep-alive', 'date', 'accept-encoding']) {
      assert.ok(!names.includes(posing), `${posing} reached the backend: ${received.bytes}`);
    }
    assert.ok(!names.some((name) => name.startsWith('sec-')), received.bytes);
    assert.deepEqual(received.fields.filter(([name]) => name === 'origin'), [['origin', 'https://attacker.example']], 'the client\'s own Origin, once');
    assert.deepEqual(received.fields.filter(([name]) => name === 'host').length, 1);
    assert.equal(received.field('x-forwarded-for'), '127.0.0.1', 'the facade\'s own trail only');
    assert.equal(received.field('tag'), 'kept', 'an ordinary query parameter still becomes a header');
    assert.equal(received.target, `/pet?${POSING.join('&')}&tag=kept`, 'the query string is forwarded as sent');
  } finally {
    await running.close();
    await backend.close();
  }
});
