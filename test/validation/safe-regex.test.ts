// The pattern engine: the linear-time NFA answers exactly as V8 does (on inputs short enough for V8 to be
// safe), catastrophic patterns answer fast, and patterns that cannot be checked safely are warned about.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compileNfa, compilePattern, createSafeRegExp } from '../../lib/schema/safe-regex.js';
import { CORPUS, memoryLogger } from '../helpers.js';
import { rng } from './generate.js';

const HANDWRITTEN = [
  '^[a-z0-9-]+$', '[a-z]+@', '^\\d{3}-\\d{2,4}$', '^(\\+|-)?\\d+(\\.\\d+)?$', '\\bfoo\\b', '\\Bo\\B', '^(?:a|ab)+c$', '^[\\p{L} ]+$',
  '^😀+é?$', '^.*$', '^[^]$', '^(\\d{1,3}\\.){3}\\d{1,3}$', 'a{2,}', 'a{0}b', '^(?<word>[a-z]+)-\\d*?$', 'x|^y|z$', '[\\w.-]+', '^\\S+\\s\\S+$',
  '^[\\u0041-\\u005A]{2}\\x2d\\d$', '\\uD83D\\uDE00', '^\\$\\{[A-Z_]+\\}$', '(a|b|)+c', '^$', '', '[\\]\\\\]', '^.{2,5}$',
];

/** Every `pattern` in a few corpus contracts (JSON ones, quick to read). */
function corpusPatterns(): string[] {
  const found = new Set<string>();
  for (const file of ['github-rest-2020/api.github.com.json', 'discord/openapi.json', 'twilio/twilio_api_v2010.json']) {
    JSON.parse(readFileSync(join(CORPUS, file), 'utf8'), (key, value) => {
      if (key === 'pattern' && typeof value === 'string') found.add(value);
      return value;
    });
  }
  return [...found];
}

/** Short strings from the pattern's own characters and a few others (so matches are common). */
function inputsFor(pattern: string, random: () => number): string[] {
  const alphabet = [...new Set([...pattern.replace(/[\\^$()[\]{}|*+?]/g, ''), 'a', 'b', 'z', '0', '9', ' ', '-', '.', '@', 'é', '😀', '\n', '_'])];
  return Array.from({ length: 80 }, () => Array.from({ length: Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join(''));
}

test('the NFA agrees with V8 on hand-written and corpus patterns (seeded inputs)', () => {
  const random = rng(42);
  let compared = 0;
  for (const pattern of [...HANDWRITTEN, ...corpusPatterns()]) {
    let unicode = true;
    let native: RegExp;
    try {
      native = new RegExp(pattern, 'u');
    } catch {
      native = new RegExp(pattern);
      unicode = false;
    }
    const nfa = compileNfa(pattern, unicode);
    assert.ok(nfa, `the NFA runs ${pattern}`);
    for (const input of inputsFor(pattern, random)) {
      assert.equal(nfa.test(input), native.test(input), `/${pattern}/ on ${JSON.stringify(input)}`);
      compared++;
    }
  }
  assert.ok(compared > 5000, String(compared));
});

test('catastrophic patterns answer in well under a second on 50k-character inputs', () => {
  const cases: [string, string, boolean][] = [
    ['^(a+)+$', `${'a'.repeat(50_000)}!`, false],
    ['^(a|a)*$', `${'a'.repeat(50_000)}!`, false],
    ['^(a|aa)+$', `${'a'.repeat(50_000)}b`, false],
    ['(x+x+)+y', 'x'.repeat(50_000), false],
    ['^(\\w+\\s?)*$', `${'word '.repeat(10_000)}!`, false],
    ['([a-z]+)*@', 'a'.repeat(50_000), false],
    ['^(a?){40}a{40}$', 'a'.repeat(40), true],
    ['[a-z]+[0-9]+[a-z]+#', 'a1'.repeat(25_000), false],
  ];
  for (const [pattern, input, expected] of cases) {
    const matcher = compilePattern(pattern, 'u');
    assert.ok(typeof matcher !== 'string', pattern);
    assert.ok(!(matcher instanceof RegExp), `${pattern} does not run on V8's backtracking engine`);
    const started = performance.now();
    assert.equal(matcher.test(input), expected, pattern);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 5000, `${pattern}: ${elapsed.toFixed(0)} ms`);
  }
});

test('patterns whose shape cannot backtrack badly run natively', () => {
  for (const pattern of ['^[a-z]+$', '^\\d{4}-\\d{2}-\\d{2}$', '^(\\d{1,3}\\.){3}\\d{1,3}$', '^[A-Z]{2}(-[0-9]{1,5})?$']) {
    assert.ok(compilePattern(pattern, 'u') instanceof RegExp, pattern);
  }
});

test('the engine warns once about a valid pattern it cannot check safely and lets values through; it throws at one that is no regex', () => {
  const logger = memoryLogger();
  const engine = createSafeRegExp(logger);
  const risky = engine('^(a+)+\\1$', 'u');
  assert.equal(risky.test('anything'), true);
  assert.match(logger.lines[0]!, /pattern "\^\(a\+\)\+\\\\1\$" is not checked: it may backtrack badly/);
  // No regular expression at all: the schema holding it cannot compile (its values are refused, never let through).
  assert.throws(() => engine('(unclosed', 'u'), /pattern "\(unclosed": it is not a valid regular expression/);
  assert.equal(logger.lines.length, 1);
  // Valid only without the `u` flag (an identity escape): still checked.
  const loose = engine('^\\_[a-z]+$', 'u');
  assert.equal(loose.test('_abc'), true);
  assert.equal(loose.test('abc'), false);
  engine('^(a+)+\\1$', 'u');
  assert.equal(logger.lines.length, 1, 'each pattern is compiled and warned about once');
  // ajv caches compiled patterns by their text: each must be distinct.
  assert.notEqual(String(engine('^(a|b)*c$', 'u')), String(engine('^(a|b)*d$', 'u')));
});
