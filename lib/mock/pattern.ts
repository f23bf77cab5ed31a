// Strings that match a contract's `pattern`, for synthesized mock bodies. The pattern is parsed by the same
// parser the safe matcher uses (lib/schema/safe-regex.ts): literals, classes, escapes, `.`, quantifiers,
// groups, alternation and anchors are generated; lookarounds generate nothing themselves (the candidates
// that happen to satisfy them are kept); back-references are not supported. Every candidate is checked by
// the safe matcher before it is used, so a generated string always really matches, and the work is bounded
// (a few attempts, a length cap): an unsupported or impossible pattern gives undefined.
import { readPattern, someNode, type CharTest, type PatternNode, type RegExpLike } from '../schema/safe-regex.js';
import { Random } from './random.js';

export interface LengthBounds {
  min: number;
  max: number;
}

/** Generates strings for one pattern; undefined from `sample` when none can be made. */
export interface PatternSampler {
  sample(random: Random | undefined, bounds: LengthBounds): string | undefined;
}

const MAX_OUTPUT = 4096;
/** Extra repetitions tried, in turn, when the shortest string is shorter than `minLength` (static mode). */
const GROWTH = [0, 1, 2, 4, 8, 16, 32, 64, 256];
/** Then (and in dynamic mode at once) random candidates; static mode seeds them by attempt, so it stays fixed. */
const RANDOM_ATTEMPTS = 16;
/** How far past its minimum a repetition goes in a random candidate. */
const RANDOM_SPREAD = 6;

/** A contract pattern as the mock uses it, read once: strings made for it, and the tester of candidate values. */
export interface MockPattern {
  /** The sampler, or the reason none can be made (for the note the mock logs once). */
  sampler: PatternSampler | string;
  /** The safe matcher; undefined when the pattern cannot be checked (so it does not constrain). */
  tester: RegExpLike | undefined;
}

export function compileMockPattern(pattern: string): MockPattern {
  // With the `u` flag where the pattern reads that way, else as written for engines without it.
  let read = readPattern(pattern, 'u');
  if (typeof read === 'string') read = readPattern(pattern, '');
  if (typeof read === 'string') return { sampler: 'it is not a regular expression the generator understands', tester: undefined };
  const tester = typeof read.tester === 'string' ? undefined : read.tester;
  if (hasBackReference(read.ast)) return { sampler: 'it uses back-references', tester };
  return { sampler: tester === undefined ? (read.tester as string) : new Sampler(read.ast, tester), tester };
}

class Sampler implements PatternSampler {
  constructor(
    private readonly ast: PatternNode,
    private readonly tester: RegExpLike,
  ) {}

  sample(random: Random | undefined, bounds: LengthBounds): string | undefined {
    if (random === undefined) {
      for (const growth of GROWTH) {
        const found = this.attempt(undefined, growth, bounds);
        if (found !== undefined) return found;
      }
    }
    for (let i = 0; i < RANDOM_ATTEMPTS; i++) {
      const found = this.attempt(random ?? new Random(`pattern ${i}`), 0, bounds);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private attempt(random: Random | undefined, growth: number, bounds: LengthBounds): string | undefined {
    const out: string[] = [];
    return generate(this.ast, random, growth, out) ? this.fit(out.join(''), bounds) : undefined;
  }

  /** The candidate itself, or padded to `minLength` when the pattern allows it; checked by the matcher. */
  private fit(candidate: string, bounds: LengthBounds): string | undefined {
    const length = codePoints(candidate);
    if (length > bounds.max) return undefined;
    if (length >= bounds.min) return this.tester.test(candidate) ? candidate : undefined;
    const padding = 'a'.repeat(bounds.min - length);
    for (const padded of [candidate + padding, padding + candidate]) if (this.tester.test(padded)) return padded;
    return undefined;
  }
}

/** Appends a string for `node` to `out`; false when it cannot be generated. */
function generate(node: PatternNode, random: Random | undefined, growth: number, out: string[]): boolean {
  switch (node.t) {
    case 'char': {
      const candidates = charactersFor(node.test);
      if (candidates.length === 0) return false;
      out.push(random === undefined ? candidates[0]! : random.pick(candidates));
      return true;
    }
    case 'seq':
      for (const item of node.items) if (!generate(item, random, growth, out)) return false;
      return true;
    case 'alt': {
      const start = random === undefined ? 0 : random.int(0, node.alts.length - 1);
      for (let k = 0; k < node.alts.length; k++) {
        const mark = out.length;
        if (generate(node.alts[(start + k) % node.alts.length]!, random, growth, out)) return true;
        out.length = mark;
      }
      return false;
    }
    case 'rep': {
      const upper = Math.min(node.max, node.min + (random === undefined ? growth : RANDOM_SPREAD));
      const count = random === undefined ? upper : random.int(node.min, upper);
      for (let k = 0; k < count; k++) {
        if (!generate(node.body, random, growth, out)) return false;
        if (out.length > MAX_OUTPUT) return false;
      }
      return true;
    }
    case 'assert':
      return true; // anchors and word boundaries produce nothing; the matcher checks the result
    case 'opaque':
      // A lookaround consumes nothing (the matcher checks it); a back-reference cannot be generated.
      return node.body !== undefined;
  }
}

/** A back-reference is an opaque node without a body (a lookaround keeps its body). */
function hasBackReference(node: PatternNode): boolean {
  return someNode(node, (n) => n.t === 'opaque' && n.body === undefined);
}

const candidateCache = new WeakMap<CharTest, string[]>();
/** Preferred order: what reads naturally in a sample first. */
const PREFERRED = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-_.~ !#$%&\'()*+,/:;<=>?@[\\]^`{|}"';
const MAX_CANDIDATES = 96;

/** The characters a class, escape or `.` matches: printable ASCII first, then the rest of the BMP. */
function charactersFor(test: CharTest): string[] {
  let list = candidateCache.get(test);
  if (list !== undefined) return list;
  list = [];
  for (const ch of PREFERRED) if (test(ch.charCodeAt(0))) list.push(ch);
  for (let cp = 0xa1; list.length < MAX_CANDIDATES && cp < 0xd800; cp++) if (test(cp)) list.push(String.fromCharCode(cp));
  candidateCache.set(test, list);
  return list;
}

/** Length as JSON Schema counts it: code points, a surrogate pair being one. */
export function codePoints(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
