// Percent-decoding of outside text (lib/http/percent.ts): decoded as UTF-8, or undefined when malformed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { percentDecoded } from '../../lib/http/percent.js';

test('percentDecoded decodes UTF-8 escapes and answers undefined, not a throw, for malformed ones', () => {
  assert.equal(percentDecoded('plain+text'), 'plain+text', '+ is no escape here');
  assert.equal(percentDecoded('caf%C3%A9%20%2F'), 'café /');
  for (const malformed of ['%', '%2', '%zz', '%C3', '%E0%A4%A']) assert.equal(percentDecoded(malformed), undefined, malformed);
});
