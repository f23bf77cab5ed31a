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

test('boundedMemo answers a repeated key from its last answer, and never another key from it', () => {
  const computed: string[] = [];
  const lookup = boundedMemo((key) => {
    computed.push(key);
    return key === 'none' ? undefined : key.length;
  });
  assert.equal(lookup('none'), undefined);
  assert.equal(lookup('none'), undefined, 'an undefined last answer is an answer too');
  assert.equal(lookup('ab'), 2);
  assert.equal(lookup('ab'), 2);
  assert.equal(lookup('abc'), 3, 'a different key is looked up, not given the last answer');
  assert.equal(lookup('none'), undefined);
  assert.equal(lookup('ab'), 2);
  assert.deepEqual(computed, ['none', 'ab', 'abc']);
});
