// The verified-token cache: exact tokens only (found by suffix, compared whole), until expiry, bounded.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TokenCache } from '../../lib/security/token-cache.js';

const SIGNATURE = 'S'.repeat(40);

test('a token is found only by its exact text, until its expiry', () => {
  const cache = new TokenCache<string>(10);
  cache.set(`header.payload.${SIGNATURE}`, 'alice', 1000);
  assert.equal(cache.get(`header.payload.${SIGNATURE}`, 999), 'alice');
  assert.equal(cache.get(`header.forged.${SIGNATURE}`, 999), undefined, 'same signature, other payload: not a hit');
  assert.equal(cache.get(`header.payload.${SIGNATURE}`, 1000), undefined, 'expired');
  assert.equal(cache.size, 0, 'an expired entry is dropped when met');
  cache.set('short', 'bob', 1000);
  assert.equal(cache.get('short', 0), 'bob');
});

test('tokens sharing a suffix replace each other instead of matching each other', () => {
  const cache = new TokenCache<string>(10);
  cache.set(`a.${SIGNATURE}`, 'first', 1000);
  cache.set(`b.${SIGNATURE}`, 'second', 1000);
  assert.equal(cache.get(`a.${SIGNATURE}`, 0), undefined);
  assert.equal(cache.get(`b.${SIGNATURE}`, 0), 'second');
});

test('when full, the oldest entry makes room', () => {
  const cache = new TokenCache<number>(3);
  for (let i = 0; i < 5; i++) cache.set(`token-${i}-${SIGNATURE}${i}`, i, 1000);
  assert.equal(cache.size, 3);
  assert.equal(cache.get(`token-0-${SIGNATURE}0`, 0), undefined);
  assert.equal(cache.get(`token-1-${SIGNATURE}1`, 0), undefined);
  assert.equal(cache.get(`token-4-${SIGNATURE}4`, 0), 4);
});
