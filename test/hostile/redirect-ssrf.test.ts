// followRedirects as a way into the cloud's metadata service (SSRF): a backend's Location is followed only to
// the route's own origin or a listed one, never to link-local, metadata, unspecified or broadcast addresses in
// any spelling, and a host name is resolved once and connected to as checked. A refused redirect reaches the
// client as the 3xx it was, with one WARN line; the backend is asked once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PETSTORE, serve } from '../helpers.js';
import { rawBackend, rawGet } from './raw-peers.js';
import { checkedHop, type Lookup } from '../../lib/routes/backend/redirect-guard.js';
import { forbiddenAddress } from '../../lib/routes/backend/forbidden-addresses.js';
import type { Hop } from '../../lib/routes/backend/redirects.js';
import type { BackendEndpoint } from '../../lib/routes/backend/endpoint.js';

const METADATA_SPELLINGS = [
  'http://169.254.169.254/latest/meta-data/',
  'http://[::ffff:169.254.169.254]/latest/meta-data/',
  'http://[::ffff:a9fe:a9fe]/',
  'http://0xA9FEA9FE/latest/meta-data/',
  'http://2852039166/latest/meta-data/',
  'http://0251.0376.0251.0376/',
  'http://169.254.43518/',
  'http://169.254.170.2/v2/credentials',
  'http://[fd00:ec2::254]/latest/meta-data/',
  'http://[64:ff9b::a9fe:a9fe]/',
  'http://[::169.254.169.254]/',
  'http://[fe80::1%25eth0]/',
  'http://[fe80::1]/',
  'http://0.0.0.0/',
  'http://0/',
  'http://[::]/',
  'http://255.255.255.255/',
  'http://100.100.100.200/latest/meta-data/',
];

test('every spelling of a link-local, metadata, unspecified or broadcast address is forbidden; ordinary addresses are not', () => {
  for (const spelling of METADATA_SPELLINGS) {
    if (!URL.canParse(spelling)) continue; // a spelling the URL parser refuses is never followed either (redirects.ts)
    const host = new URL(spelling).hostname;
    assert.notEqual(forbiddenAddress(host), undefined, `${spelling} (${host})`);
  }
  for (const allowed of ['127.0.0.1', '10.0.0.5', '[::1]', '[2001:db8::1]', '[::ffff:10.0.0.1]', '169.253.255.255', '169.255.0.1', 'example.com']) {
    assert.equal(forbiddenAddress(allowed), undefined, allowed);
  }
});

test('a backend redirecting into the metadata service in any spelling: the 3xx and its body reach the client, one WARN each, the backend asked once', async () => {
  let location = '';
  const backend = await rawBackend(() => ({ status: 302, lines: [`Location: ${location}`], body: 'moved' }));
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { getInventory: [{ kind: 'to', uri: `${backend.origin}/inventory?followRedirects=true` }] } });
  try {
    const port = new URL(backend.origin).port;
    const spellings = [...METADATA_SPELLINGS, `http://0.0.0.0:${port}/inventory`, `http://[::ffff:127.0.0.1]:${port}/inventory`, `http://localhost:${port}/inventory`];
    for (const [i, spelling] of spellings.entries()) {
      location = spelling;
      const answer = await rawGet(running.origin, '/api/v3/store/inventory');
      assert.equal(answer.status, 302, spelling);
      assert.equal(answer.fields.find(([name]) => name === 'location')?.[1], spelling);
      assert.equal(answer.body, 'moved', spelling);
      assert.equal(backend.received.length, i + 1, `${spelling}: the backend was asked once, nothing else was`);
      const warned = running.logger.lines.filter((line) => line.startsWith('WARN redirect not followed'));
      assert.equal(warned.length, i + 1, `${spelling}: one WARN line`);
      assert.ok(warned[i]!.includes(spelling), warned[i]);
    }
  } finally {
    await running.close();
    await backend.close();
  }
});

test('a listed origin named by host name is followed to the address it resolved to; one that does not resolve is passed back', async () => {
  const listed = await rawBackend(() => ({ body: 'listed' }));
  const listedByName = `http://localhost:${new URL(listed.origin).port}`;
  let location = '';
  const backend = await rawBackend(() => ({ status: 307, lines: [`Location: ${location}`], body: 'x'.repeat(40_000) }));
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    backend: { redirectOrigins: `${listedByName}, http://no-such-host.invalid` },
    routes: { getInventory: [{ kind: 'to', uri: `${backend.origin}/inventory?followRedirects=true` }] },
  });
  try {
    location = `${listedByName}/landing`;
    const followed = await rawGet(running.origin, '/api/v3/store/inventory');
    assert.equal(followed.status, 200);
    assert.equal(followed.body, 'listed');
    assert.equal(listed.received.length, 1);
    assert.equal(listed.received[0]!.target, '/landing');
    assert.equal(listed.received[0]!.field('host'), new URL(listedByName).host);

    location = 'http://no-such-host.invalid/landing';
    const unresolved = await rawGet(running.origin, '/api/v3/store/inventory');
    assert.equal(unresolved.status, 307);
    assert.equal(unresolved.body.length, 40_000, 'the held answer is passed whole');
    assert.equal(running.logger.lines.filter((line) => line.startsWith('WARN redirect not followed')).length, 1);
    assert.equal(backend.received.length, 2);
  } finally {
    await running.close();
    await backend.close();
    await listed.close();
  }
});

test('a host name is resolved once, every address judged, and the hop connects to the address judged (no second lookup to rebind)', async () => {
  const endpoint = { https: false, hostname: 'rebinding.example', port: 8080, origin: 'http://rebinding.example:8080', host: 'rebinding.example:8080' } as BackendEndpoint;
  const hop: Hop = { endpoint, path: '/', method: 'GET', headers: ['host', endpoint.host], payload: undefined };
  const answers = [['10.1.2.3'], ['169.254.169.254']];
  let lookups = 0;
  const rebinding: Lookup = (_name, callback) => callback(null, answers[lookups++]!.map((address) => ({ address, family: 4 })));
  const checked = await checkedHop(hop, rebinding);
  assert.equal(typeof checked, 'object');
  assert.equal((checked as Hop).endpoint.connectOrigin, 'http://10.1.2.3:8080');
  assert.equal(lookups, 1);
  const mixed: Lookup = (_name, callback) => callback(null, [{ address: '10.0.0.1', family: 4 }, { address: '::ffff:169.254.169.254', family: 6 }]);
  assert.match(String(await checkedHop(hop, mixed)), /resolves to ::ffff:169\.254\.169\.254, a cloud metadata address/);
  const v6: Lookup = (_name, callback) => callback(null, [{ address: '2001:db8::7', family: 6 }]);
  assert.equal(((await checkedHop(hop, v6)) as Hop).endpoint.connectOrigin, 'http://[2001:db8::7]:8080');
});

test('redirectOrigins naming a forbidden address or something not an origin fails startup, from svc.backend.* and the endpoint option', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ backend: { redirectOrigins: 'http://0xA9FEA9FE' } }, /http:\/\/169\.254\.169\.254 is a cloud metadata address/],
    [{ properties: { 'svc.backend.redirectOrigins': 'http://[fe80::1]:8080' } }, /is a link-local address/],
    [{ routes: { getInventory: [{ kind: 'to', uri: 'http://127.0.0.1:9/x', parameters: { redirectOrigins: 'http://ok.example/path' } }] } }, /"http:\/\/ok\.example\/path" is not an origin/],
  ];
  for (const [input, message] of cases) {
    await assert.rejects(serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { getInventory: [{ kind: 'to', uri: 'http://127.0.0.1:9/x' }] }, ...input }), message);
  }
});
