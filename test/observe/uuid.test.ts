// New request ids are random version 4 UUIDs, made in batches: every one well-formed and distinct across
// batch boundaries, with random bits spread over every position.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newUuid } from '../../lib/message/uuid.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test('newUuid: version 4 UUIDs, distinct over many batches, each hex digit position varies', () => {
  const seen = new Set<string>();
  const digits: Set<string>[] = Array.from({ length: 36 }, () => new Set());
  for (let i = 0; i < 1000; i++) {
    const id = newUuid();
    assert.match(id, UUID);
    seen.add(id);
    for (let p = 0; p < 36; p++) digits[p]!.add(id[p]!);
  }
  assert.equal(seen.size, 1000);
  for (let p = 0; p < 36; p++) {
    const expected = [8, 13, 18, 23].includes(p) ? 1 : p === 14 ? 1 : p === 19 ? 4 : 16;
    assert.equal(digits[p]!.size, expected, `position ${p}: ${[...digits[p]!].sort().join('')}`);
  }
});
