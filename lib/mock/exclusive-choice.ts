// Making a `oneOf` value match its chosen branch only (docs/mocking.md): validation refuses a value that
// matches two branches of a plain `oneOf`, and so does any validator that reads a discriminated one without
// its discriminator. With validation's checks on, a value several branches accept is changed until the others
// refuse it (a property another branch requires is dropped, one it declares is given a value it refuses, the
// same inside shared properties and array items), else the next branch is tried.
import type { Located } from '../contract/refs.js';
import { setOwn } from '../util/objects.js';
import type { SchemaCheck } from '../schema/compiler.js';
import { safeCheck } from './conformance.js';
import { NOTHING, REDRAWS, type Generator, type Synthesis } from './generation.js';
import { factsOf, type Facts } from './schema-facts.js';

/** Values a branch's property schema may refuse, tried in order to make a `oneOf` value fail that branch. */
const REFUSED_CANDIDATES: unknown[] = [null, false, 0, 0.5, '', [], {}];
/** How deep `differ` looks for a place where a `oneOf` value can be made to fail another branch. */
const DIFFER_DEPTH = 4;

/** The facts of the branch an option was made for; index -1: `defaultMapping`'s schema, no branch. */
export interface BranchFacts {
  index: number;
  facts: Facts;
}

/**
 * `oneOf`: the value made for a branch should match it and fail every other one. A plain `oneOf` needs
 * it, or validation refuses the value; a discriminated one is valid for our validation through its
 * mapping, but a validator that reads `oneOf` without the discriminator (most do) needs it too.
 * Without checks: the first fitting branch of a plain `oneOf` (any pick could match two), a random mapped
 * one in dynamic mode for a discriminated one. With them: a value the validator sees matching several
 * branches is made to fail the others (`distinguish`), else the next branch is tried (dynamic mode starts
 * at a random one and draws again); failing all, the first value made is kept (for a plain `oneOf`, the
 * whole body's check then reports it).
 */
export function exclusiveChoice(s: Synthesis, branches: readonly Located[], options: Generator[], branchOf: BranchFacts[], discriminated: boolean): Generator {
  let checks: SchemaCheck[] | undefined;
  let alone: Facts[] | undefined;
  return (g, depth) => {
    const random = g.random;
    if (s.checker === undefined) return (random === undefined || !discriminated || options.length === 1 ? options[0]! : random.pick(options))(g, depth);
    checks ??= branches.map((branch) => s.checker!([branch]));
    alone ??= branches.map((branch) => factsOf([branch], s.contract));
    const start = random === undefined ? 0 : random.int(0, options.length - 1);
    const attempts = random === undefined ? options.length : options.length + REDRAWS;
    let first: unknown = NOTHING;
    for (let n = 0; n < attempts; n++) {
      const k = (start + n) % options.length;
      const value = options[k]!(g, depth);
      if (value === NOTHING) continue;
      if (first === NOTHING) first = value;
      const chosen = branchOf[k]!;
      if (chosen.index === -1) return value; // `defaultMapping`'s schema, no branch: only the mapping decides
      const exclusive = distinguish(s, value, chosen, alone, checks);
      if (exclusive !== undefined) return exclusive;
    }
    return first;
  };
}

/**
 * `value`, made for branch `chosen`, changed so that it matches that branch only (see `differ`), checked
 * against each branch on its own, as `oneOf` checks them. Undefined when that fails.
 */
function distinguish(s: Synthesis, value: unknown, chosen: BranchFacts, alone: Facts[], checks: SchemaCheck[]): unknown {
  const passes = (v: unknown, index: number): boolean => safeCheck(checks[index]!, v) === undefined;
  if (!passes(value, chosen.index)) return undefined;
  let out = value;
  for (const [index, other] of alone.entries()) {
    if (index === chosen.index || !passes(out, index)) continue;
    const changed = differ(s, out, chosen.facts, other, (v) => passes(v, chosen.index) && !passes(v, index), 0);
    if (changed === undefined) return undefined;
    out = changed;
  }
  // A change made against one branch may have let an earlier one pass again.
  return checks.every((_c, index) => passes(out, index) === (index === chosen.index)) ? out : undefined;
}

/**
 * A copy of `value` (valid for `chosen`) that `other` refuses, as judged by `done`: a property `other`
 * requires and `chosen` does not is dropped; a property only `other` declares gets a value it refuses;
 * one only `chosen` declares is added where `other` allows no extra ones; else the same is tried inside
 * a property both declare, or the first item of an array (a few levels deep).
 */
function differ(s: Synthesis, value: unknown, chosen: Facts, other: Facts, done: (v: unknown) => boolean, depth: number): unknown {
  if (depth > DIFFER_DEPTH || value === null || typeof value !== 'object') return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0 || chosen.items.length === 0 || other.items.length === 0) return undefined;
    const inner = (v: unknown): boolean => done([v, ...value.slice(1)]);
    const item = differ(s, value[0], factsOf(chosen.items, s.contract), factsOf(other.items, s.contract), inner, depth + 1);
    return item === undefined ? undefined : [item, ...value.slice(1)];
  }
  const obj = value as Record<string, unknown>;
  const withValue = (name: string, v: unknown): Record<string, unknown> => {
    const changed = { ...obj };
    setOwn(changed, name, v);
    return changed;
  };
  const tryWith = (name: string, v: unknown): Record<string, unknown> | undefined => {
    const changed = withValue(name, v);
    return done(changed) ? changed : undefined;
  };
  for (const name of other.required) {
    if (chosen.required.has(name) || !Object.hasOwn(obj, name)) continue;
    const { [name]: _dropped, ...rest } = obj;
    if (done(rest)) return rest;
  }
  if (chosen.additional !== false) {
    for (const name of other.properties.keys()) {
      if (chosen.properties.has(name)) continue;
      for (const candidate of REFUSED_CANDIDATES) {
        const changed = tryWith(name, candidate);
        if (changed !== undefined) return changed;
      }
    }
  }
  if (other.additional === false) {
    for (const [name, parts] of chosen.properties) {
      if (other.properties.has(name) || Object.hasOwn(obj, name)) continue;
      const made = s.generatorOf(parts)({ random: undefined, spent: 0 }, depth + 1);
      const changed = made === NOTHING ? undefined : tryWith(name, made);
      if (changed !== undefined) return changed;
    }
  }
  for (const [name, parts] of chosen.properties) {
    const theirs = other.properties.get(name);
    if (theirs === undefined || !Object.hasOwn(obj, name)) continue;
    const inner = (v: unknown): boolean => done(withValue(name, v));
    const made = differ(s, obj[name], factsOf(parts, s.contract), factsOf(theirs, s.contract), inner, depth + 1);
    if (made !== undefined) return withValue(name, made);
  }
  return undefined;
}
