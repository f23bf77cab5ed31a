// Strings generated for contract patterns (lib/mock/pattern.ts) and the seeded generator (lib/mock/random.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileMockPattern, type PatternSampler } from '../../lib/mock/pattern.js';
import { Random } from '../../lib/mock/random.js';

const ANY = { min: 0, max: Infinity };

/** The pattern as JavaScript reads it: with the `u` flag where valid, else without (as validation does). */
function jsRegExp(pattern: string): RegExp {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return new RegExp(pattern);
  }
}

function sampler(pattern: string): PatternSampler {
  const compiled = compileMockPattern(pattern).sampler;
  assert.notEqual(typeof compiled, 'string', `${pattern}: ${String(compiled)}`);
  return compiled as PatternSampler;
}

const PATTERNS = [
  '^[A-Z]{3}-\\d{4}$',
  '^\\w+@\\w+\\.(com|org)$',
  '^(?:[01]\\d|2[0-3]):[0-5]\\d$',
  '^[^\\s/]+$',
  '^\\S{2,5}$',
  'abc',
  '^a?b*c+$',
  '^[\\u00e0-\\u00ff]{2}$',
  '^\\p{Lu}\\p{Ll}+$',
  '^(foo|bar|baz)-[a-f0-9]{8}$',
  '^\\.[.]\\-\\/$',
  '^ghp_[A-Za-z0-9]{36}$',
  '^(?=.*\\d)[a-z\\d]{8}$',
  '^(a+)+$',
  '^\\d+(\\.\\d{1,2})?$',
];

test('static and dynamic samples match their pattern (the validator’s own matcher agrees)', () => {
  for (const pattern of PATTERNS) {
    const re = jsRegExp(pattern);
    const s = sampler(pattern);
    const fixed = s.sample(undefined, ANY);
    assert.ok(fixed !== undefined && re.test(fixed), `${pattern}: static ${fixed}`);
    assert.equal(s.sample(undefined, ANY), fixed, `${pattern}: static samples are always the same`);
    const random = new Random(pattern);
    for (let i = 0; i < 20; i++) {
      const value = s.sample(random, ANY);
      assert.ok(value !== undefined && re.test(value), `${pattern}: dynamic ${value}`);
    }
  }
});

test('readable static samples for common shapes', () => {
  assert.equal(sampler('^[A-Z]{3}-\\d{4}$').sample(undefined, ANY), 'AAA-0000');
  assert.equal(sampler('^(foo|bar)-[a-f0-9]{2}$').sample(undefined, ANY), 'foo-aa');
  assert.equal(sampler('^[a-z]+$').sample(undefined, ANY), 'a');
});

test('length bounds: repetitions grow to minLength, unanchored patterns are padded, impossible bounds give undefined', () => {
  const grown = sampler('^[a-z]+$').sample(undefined, { min: 12, max: 20 });
  assert.ok(grown !== undefined && grown.length >= 12 && grown.length <= 20 && /^[a-z]+$/.test(grown), grown);
  assert.equal(sampler('ab').sample(undefined, { min: 5, max: 5 })?.length, 5);
  assert.equal(sampler('^[a-z]{3}$').sample(undefined, { min: 5, max: 10 }), undefined);
  assert.equal(sampler('^[a-z]{10}$').sample(new Random(1), { min: 0, max: 4 }), undefined);
});

test('back-references, invalid patterns and impossible classes are reported, never hang', () => {
  assert.match(String(compileMockPattern('^(\\w)\\1$').sampler), /back-references/);
  assert.match(String(compileMockPattern('([a-').sampler), /not a regular expression/);
  // Validation cannot check this one safely either (lookarounds around unbounded repetition): not generated.
  assert.match(String(compileMockPattern('^(?=.*[A-Z])(?=.*\\d)[A-Za-z\\d]{8,}$').sampler), /backtrack/);
  assert.equal(sampler('^[^\\s\\S]$').sample(undefined, ANY), undefined);
  // Exponential for backtracking engines; candidates are checked by the linear-time matcher instead.
  const long = sampler('^(a|a)*b$').sample(undefined, { min: 3000, max: 3000 });
  assert.equal(long, `${'a'.repeat(2999)}b`);
});

test('one reading of a pattern gives the sampler and the tester; a pattern valid only without the u flag is read without it', () => {
  const backReference = compileMockPattern('^(\\w)\\1$');
  assert.match(String(backReference.sampler), /back-references/);
  assert.deepEqual([backReference.tester?.test('aa'), backReference.tester?.test('ab')], [true, false], 'a pattern that cannot be generated still checks examples');
  const withoutU = compileMockPattern('^\\-\\d$');
  const sample = (withoutU.sampler as PatternSampler).sample(undefined, ANY);
  assert.equal(sample, '-0');
  assert.deepEqual([withoutU.tester?.test(sample!), withoutU.tester?.test('-x')], [true, false]);
  const invalid = compileMockPattern('([a-');
  assert.equal(invalid.tester, undefined, 'an invalid pattern does not constrain');
});

test('the seeded generator repeats per seed, differs across seeds, and stays in range', () => {
  const a = new Random(42);
  const b = new Random('42');
  const c = new Random(43);
  const first = Array.from({ length: 8 }, () => a.next());
  assert.deepEqual(Array.from({ length: 8 }, () => b.next()), first);
  assert.notDeepEqual(Array.from({ length: 8 }, () => c.next()), first);
  const r = new Random('range');
  const seen = new Set<number>();
  for (let i = 0; i < 2000; i++) {
    const n = r.int(-3, 3);
    assert.ok(Number.isInteger(n) && n >= -3 && n <= 3);
    seen.add(n);
    const f = r.float();
    assert.ok(f >= 0 && f < 1);
    const big = r.int(0, Number.MAX_SAFE_INTEGER);
    assert.ok(Number.isSafeInteger(big) && big >= 0);
  }
  assert.equal(seen.size, 7);
});
