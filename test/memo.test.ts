import { test } from 'node:test';
import assert from 'node:assert/strict';
import { boundedMemo } from '../lib/util/memo.js';

test('boundedMemo computes each key once, undefined answers included', () => {
  const computed: string[] = [];
  const lookup = boundedMemo((key) => {
    computed.push(key);
    return key.startsWith('application/') ? key.length : undefined;
  });
  assert.equal(lookup('application/json'), 16);
  assert.equal(lookup('text/plain'), undefined);
  assert.equal(lookup('application/json'), 16);
  assert.equal(lookup('text/plain'), undefined);
  assert.deepEqual(computed, ['application/json', 'text/plain']);
});

test('boundedMemo forgets when full, so keys a client varies cannot grow it without bound', () => {
  let calls = 0;
  const lookup = boundedMemo((key) => {
    calls++;
    return key.toUpperCase();
  });
  for (let i = 0; i < 64; i++) lookup(`type/${i}`);
  assert.equal(lookup('type/0'), 'TYPE/0');
  assert.equal(calls, 64, 'the 64 first keys are all remembered');
  lookup('type/64'); // the 65th starts over
  assert.equal(lookup('type/0'), 'TYPE/0');
  assert.equal(calls, 66, 'type/0 was forgotten and computed again');
});
