// Contract `pattern`s must never let one request hang the process (docs/security.md#hostile-input). V8's backtracking engine is
// exponential on patterns like `^(a+)+$` and polynomial on unanchored or multi-quantifier ones, so every
// pattern is parsed once and then:
//   - run natively when its shape cannot backtrack badly (anchored at the start, at most one wide
//     quantifier, no repeated group that itself repeats or alternates);
//   - otherwise run on our own Thompson-NFA simulation, linear in the input (no backtracking at all), with a
//     step budget as a last bound;
//   - a risky pattern the NFA cannot run (back-references, lookarounds) is not checked: warned once.
// Character classes and escapes are matched one code point at a time by V8 itself (`^(?:[...])$` on a single
// character cannot backtrack), so their semantics are exactly JavaScript's.
import type { Logger } from '../util/log.js';

/** What ajv's `code.regExp` option expects. */
export interface RegExpLike {
  test(s: string): boolean;
}
export interface RegExpEngine {
  (pattern: string, flags: string): RegExpLike;
  code: string;
}

/** A quantifier that may repeat more often than this counts as "wide" in the risk analysis. */
const WIDE = 20;
const MAX_PROGRAM = 20_000;
/** Upper bound on NFA thread steps for one test; a value costing more is reported as not matching. */
export const STEP_BUDGET = 20_000_000;

export type CharTest = (cp: number) => boolean;
/** A parsed pattern; the mock's string generator walks it too (lib/mock/pattern.ts). */
export type PatternNode =
  | { t: 'char'; test: CharTest }
  | { t: 'seq'; items: Node[] }
  | { t: 'alt'; alts: Node[] }
  | { t: 'rep'; body: Node; min: number; max: number }
  | { t: 'assert'; kind: '^' | '$' | 'b' | 'B' }
  /** Back-references and lookarounds: parsed for the risk analysis, not runnable by the NFA. */
  | { t: 'opaque'; body: Node | undefined };
type Node = PatternNode;

/**
 * The engine for one facade. A pattern that is not a valid JavaScript regex (even without the `u` flag) is
 * thrown at: the schema holding it cannot be compiled, and its values are refused, never passed unchecked
 * (lib/schema/compiler.ts). A valid pattern that is risky and not runnable safely is warned about once
 * and not checked (a request must not be able to hang the process, docs/security.md#hostile-input).
 */
export function createSafeRegExp(logger: Logger): RegExpEngine {
  // ajv asks again each time it compiles a schema holding the pattern: answer (and warn) once.
  const known = new Map<string, RegExpLike>();
  const engine = ((pattern: string, flags: string): RegExpLike => {
    const key = `${flags}/${pattern}`;
    let matcher = known.get(key);
    if (matcher !== undefined) return matcher;
    const compiled = compilePattern(pattern, flags);
    if (typeof compiled === 'string' && compiled.startsWith(NOT_A_REGEX)) throw new Error(`pattern ${JSON.stringify(pattern)}: ${compiled}`);
    if (typeof compiled === 'string') {
      logger.warn(`validation: pattern ${JSON.stringify(pattern)} is not checked: ${compiled}`);
      matcher = { test: () => true, toString: () => `unchecked:${pattern}` } as RegExpLike;
    } else matcher = compiled;
    known.set(key, matcher);
    return matcher;
  }) as RegExpEngine;
  engine.code = 'safeRegExp';
  return engine;
}

/** How the reason for a pattern that no JavaScript engine reads begins. */
const NOT_A_REGEX = 'it is not a valid regular expression';

/** A safe tester for a pattern, or the reason it cannot be checked safely. */
export function compilePattern(pattern: string, flags: string): RegExpLike | string {
  const read = readPattern(pattern, flags);
  return typeof read === 'string' ? read : read.tester;
}

/** A pattern read once: its syntax tree (the mock's generator walks it), the mode it was read in, and its tester. */
export interface ReadPattern {
  ast: PatternNode;
  unicode: boolean;
  /** A safe tester, or the reason the pattern cannot be checked safely. */
  tester: RegExpLike | string;
}

/** Reads a pattern as `compilePattern` does; a string when it is no regular expression the parser understands. */
export function readPattern(pattern: string, flags: string): ReadPattern | string {
  let native: RegExp;
  let unicode = flags.includes('u');
  try {
    native = new RegExp(pattern, flags);
  } catch {
    try {
      // Contracts often carry patterns written for engines without the `u` flag's stricter escapes.
      native = new RegExp(pattern, flags.replace('u', ''));
      unicode = false;
    } catch (err) {
      return `${NOT_A_REGEX} (${(err as Error).message})`;
    }
  }
  let ast: Node;
  try {
    ast = new Parser(pattern, unicode).parse();
  } catch {
    return 'its syntax is not understood by the safe matcher';
  }
  return { ast, unicode, tester: testerFor(ast, native, unicode, `/${pattern}/${flags}`) };
}

function testerFor(ast: Node, native: RegExp, unicode: boolean, source: string): RegExpLike | string {
  if (backtracksSafely(ast)) return native;
  if (containsOpaque(ast)) return 'it may backtrack badly and uses back-references or lookarounds';
  return nfaFor(ast, unicode, source) ?? 'it is too large for the safe matcher';
}

/** The linear-time matcher for a pattern, whatever its shape; undefined when it needs what the NFA lacks. */
export function compileNfa(pattern: string, unicode: boolean): RegExpLike | undefined {
  const ast = new Parser(pattern, unicode).parse();
  return containsOpaque(ast) ? undefined : nfaFor(ast, unicode, `/${pattern}/${unicode ? 'u' : ''}`);
}

function nfaFor(ast: Node, unicode: boolean, source: string): RegExpLike | undefined {
  const program = compileProgram(ast);
  return program === undefined ? undefined : new NfaRegExp(program, unicode, startsAnchored(ast), source);
}

// ---------------------------------------------------------------------------------------------------------
// Parsing: just enough structure for the risk analysis and the NFA; atoms keep JavaScript's own semantics.

const ASSERT_B = /^[bB]$/;

class Parser {
  private i = 0;
  private readonly testers = new Map<string, CharTest>();

  constructor(
    private readonly src: string,
    private readonly unicode: boolean,
  ) {}

  parse(): Node {
    const node = this.alternation();
    if (this.i < this.src.length) throw new Error('unbalanced )');
    return node;
  }

  private alternation(): Node {
    const alts = [this.sequence()];
    while (this.src[this.i] === '|') {
      this.i++;
      alts.push(this.sequence());
    }
    return alts.length === 1 ? alts[0]! : { t: 'alt', alts };
  }

  private sequence(): Node {
    const items: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length === 1 ? items[0]! : { t: 'seq', items };
  }

  private quantified(atom: Node): Node {
    const c = this.src[this.i];
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) {
        if (this.unicode) throw new Error('lone {');
        return atom; // a literal `{`, already consumed by atom() on the next turn
      }
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (this.src[this.i] === '?') this.i++; // laziness does not change whether a match exists
    if (atom.t === 'assert') return atom;
    return { t: 'rep', body: atom, min, max };
  }

  private atom(): Node {
    const src = this.src;
    const c = src[this.i]!;
    if (c === '(') return this.group();
    if (c === '^' || c === '$') {
      this.i++;
      return { t: 'assert', kind: c };
    }
    if (c === '[') return this.charClass();
    if (c === '\\') return this.escape();
    if (c === '.') {
      this.i++;
      return { t: 'char', test: this.tester('.') };
    }
    if (c === ')' || c === '*' || c === '+' || c === '?') throw new Error(`unexpected ${c}`);
    const cp = this.unicode ? src.codePointAt(this.i)! : src.charCodeAt(this.i);
    this.i += cp > 0xffff ? 2 : 1;
    return { t: 'char', test: (x) => x === cp };
  }

  private group(): Node {
    const src = this.src;
    this.i++; // (
    let opaque = false;
    if (src[this.i] === '?') {
      const rest = src.slice(this.i, this.i + 3);
      if (rest.startsWith('?:')) this.i += 2;
      else if (rest.startsWith('?=') || rest.startsWith('?!')) [this.i, opaque] = [this.i + 2, true];
      else if (rest === '?<=' || rest === '?<!') [this.i, opaque] = [this.i + 3, true];
      else if (rest.startsWith('?<')) {
        const close = src.indexOf('>', this.i);
        if (close === -1) throw new Error('bad group name');
        this.i = close + 1;
      } else throw new Error('unknown group');
    }
    const body = this.alternation();
    if (src[this.i] !== ')') throw new Error('missing )');
    this.i++;
    return opaque ? { t: 'opaque', body } : body;
  }

  private charClass(): Node {
    const src = this.src;
    const start = this.i;
    this.i++;
    if (src[this.i] === '^') this.i++;
    // `[]` and `[^]` are complete classes in JavaScript; otherwise the first `]` closes the class.
    while (this.i < src.length && src[this.i] !== ']') this.i += src[this.i] === '\\' ? 2 : 1;
    if (this.i >= src.length) throw new Error('unterminated class');
    this.i++;
    return { t: 'char', test: this.tester(src.slice(start, this.i)) };
  }

  private escape(): Node {
    const src = this.src;
    const start = this.i;
    const c = src[this.i + 1];
    if (c === undefined) throw new Error('trailing backslash');
    this.i += 2;
    if (ASSERT_B.test(c)) return { t: 'assert', kind: c as 'b' | 'B' };
    if (/[1-9]/.test(c)) {
      while (/\d/.test(src[this.i] ?? '')) this.i++;
      return { t: 'opaque', body: undefined };
    }
    if (c === 'k' && src[this.i] === '<') {
      const close = src.indexOf('>', this.i);
      if (close === -1) throw new Error('bad back-reference');
      this.i = close + 1;
      return { t: 'opaque', body: undefined };
    }
    if ((c === 'p' || c === 'P') && this.unicode) this.i = this.closing('}', start);
    else if (c === 'u' && src[this.i] === '{' && this.unicode) this.i = this.closing('}', start);
    else if (c === 'u' && /^[0-9a-fA-F]{4}/.test(src.slice(this.i))) {
      this.i += 4;
      // A surrogate pair written as two \u escapes is one code point in unicode mode.
      if (this.unicode && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(src.slice(this.i)) && /[dD][89abAB]/.test(src.slice(start + 2, start + 4))) this.i += 6;
    } else if (c === 'x' && /^[0-9a-fA-F]{2}/.test(src.slice(this.i))) this.i += 2;
    else if (c === 'c' && /[a-zA-Z]/.test(src[this.i] ?? '')) this.i += 1;
    return { t: 'char', test: this.tester(src.slice(start, this.i)) };
  }

  private closing(ch: string, start: number): number {
    const close = this.src.indexOf(ch, this.i);
    if (close === -1) throw new Error(`unterminated escape at ${start}`);
    return close + 1;
  }

  /** A one-character tester with JavaScript's semantics for a class, escape or `.`; ASCII answers precomputed. */
  private tester(atom: string): CharTest {
    const cached = this.testers.get(atom);
    if (cached) return cached;
    const re = new RegExp(`^(?:${atom})$`, this.unicode ? 'u' : '');
    const ascii = new Uint8Array(128);
    for (let cp = 0; cp < 128; cp++) ascii[cp] = re.test(String.fromCharCode(cp)) ? 1 : 0;
    const test: CharTest = (cp) => (cp < 128 ? ascii[cp] === 1 : re.test(String.fromCodePoint(cp)));
    this.testers.set(atom, test);
    return test;
  }
}

// ---------------------------------------------------------------------------------------------------------
// Risk analysis

function startsAnchored(node: Node): boolean {
  if (node.t === 'assert') return node.kind === '^';
  if (node.t === 'seq') return node.items.length > 0 && startsAnchored(node.items[0]!);
  if (node.t === 'alt') return node.alts.every(startsAnchored);
  return false;
}

/** True when V8's backtracking stays linear-ish on this shape (see the file comment). */
function backtracksSafely(ast: Node): boolean {
  if (!startsAnchored(ast)) return false;
  let wide = 0;
  let nestedRisk = false;
  const walk = (node: Node | undefined, outerMax: number): void => {
    if (node === undefined) return;
    switch (node.t) {
      case 'seq':
        for (const n of node.items) walk(n, outerMax);
        return;
      case 'alt':
        if (outerMax > 1) nestedRisk = true;
        for (const n of node.alts) walk(n, outerMax);
        return;
      case 'rep':
        if (node.max > WIDE) wide++;
        // A repetition of a variable-count repetition is where backtracking multiplies.
        if (node.max > node.min && outerMax > 1 && (outerMax > 10 || node.max > 10)) nestedRisk = true;
        walk(node.body, node.max > 1 ? Math.max(outerMax, node.max) : outerMax);
        return;
      case 'opaque':
        walk(node.body, outerMax);
        return;
      default:
        return;
    }
  };
  walk(ast, 1);
  return wide <= 1 && !nestedRisk;
}

/** True when `test` holds for some node of the tree. */
export function someNode(node: Node, test: (n: Node) => boolean): boolean {
  if (test(node)) return true;
  switch (node.t) {
    case 'seq':
      return node.items.some((n) => someNode(n, test));
    case 'alt':
      return node.alts.some((n) => someNode(n, test));
    case 'rep':
      return someNode(node.body, test);
    case 'opaque':
      return node.body !== undefined && someNode(node.body, test);
    default:
      return false;
  }
}

function containsOpaque(node: Node): boolean {
  return someNode(node, (n) => n.t === 'opaque');
}

// ---------------------------------------------------------------------------------------------------------
// Thompson NFA (Pike VM without captures): every position is visited once with a set of states.

const CHAR = 0;
const SPLIT = 1;
const JMP = 2;
const ASSERT = 3;
const MATCH = 4;

interface Program {
  op: number[];
  /** CHAR: tester index; SPLIT/JMP: first target; ASSERT: kind code. */
  a: number[];
  /** SPLIT: second target. */
  b: number[];
  tests: CharTest[];
}

const ASSERT_KINDS = { '^': 0, $: 1, b: 2, B: 3 } as const;

function compileProgram(ast: Node): Program | undefined {
  const p: Program = { op: [], a: [], b: [], tests: [] };
  const emit = (op: number, a = 0, b = 0): number => {
    if (p.op.length >= MAX_PROGRAM) throw new RangeError('program too large');
    p.op.push(op);
    p.a.push(a);
    p.b.push(b);
    return p.op.length - 1;
  };
  const gen = (node: Node): void => {
    switch (node.t) {
      case 'char':
        emit(CHAR, p.tests.push(node.test) - 1);
        return;
      case 'assert':
        emit(ASSERT, ASSERT_KINDS[node.kind]);
        return;
      case 'seq':
        for (const n of node.items) gen(n);
        return;
      case 'alt': {
        const jumps: number[] = [];
        node.alts.forEach((alt, k) => {
          if (k < node.alts.length - 1) {
            const split = emit(SPLIT);
            p.a[split] = split + 1;
            gen(alt);
            jumps.push(emit(JMP));
            p.b[split] = p.op.length;
          } else gen(alt);
        });
        for (const j of jumps) p.a[j] = p.op.length;
        return;
      }
      case 'rep': {
        for (let k = 0; k < node.min; k++) gen(node.body);
        if (node.max === Infinity) {
          const split = emit(SPLIT);
          p.a[split] = split + 1;
          gen(node.body);
          emit(JMP, split);
          p.b[split] = p.op.length;
          return;
        }
        const splits: number[] = [];
        for (let k = node.min; k < node.max; k++) {
          const split = emit(SPLIT);
          p.a[split] = split + 1;
          splits.push(split);
          gen(node.body);
        }
        for (const s of splits) p.b[s] = p.op.length;
        return;
      }
      case 'opaque':
        throw new Error('not runnable');
    }
  };
  try {
    gen(ast);
    emit(MATCH);
  } catch (err) {
    if (err instanceof RangeError) return undefined;
    throw err;
  }
  return p;
}

const WORD = /\w/;
const isWord = (cp: number): boolean => cp >= 0 && cp < 128 && WORD.test(String.fromCharCode(cp));

class NfaRegExp implements RegExpLike {
  private readonly marks: Int32Array;
  private generation = 0;
  private readonly stack: number[] = [];

  constructor(
    private readonly p: Program,
    private readonly unicode: boolean,
    private readonly anchored: boolean,
    private readonly source: string,
  ) {
    this.marks = new Int32Array(p.op.length);
  }

  toString(): string {
    return `nfa:${this.source}`;
  }

  test(s: string): boolean {
    const { p, unicode } = this;
    let current: number[] = [];
    let next: number[] = [];
    let steps = 0;
    let prev = -1;
    let pos = 0;
    for (;;) {
      const cp = pos < s.length ? (unicode ? s.codePointAt(pos)! : s.charCodeAt(pos)) : -1;
      if (++this.generation === 0x7fffffff) {
        // The marks are an Int32Array: start the generations over before they would wrap.
        this.marks.fill(0);
        this.generation = 1;
      }
      // Threads carried over from the previous character get their closures at this position.
      const carried = current;
      current = [];
      for (const pc of carried) if (this.close(pc, current, pos === 0, cp === -1, prev, cp)) return true;
      if (pos === 0 || !this.anchored) {
        if (this.close(0, current, pos === 0, cp === -1, prev, cp)) return true;
      }
      if (cp === -1 || current.length === 0) {
        if (cp === -1 || this.anchored) return false;
      }
      steps += current.length;
      if (steps > STEP_BUDGET) return false;
      next = [];
      for (const pc of current) if (p.op[pc] === CHAR && p.tests[p.a[pc]!]!(cp)) next.push(pc + 1);
      current = next;
      prev = cp;
      pos += cp > 0xffff ? 2 : 1;
    }
  }

  /** Adds the epsilon closure of `start` to `list`; true when it reaches MATCH. */
  private close(start: number, list: number[], atStart: boolean, atEnd: boolean, prev: number, cp: number): boolean {
    const { p, marks, generation, stack } = this;
    stack.length = 0;
    stack.push(start);
    while (stack.length > 0) {
      const pc = stack.pop()!;
      if (marks[pc] === generation) continue;
      marks[pc] = generation;
      switch (p.op[pc]) {
        case MATCH:
          return true;
        case CHAR:
          list.push(pc);
          break;
        case JMP:
          stack.push(p.a[pc]!);
          break;
        case SPLIT:
          stack.push(p.b[pc]!, p.a[pc]!);
          break;
        case ASSERT: {
          const kind = p.a[pc];
          const boundary = isWord(prev) !== isWord(cp);
          const ok = kind === 0 ? atStart : kind === 1 ? atEnd : kind === 2 ? boundary : !boundary;
          if (ok) stack.push(pc + 1);
          break;
        }
      }
    }
    return false;
  }
}
