// JSON Pointer reference tokens (RFC 6901), escaped and read back by one pair of functions.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapePointerToken, unescapePointerToken } from '../../lib/contract/refs.js';

test('a token read back is the name it was escaped from, `~01` being `~1` and not `/`', () => {
  for (const name of ['plain', 'a/b', '~', '~1', 'a/~0/~1~', '']) {
    assert.equal(unescapePointerToken(escapePointerToken(name)), name, name);
  }
  assert.equal(escapePointerToken('a/~1'), 'a~1~01');
  assert.equal(unescapePointerToken('~01'), '~1');
  assert.equal(unescapePointerToken('application~1json'), 'application/json');
});
