// Values synthesized from response schemas (docs/mocking.md), for mocks. A schema is compiled once per contract
// into a generator (a closure tree, built lazily, so recursive schemas and huge contracts cost only what is
// used); running it with no random source gives the static sample, with a seeded `Random` dynamic data.
//
// Static order per value: `const`, the schema's own `example` / first `examples` / `default` (when they
// fit the schema's own constraints), the first `enum` value, else a sample by type and `format` honouring
// bounds, `multipleOf`, lengths and `pattern`. Dynamic mode skips examples and defaults and picks at random.
// Structure: required properties always, optional ones too (down to a small depth and within a budget of
// values, then only required ones, which keeps recursion finite without breaking `required`); writeOnly
// properties are left out (these are responses); `oneOf`/`anyOf` take the first branch that fits (dynamic
// mode varies it where that stays valid), with the discriminator's value set.
//
// Once the facade's validator is available (`useChecks`), values are also checked the way validation checks
// them (docs/mocking.md): a contract sample is used only when it validates as a whole (nested values included); a
// `oneOf` value (discriminated or not) must match its chosen branch and fail the others (a property another
// branch requires is dropped, one it declares is given a value it refuses, the same inside shared properties
// and array items, else the next branch is tried); an optional property whose pattern cannot be generated
// is left out; and a whole body that still fails is drawn again, a few times, before the closest one is
// served and the log says so once, naming the schema.
import type { Contract } from '../contract/load.js';
import { isRef, type Located } from '../contract/refs.js';
import { setOwn } from '../util/objects.js';
import { derefRef, discriminatorDispatch, schemaRef, type Dispatch } from '../schema/discriminator.js';
import type { RegExpLike } from '../schema/safe-regex.js';
import type { ErrorObject } from 'ajv';
import type { SchemaCheck } from '../schema/compiler.js';
import { factsOf, mergeFacts, type Facts, type JsonType } from './schema-facts.js';
import { filler, formatSample, matchesFormat, plainSample } from './formats.js';
import { codePoints, compileMockPattern, type MockPattern, type PatternSampler } from './pattern.js';
import { Random } from './random.js';

/** One generation: the random source (undefined in static mode) and how many values it has made. */
export interface Generation {
  random: Random | undefined;
  spent: number;
}

export type Generator = (g: Generation, depth: number) => unknown;

/** Returned when no value can be made (an impossible schema); such a property stays out. */
export const NOTHING: unique symbol = Symbol('nothing');

/** Below this depth objects carry optional properties too and arrays at least one item. */
const OPTIONAL_DEPTH = 6;
/** Beyond this depth objects and arrays are cut short even when required properties remain. */
const HARD_DEPTH = 24;
/** After this many values, only what `required` and `minItems` demand is added. */
const BUDGET = 1500;
/** Dynamic mode: how often a nullable value is null, and an optional property left out. */
const NULL_CHANCE = 0.1;
const OMIT_CHANCE = 0.2;
/** Dynamic mode: extra array items beyond the minimum (at least one). */
const EXTRA_ITEMS = 3;
const INT32: [number, number] = [-2147483648, 2147483647];
const INT64: [number, number] = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
/** How many neighbouring multiples are tried for `multipleOf`. */
const MULTIPLE_TRIES = 64;
/** Unbounded numbers in dynamic mode stay within this span of the one bound (or of 0). */
const DYNAMIC_SPAN = 1000;

const anyValue: Generator = (_g, depth) => (depth === 0 ? {} : 'string');

/** Compiles the check of values against schemas that all apply (the facade's response validation). */
export type SchemaChecker = (parts: readonly Located[]) => SchemaCheck;
/** How many more times a value that fails its schema is drawn (with fixed seeds in static mode). */
const REDRAWS = 4;
/** Values a branch's property schema may refuse, tried in order to make a `oneOf` value fail that branch. */
const REFUSED_CANDIDATES: unknown[] = [null, false, 0, 0.5, '', [], {}];
/** How deep `differ` looks for a place where a `oneOf` value can be made to fail another branch. */
const DIFFER_DEPTH = 4;

export class Synthesizer {
  private readonly bySchema = new WeakMap<object, Generator>();
  private readonly patterns = new Map<string, MockPattern>();
  private componentNames: WeakMap<object, string> | undefined;
  private checker: SchemaChecker | undefined;
  /** Schemas (by label) already logged as having no valid value: once each, whatever the errors of a draw. */
  private readonly unsatisfied = new Set<string>();

  constructor(
    private readonly contract: Contract,
    /** Warnings for the log (a pattern that cannot be generated, a schema that cannot be resolved); each once. */
    readonly note: (message: string) => void,
  ) {}

  /** From now on, values are checked by validation's compiled schemas (see the top of this file). */
  useChecks(checker: SchemaChecker): void {
    this.checker = checker;
  }

  /**
   * The generator for a whole body: values that fail the schema are drawn again (REDRAWS times); the last
   * resort is the first value made, and the log says once, naming the schema (`label`), that none validated.
   */
  conforming(schema: unknown, uri: string, label: string): Generator {
    const gen = this.generator(schema, uri);
    let check: SchemaCheck | undefined;
    return (g, depth) => {
      const first = gen(g, depth);
      if (this.checker === undefined || first === NOTHING) return first;
      check ??= this.checker([{ value: schema, uri }]);
      let errors = safeCheck(check, first);
      for (let n = 1; errors !== undefined && n <= REDRAWS; n++) {
        const source = g.random === undefined ? { random: new Random(`redraw-${n}`), spent: 0 } : g;
        const value = gen(source, depth);
        if (value !== NOTHING && (errors = safeCheck(check, value)) === undefined) return value;
      }
      if (errors !== undefined && !this.unsatisfied.has(label)) {
        this.unsatisfied.add(label);
        this.note(`mock: no value valid against ${label} can be synthesized (${describeErrors(errors)}); the closest one is served`);
      }
      return first;
    };
  }

  /** Whether a value passes the compiled check of `f`'s schemas (true while there are no checks). */
  private conforms(value: unknown, f: Facts, cache: { check?: SchemaCheck }): boolean {
    if (this.checker === undefined || f.sources.length === 0) return true;
    cache.check ??= this.checker(f.sources);
    return safeCheck(cache.check, value) === undefined;
  }

  /** The generator for a schema found in document `uri`; undefined schema: any value. */
  generator(schema: unknown, uri: string): Generator {
    if (schema === undefined) return anyValue;
    let located: Located = { value: schema, uri };
    // A plain `$ref` (3.0, or 3.1 without siblings) shares the generator of its target.
    if (isRef(schema) && (this.contract.version === '3.0' || Object.keys(schema).length === 1)) located = this.contract.refs.deref(schema, uri);
    const key = located.value;
    if (key === null || typeof key !== 'object') return this.compile(factsOf([located], this.contract), undefined);
    let gen = this.bySchema.get(key);
    if (gen === undefined) {
      let compiled: Generator | undefined;
      gen = (g, depth) => (compiled ??= this.compile(factsOf([located], this.contract), key))(g, depth);
      this.bySchema.set(key, gen);
    }
    return gen;
  }

  /** The generator for the facts of several schemas that all apply. */
  private generatorOf(parts: readonly Located[]): Generator {
    if (parts.length === 0) return anyValue;
    if (parts.length === 1) return this.generator(parts[0]!.value, parts[0]!.uri);
    let compiled: Generator | undefined;
    return (g, depth) => (compiled ??= this.compile(factsOf(parts, this.contract), undefined))(g, depth);
  }

  private compile(f: Facts, self: object | undefined): Generator {
    if (f.impossible) return () => NOTHING;
    if (f.constValue !== undefined) {
      const { value } = f.constValue;
      return () => value;
    }
    if (f.choices.length > 0) return this.choice(f);
    const fitting = f.samples.filter((s) => this.fits(s, f));
    const checks: { check?: SchemaCheck } = {};
    // A sample is checked as a whole once checks are on: `fits` looks at its own level only.
    let checked: { value: unknown } | null | undefined;
    const sampleOf = (): { value: unknown } | null => {
      if (checked !== undefined) return checked;
      const found = fitting.find((s) => this.conforms(s, f, checks));
      const result = found === undefined ? null : { value: found };
      if (this.checker !== undefined) checked = result;
      return result;
    };
    const hasSample = fitting.length > 0;
    const enumValues = f.enumValues?.filter((v) => this.fits(v, { ...f, enumValues: undefined }));
    const hasEnum = enumValues !== undefined && enumValues.length > 0;
    const kinds = (f.types ?? (f.hinted ? [f.hinted] : [])).filter((t) => t !== 'null');
    const onlyNull = f.types !== undefined && kinds.length === 0;
    const nullable = f.nullable && (f.types === undefined || f.types.includes('null'));
    const typed = kinds.map((kind) => this.typed(kind, f, self));
    const untyped = typed.length === 0;

    return (g, depth) => {
      g.spent++;
      const random = g.random;
      if (random === undefined) {
        const sample = hasSample ? sampleOf() : null;
        if (sample !== null) return sample.value;
        if (hasEnum) return enumValues[0];
      } else if (hasEnum) return random.pick(enumValues);
      if (onlyNull || (nullable && (depth > HARD_DEPTH || (random !== undefined && random.chance(NULL_CHANCE))))) return null;
      if (untyped) return anyValue(g, depth);
      return (random === undefined || typed.length === 1 ? typed[0]! : random.pick(typed))(g, depth);
    };
  }

  private typed(kind: JsonType, f: Facts, self: object | undefined): Generator {
    switch (kind) {
      case 'object':
        return this.object(f, self);
      case 'array':
        return this.array(f);
      case 'string':
        return this.string(f);
      case 'integer':
      case 'number':
        return numberGenerator(f, kind === 'integer');
      default:
        return (g) => (g.random === undefined ? true : g.random.chance(0.5));
    }
  }

  private object(f: Facts, self: object | undefined): Generator {
    const props: { name: string; required: boolean; gen: Generator; patterned?: Facts; checks: { check?: SchemaCheck } }[] = [];
    for (const [name, parts] of f.properties) {
      const facts = factsOf(parts, this.contract);
      if (facts.writeOnly) continue; // never in a response
      // A pattern no string can be generated for: an optional property is left out rather than served wrong.
      const patterned = facts.patterns.length > 0 ? facts : undefined;
      props.push({ name, required: f.required.has(name), gen: this.generatorOf(parts), patterned, checks: {} });
    }
    const extra = f.additional === false ? undefined : this.generatorOf(f.additional);
    for (const name of f.required) {
      if (!f.properties.has(name)) props.push({ name, required: true, gen: extra ?? anyValue, checks: {} });
    }
    const patternProps = f.patternProperties.flatMap(([pattern, located]) => {
      const key = this.sampler(pattern)?.sample(undefined, { min: 1, max: 64 });
      return key === undefined ? [] : [{ key, gen: this.generator(located.value, located.uri) }];
    });
    // With nothing declared but `additionalProperties: {schema}`, show one entry (Swagger's convention).
    const showExtra = f.properties.size === 0 && patternProps.length === 0 && f.additional !== false && f.additional.length > 0;
    const minProps = f.minProperties ?? 0;
    const maxProps = f.maxProperties ?? Infinity;
    const discriminator = this.inheritedDiscriminator(f, self);

    return (g, depth) => {
      const out: Record<string, unknown> = {};
      if (depth > HARD_DEPTH) return out;
      const full = depth < OPTIONAL_DEPTH && g.spent < BUDGET;
      let count = 0;
      const random = g.random;
      for (const p of props) {
        if (!p.required && (!full || count >= maxProps || (random !== undefined && random.chance(OMIT_CHANCE)))) continue;
        const value = p.gen(g, depth + 1);
        if (value === NOTHING || (!p.required && p.patterned !== undefined && !this.conforms(value, p.patterned, p.checks))) continue;
        setOwn(out, p.name, value);
        count++;
      }
      if (full) {
        for (const p of patternProps) {
          if (count >= maxProps || Object.hasOwn(out, p.key)) continue;
          const value = p.gen(g, depth + 1);
          if (value !== NOTHING) [out[p.key], count] = [value, count + 1];
        }
      }
      if (extra !== undefined) {
        for (let n = 1; (count < minProps || (full && showExtra && n === 1)) && count < maxProps && n <= minProps + 1; n++) {
          const key = `additionalProp${n}`;
          if (Object.hasOwn(out, key)) continue;
          const value = extra(g, depth + 1);
          if (value !== NOTHING) [out[key], count] = [value, count + 1];
        }
      }
      if (discriminator !== undefined) out[discriminator.name] = discriminator.value;
      return out;
    };
  }

  private array(f: Facts): Generator {
    const item = this.generatorOf(f.items);
    const prefix = f.prefixItems.map((p) => this.generator(p.value, p.uri));
    // A contract's minItems is not a reason to build a body of any size: past the budget, a shorter array.
    if ((f.minItems ?? 0) > BUDGET) this.note(`mock: minItems ${f.minItems} is more than ${BUDGET} items; synthesized arrays stop at ${BUDGET}`);
    const min = Math.min(f.minItems ?? 0, BUDGET);
    const max = f.maxItems ?? Infinity;
    const unique = f.uniqueItems;

    return (g, depth) => {
      const full = depth < OPTIONAL_DEPTH && g.spent < BUDGET && depth <= HARD_DEPTH;
      const least = Math.max(min, 1);
      let count = !full ? min : g.random === undefined ? least : g.random.int(least, least + EXTRA_ITEMS);
      count = Math.min(count, max);
      const out: unknown[] = [];
      for (let i = 0; i < prefix.length && out.length < count; i++) out.push(prefix[i]!(g, depth + 1));
      const seen = unique ? new Set(out.map((v) => JSON.stringify(v))) : undefined;
      for (let attempt = 0; out.length < count && attempt < count * 4 + 4; attempt++) {
        // Static samples repeat themselves: unique items after the first come from a fixed-seed source.
        const source = seen !== undefined && attempt > 0 && g.random === undefined ? { random: new Random(attempt), spent: g.spent } : g;
        const value = item(source, depth + 1);
        if (source !== g) g.spent = source.spent;
        if (value === NOTHING) break;
        if (seen !== undefined) {
          const key = JSON.stringify(value);
          if (seen.has(key)) continue;
          seen.add(key);
        }
        out.push(value);
      }
      return out;
    };
  }

  private string(f: Facts): Generator {
    const min = f.minLength ?? 0;
    const max = f.maxLength ?? Infinity;
    const [first, ...others] = f.patterns;
    const sampler = first === undefined ? undefined : this.sampler(first);
    const testers = f.patterns.map((p) => this.tester(p));
    const matchesAll = (s: string): boolean => testers.every((t) => t === undefined || t.test(s));
    const fallback = f.samples.find((s) => this.fits(s, f));
    const bounds = { min, max };
    return (g) => {
      const random = g.random;
      const formatted = formatSample(f.format, random);
      if (formatted !== undefined && fitsLength(formatted, min, max) && matchesAll(formatted)) return formatted;
      if (sampler !== undefined) {
        const matching = sampler.sample(random, bounds);
        if (matching !== undefined && (others.length === 0 || matchesAll(matching))) return matching;
        if (fallback !== undefined) return fallback; // the contract's own sample is the closest valid one
      }
      return stretch(formatted ?? plainSample(random), min, max, random);
    };
  }

  /** `oneOf`/`anyOf`: the first branch that fits with everything else (at random in dynamic mode). */
  private choice(f: Facts): Generator {
    const [choice, ...rest] = f.choices;
    const base: Facts = { ...f, choices: rest };
    const options: Generator[] = [];
    const branchOf: { index: number; facts: Facts }[] = [];
    const dispatch = discriminatorDispatch(choice!.owner.value, choice!.owner.uri, this.contract.refs);
    if (dispatch !== undefined) {
      // Explicit mapping entries come first; a branch they already name gets no second, implicit value.
      const reached = new Set<unknown>();
      for (const [value, target] of dispatch.targets) {
        const located = this.contract.refs.resolveRef(target.ref, target.uri);
        const schema = this.contract.refs.deref(located.value, located.uri).value;
        if (reached.has(schema)) continue;
        reached.add(schema);
        const facts = mergeFacts(base, factsOf([located], this.contract));
        if (facts.impossible) continue;
        branchOf.push({ index: choice!.branches.findIndex((b) => this.contract.refs.deref(b.value, b.uri).value === schema), facts });
        const name = dispatch.propertyName;
        let gen: Generator | undefined;
        options.push((g, depth) => {
          const made = (gen ??= this.compile(facts, undefined))(g, depth);
          return made !== null && typeof made === 'object' && !Array.isArray(made) ? { ...made, [name]: value } : made;
        });
      }
      const fallback = dispatch.fallback && this.fallbackOption(dispatch, base, reached);
      if (fallback !== undefined) {
        options.push(fallback);
        branchOf.push({ index: -1, facts: base });
      }
    } else {
      for (const [index, branch] of choice!.branches.entries()) {
        const facts = mergeFacts(base, factsOf([branch], this.contract));
        if (facts.impossible) continue;
        let gen: Generator | undefined;
        options.push((g, depth) => (gen ??= this.compile(facts, undefined))(g, depth));
        branchOf.push({ index, facts });
      }
    }
    if (options.length === 0) return this.compile(base, undefined);
    if (choice!.keyword === 'oneOf') return this.exclusiveChoice(choice!.branches, options, branchOf, dispatch !== undefined);
    // Dynamic mode varies the branch of an `anyOf`, where any pick stays valid.
    return (g, depth) => (g.random === undefined || options.length === 1 ? options[0]! : g.random.pick(options))(g, depth);
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
  private exclusiveChoice(branches: readonly Located[], options: Generator[], branchOf: { index: number; facts: Facts }[], discriminated: boolean): Generator {
    let checks: SchemaCheck[] | undefined;
    let alone: Facts[] | undefined;
    return (g, depth) => {
      const random = g.random;
      if (this.checker === undefined) return (random === undefined || !discriminated || options.length === 1 ? options[0]! : random.pick(options))(g, depth);
      checks ??= branches.map((branch) => this.checker!([branch]));
      alone ??= branches.map((branch) => factsOf([branch], this.contract));
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
        const exclusive = this.distinguish(value, chosen, alone, checks);
        if (exclusive !== undefined) return exclusive;
      }
      return first;
    };
  }

  /**
   * `value`, made for branch `chosen`, changed so that it matches that branch only (see `differ`), checked
   * against each branch on its own, as `oneOf` checks them. Undefined when that fails.
   */
  private distinguish(value: unknown, chosen: { index: number; facts: Facts }, alone: Facts[], checks: SchemaCheck[]): unknown {
    const passes = (v: unknown, index: number): boolean => safeCheck(checks[index]!, v) === undefined;
    if (!passes(value, chosen.index)) return undefined;
    let out = value;
    for (const [index, other] of alone.entries()) {
      if (index === chosen.index || !passes(out, index)) continue;
      const changed = this.differ(out, chosen.facts, other, (v) => passes(v, chosen.index) && !passes(v, index), 0);
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
  private differ(value: unknown, chosen: Facts, other: Facts, done: (v: unknown) => boolean, depth: number): unknown {
    if (depth > DIFFER_DEPTH || value === null || typeof value !== 'object') return undefined;
    if (Array.isArray(value)) {
      if (value.length === 0 || chosen.items.length === 0 || other.items.length === 0) return undefined;
      const inner = (v: unknown): boolean => done([v, ...value.slice(1)]);
      const item = this.differ(value[0], factsOf(chosen.items, this.contract), factsOf(other.items, this.contract), inner, depth + 1);
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
        const made = this.generatorOf(parts)({ random: undefined, spent: 0 }, depth + 1);
        const changed = made === NOTHING ? undefined : tryWith(name, made);
        if (changed !== undefined) return changed;
      }
    }
    for (const [name, parts] of chosen.properties) {
      const theirs = other.properties.get(name);
      if (theirs === undefined || !Object.hasOwn(obj, name)) continue;
      const inner = (v: unknown): boolean => done(withValue(name, v));
      const made = this.differ(obj[name], factsOf(parts, this.contract), factsOf(theirs, this.contract), inner, depth + 1);
      if (made !== undefined) return withValue(name, made);
    }
    return undefined;
  }

  /**
   * `defaultMapping`'s schema as one more option (last, so static answers keep the first mapped branch),
   * unless a mapping names it already. It must not carry a value that maps elsewhere: such a value is dropped.
   */
  private fallbackOption(dispatch: Dispatch, base: Facts, reached: Set<unknown>): Generator | undefined {
    const located = this.contract.refs.resolveRef(dispatch.fallback!.ref, dispatch.fallback!.uri);
    if (reached.has(this.contract.refs.deref(located.value, located.uri).value)) return undefined;
    const facts = mergeFacts(base, factsOf([located], this.contract));
    if (facts.impossible) return undefined;
    const name = dispatch.propertyName;
    let gen: Generator | undefined;
    return (g, depth) => {
      const made = (gen ??= this.compile(facts, undefined))(g, depth);
      if (made === null || typeof made !== 'object' || Array.isArray(made)) return made;
      const value = (made as Record<string, unknown>)[name];
      if (typeof value !== 'string' || !dispatch.targets.has(value)) return made;
      const { [name]: _mapped, ...rest } = made as Record<string, unknown>;
      return rest;
    };
  }

  /**
   * A subtype that includes a base schema's discriminator through `allOf` names itself in that property:
   * the mapping key that points to it, else its component name.
   */
  private inheritedDiscriminator(f: Facts, self: object | undefined): { name: string; value: string } | undefined {
    const disc = f.discriminator;
    if (disc === undefined || self === undefined || !f.properties.has(disc.propertyName)) return undefined;
    let value: string | undefined;
    for (const [key, ref] of Object.entries(disc.mapping ?? {})) {
      if (typeof ref !== 'string') continue;
      try {
        if (derefRef(schemaRef(ref), disc.uri, this.contract.refs).value === self) value = key;
      } catch {
        // a mapping that points nowhere names nothing
      }
    }
    value ??= this.componentName(self);
    if (value === undefined) return undefined;
    const prop = factsOf(f.properties.get(disc.propertyName)!, this.contract);
    return this.fits(value, prop) ? { name: disc.propertyName, value } : undefined;
  }

  private componentName(schema: object): string | undefined {
    if (this.componentNames === undefined) {
      this.componentNames = new WeakMap();
      const schemas = this.contract.doc.components?.schemas ?? {};
      for (const [name, value] of Object.entries(schemas)) if (value !== null && typeof value === 'object') this.componentNames.set(value, name);
    }
    return this.componentNames.get(schema);
  }

  private pattern(pattern: string): MockPattern {
    let compiled = this.patterns.get(pattern);
    if (compiled === undefined) this.patterns.set(pattern, (compiled = compileMockPattern(pattern)));
    return compiled;
  }

  private sampler(pattern: string): PatternSampler | undefined {
    const { sampler } = this.pattern(pattern);
    if (typeof sampler !== 'string') return sampler;
    this.note(`mock: no string matching pattern ${JSON.stringify(pattern)} can be generated (${sampler}); its example, else a plain sample is used`);
    return undefined;
  }

  private tester(pattern: string): RegExpLike | undefined {
    return this.pattern(pattern).tester;
  }

  /**
   * Whether a contract example (or enum value) satisfies the schema's own constraints, so an example that
   * contradicts its schema is not served. Nested values are not checked: properties have their own examples.
   */
  private fits(value: unknown, f: Facts): boolean {
    if (value === undefined) return false;
    if (f.enumValues !== undefined && !f.enumValues.some((e) => sameJson(e, value))) return false;
    const type = jsonTypeOf(value);
    if (type === undefined) return false;
    if (type === 'null') return f.nullable && (f.types === undefined || f.types.includes('null'));
    const kinds = f.types ?? (f.hinted !== undefined ? [f.hinted] : undefined);
    if (kinds !== undefined && !kinds.includes(type) && !(type === 'integer' && kinds.includes('number'))) return false;
    if (typeof value === 'string') {
      return fitsLength(value, f.minLength ?? 0, f.maxLength ?? Infinity) && matchesFormat(f.format, value) && f.patterns.every((p) => this.tester(p)?.test(value) !== false);
    }
    if (typeof value === 'number') return fitsNumber(value, f);
    if (Array.isArray(value)) return value.length >= (f.minItems ?? 0) && value.length <= (f.maxItems ?? Infinity);
    if (type === 'object') {
      const obj = value as Record<string, unknown>;
      for (const name of f.required) if (!Object.hasOwn(obj, name)) return false;
      if (f.additional === false && f.patternProperties.length === 0) for (const key of Object.keys(obj)) if (!f.properties.has(key)) return false;
    }
    return true;
  }
}

function jsonTypeOf(value: unknown): JsonType | undefined {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return Number.isInteger(value) ? 'integer' : Number.isFinite(value) ? 'number' : undefined;
    case 'object':
      return 'object';
    default:
      return undefined;
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

function fitsLength(s: string, min: number, max: number): boolean {
  const n = codePoints(s);
  return n >= min && n <= max;
}

/** A sample stretched (with letters) or cut to the length bounds. */
function stretch(s: string, min: number, max: number, random: Random | undefined): string {
  if (min === 0 && max === Infinity) return s;
  const n = codePoints(s);
  if (n < min) return s + filler(min - n, random);
  return n > max ? [...s].slice(0, max).join('') : s;
}

function fitsNumber(n: number, f: Facts): boolean {
  if (f.minimum !== undefined && n < f.minimum) return false;
  if (f.maximum !== undefined && n > f.maximum) return false;
  if (f.exclusiveMinimum !== undefined && n <= f.exclusiveMinimum) return false;
  if (f.exclusiveMaximum !== undefined && n >= f.exclusiveMaximum) return false;
  if (f.multipleOf !== undefined && f.multipleOf > 0 && !Number.isInteger(n / f.multipleOf)) return false;
  if (f.format === 'int32' && (n < INT32[0] || n > INT32[1] || !Number.isInteger(n))) return false;
  if (f.format === 'int64' && !Number.isInteger(n)) return false;
  return true;
}

/**
 * Integers and numbers: 0 (static) or a value from the seeded source (dynamic), moved into the bounds
 * (exclusive ones included) and onto `multipleOf`; checked the way validation checks it.
 */
function numberGenerator(f: Facts, integer: boolean): Generator {
  const range = f.format === 'int32' ? INT32 : integer || f.format === 'int64' ? INT64 : [-Number.MAX_VALUE, Number.MAX_VALUE];
  const step = f.multipleOf !== undefined && f.multipleOf > 0 ? f.multipleOf : integer ? 1 : undefined;
  const lower = Math.max(f.minimum ?? -Infinity, f.exclusiveMinimum ?? -Infinity);
  const upper = Math.min(f.maximum ?? Infinity, f.exclusiveMaximum ?? Infinity);
  // Inside exclusive bounds: the next multiple of the step, or (for plain numbers) at most 1 or half the gap in.
  const inset = Math.min(1, Number.isFinite(upper - lower) ? (upper - lower) / 2 : 1);
  let lo = lower;
  let hi = upper;
  if (f.exclusiveMinimum !== undefined && f.exclusiveMinimum === lower) lo = step !== undefined ? (Math.floor(lower / step + 1e-9) + 1) * step : lower + inset;
  if (f.exclusiveMaximum !== undefined && f.exclusiveMaximum === upper) hi = step !== undefined ? (Math.ceil(upper / step - 1e-9) - 1) * step : upper - inset;
  lo = Math.max(lo, range[0]!);
  hi = Math.min(hi, range[1]!);
  const snap = (n: number): number => {
    if (step === undefined) return integer ? Math.ceil(n) : n;
    // The first multiple at or above n (else the last below hi) that validation also sees as one: ajv checks
    // `n / step` is an integer, which 0.07 / 0.01 is not, so a few neighbours are tried.
    const first = Math.ceil(n / step - 1e-9);
    for (let k = first; k < first + MULTIPLE_TRIES; k++) {
      const v = roundLike(k * step, step);
      if (v > hi) break;
      if (Number.isInteger(v / step)) return v;
    }
    const last = Math.floor(hi / step + 1e-9);
    for (let k = last; k > last - MULTIPLE_TRIES; k--) {
      const v = roundLike(k * step, step);
      if (Number.isInteger(v / step)) return v;
    }
    return n;
  };
  const candidates = (preferred: number): number[] => [preferred, lo, hi, (lo + hi) / 2].filter(Number.isFinite).map(snap);
  const valid = (n: number): boolean => n >= lo && n <= hi && fitsNumber(n, f) && (!integer || Number.isInteger(n));
  const staticValue = candidates(clamp(0, lo, hi)).find(valid) ?? clamp(0, lo, hi);
  // Dynamic values stay near what the contract bounds (a format's range is no bound a client expects to see).
  const bounded = { lo: f.minimum !== undefined || f.exclusiveMinimum !== undefined, hi: f.maximum !== undefined || f.exclusiveMaximum !== undefined };
  const low = bounded.lo ? lo : bounded.hi ? Math.max(lo, Math.min(0, hi - DYNAMIC_SPAN)) : Math.max(lo, 0);
  const high = bounded.hi ? Math.min(hi, bounded.lo ? Infinity : low + DYNAMIC_SPAN * 2) : Math.min(hi, low + DYNAMIC_SPAN);

  return (g) => {
    const random = g.random;
    if (random === undefined) return staticValue;
    const drawn = integer || step !== undefined ? random.int(Math.ceil(low), Math.floor(high)) : Math.round((low + random.float() * (high - low)) * 100) / 100;
    const value = snap(clamp(drawn, lo, hi));
    return valid(value) ? value : (candidates(value).find(valid) ?? staticValue);
  };
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(Math.max(n, lo), hi);
}

/** `k * step` without the binary noise (`7 * 0.01` is 0.07000000000000001): rounded to the step's decimals. */
function roundLike(v: number, step: number): number {
  const decimals = (String(step).split('.')[1] ?? '').length;
  return decimals === 0 ? v : Number(v.toFixed(Math.min(decimals, 20)));
}

/** A compiled check that may throw (an uncompilable schema refuses every value): read as "no errors known". */
function safeCheck(check: SchemaCheck, value: unknown): ErrorObject[] | undefined {
  try {
    return check(value);
  } catch {
    return undefined;
  }
}

/** The first validation errors, for the log. */
function describeErrors(errors: readonly ErrorObject[]): string {
  return errors
    .slice(0, 2)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`)
    .join('; ');
}
