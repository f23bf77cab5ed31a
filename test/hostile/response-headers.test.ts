// A route copying client input into a header (`setHeader` with `${header.q}`): a value no HTTP field can
// carry is dropped with one WARN line naming the header, never a 500 or a stack; the same for forwarding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PETSTORE, serve } from '../helpers.js';
import { rawBackend, rawGet } from './raw-peers.js';

const UNSENDABLE = { 'CR LF': 'a%0D%0ASet-Cookie:%20evil=1', NUL: 'a%00b', 'another control': 'a%01b', DEL: 'a%7Fb', 'above U+00FF': '%C4%80', 'an emoji': '%F0%9F%98%80' };

test('setHeader with a value holding CR/LF, NUL, another control character or a character above U+00FF: the header is dropped with a WARN, the answer is the route\'s', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getPetById: [
        { kind: 'setHeader', name: 'X-Echo', expression: { simple: '${header.q}' } },
        { kind: 'setHeader', name: 'Content-Type', expression: { simple: 'text/plain; note=${header.q}' } },
        { kind: 'setHeader', name: 'X-Fixed', expression: { constant: 'kept' } },
        { kind: 'setBody', expression: { constant: 'pet' } },
      ],
    },
  });
  try {
    for (const [what, q] of Object.entries(UNSENDABLE)) {
      const before = running.logger.lines.length;
      const answer = await rawGet(running.origin, `/api/v3/pet/1?q=${q}`);
      assert.equal(answer.status, 200, `${what}: ${answer.head}`);
      assert.equal(answer.body, 'pet');
      const names = answer.fields.map(([name]) => name);
      assert.ok(!names.includes('x-echo') && !names.includes('set-cookie'), `${what}: ${answer.head}`);
      assert.equal(answer.fields.find(([name]) => name === 'x-fixed')?.[1], 'kept');
      assert.equal(answer.fields.find(([name]) => name === 'content-type')?.[1], 'text/plain; charset=utf-8', 'the Content-Type it would have had');
      const logged = running.logger.lines.slice(before);
      const warned = logged.map((l) => l.slice(0, l.indexOf(' not sent'))).sort();
      assert.deepEqual(warned, ['WARN GET /pet/{petId} (direct:getPetById): response header content-type', 'WARN GET /pet/{petId} (direct:getPetById): response header x-echo'], `${what}: ${logged.join('\n')}`);
    }
    const fine = await rawGet(running.origin, '/api/v3/pet/1?q=caf%C3%A9');
    assert.ok(fine.fields.some(([name]) => name === 'x-echo'), `Latin-1 is sendable: ${fine.head}`);
    assert.ok(!running.logger.lines.some((l) => l.startsWith('ERROR')), running.logger.lines.join('\n'));
  } finally {
    await running.close();
  }
});

test('a query parameter no header can carry (a control character) is left out of the backend request instead of failing it', async () => {
  const backend = await rawBackend();
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { findPetsByStatus: [{ kind: 'to', uri: `${backend.origin}/pets` }] } });
  try {
    const answer = await rawGet(running.origin, '/api/v3/pet/findByStatus?status=sold&x-note=a%01b&x-del=a%7F');
    assert.equal(answer.status, 200, answer.body);
    const got = backend.received[0]!;
    assert.equal(got.field('status'), 'sold');
    assert.equal(got.field('x-note'), undefined);
    assert.equal(got.field('x-del'), undefined);
    assert.equal(got.target, '/pets?status=sold&x-note=a%01b&x-del=a%7F', 'the query string still carries them');
  } finally {
    await running.close();
    await backend.close();
  }
});
