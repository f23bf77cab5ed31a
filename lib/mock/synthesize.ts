// Values synthesized from response schemas (docs/mocking.md), for mocks. A schema is compiled once per contract
// into a generator (a closure tree, built lazily, so recursive schemas and huge contracts cost only what is
// used); running it with no random source gives the static sample, with a seeded `Random` dynamic data.
//
// Static order per value: `const`, the schema's own `example` / first `examples` / `default` (when they
// fit the schema's own constraints, fits.ts), the first `enum` value, else a sample by type and `format`
// (generators.ts, numbers.ts). Dynamic mode skips examples and defaults and picks at random. `oneOf`/`anyOf`:
// choice.ts, and exclusive-choice.ts for a `oneOf` value that must match one branch only. Once the facade's
// validator is available (`useChecks`), values are checked the way validation checks them: conformance.ts.
//
// This file is the Synthesizer: the per-contract caches (generators by schema, compiled patterns, component
// names) and the dispatch from a schema's facts to the generator of its kind. Its helpers see it as a
// `Synthesis` (generation.ts).
import type { Contract } from '../contract/load.js';
import { isRef, type Located } from '../contract/refs.js';
import type { RegExpLike } from '../schema/safe-regex.js';
import type { SchemaCheck } from '../schema/compiler.js';
import { choiceGenerator } from './choice.js';
import { conformingGenerator, conforms } from './conformance.js';
import { fits } from './fits.js';
import { anyValue, HARD_DEPTH, NOTHING, type Generator, type SchemaChecker, type Synthesis } from './generation.js';
import { typedGenerator } from './generators.js';
import { compileMockPattern, type MockPattern, type PatternSampler } from './pattern.js';
import { factsOf, type Facts } from './schema-facts.js';

export { NOTHING, type Generation, type Generator, type SchemaChecker } from './generation.js';

/** Dynamic mode: how often a nullable value is null. */
const NULL_CHANCE = 0.1;

export class Synthesizer implements Synthesis {
  private readonly bySchema = new WeakMap<object, Generator>();
  private readonly patterns = new Map<string, MockPattern>();
  private componentNames: WeakMap<object, string> | undefined;
  /** Validation's compiled checks, once `useChecks` turned them on. */
  checker: SchemaChecker | undefined;
  /** Schemas (by label) already logged as having no valid value: once each, whatever the errors of a draw. */
  private readonly unsatisfied = new Set<string>();

  constructor(
    readonly contract: Contract,
    /** Warnings for the log (a pattern that cannot be generated, a schema that cannot be resolved); each once. */
    readonly note: (message: string) => void,
  ) {}

  /** From now on, values are checked by validation's compiled schemas (conformance.ts). */
  useChecks(checker: SchemaChecker): void {
    this.checker = checker;
  }

  /**
   * The generator for a whole body: values that fail the schema are drawn again (conformance.ts); the last
   * resort is the first value made, and the log says once, naming the schema (`label`), that none validated.
   */
  conforming(schema: unknown, uri: string, label: string): Generator {
    return conformingGenerator(this, this.generator(schema, uri), schema, uri, label, this.unsatisfied);
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
  generatorOf(parts: readonly Located[]): Generator {
    if (parts.length === 0) return anyValue;
    if (parts.length === 1) return this.generator(parts[0]!.value, parts[0]!.uri);
    let compiled: Generator | undefined;
    return (g, depth) => (compiled ??= this.compile(factsOf(parts, this.contract), undefined))(g, depth);
  }

  /** The generator for flattened facts, in the static order at the top of this file; `self`: their schema, if one. */
  compile(f: Facts, self: object | undefined): Generator {
    if (f.impossible) return () => NOTHING;
    if (f.constValue !== undefined) {
      const { value } = f.constValue;
      return () => value;
    }
    if (f.choices.length > 0) return choiceGenerator(this, f);
    const fitting = f.samples.filter((s) => fits(this, s, f));
    const checks: { check?: SchemaCheck } = {};
    // A sample is checked as a whole once checks are on: `fits` looks at its own level only.
    let checked: { value: unknown } | null | undefined;
    const sampleOf = (): { value: unknown } | null => {
      if (checked !== undefined) return checked;
      const found = fitting.find((s) => conforms(this.checker, s, f, checks));
      const result = found === undefined ? null : { value: found };
      if (this.checker !== undefined) checked = result;
      return result;
    };
    const hasSample = fitting.length > 0;
    const enumValues = f.enumValues?.filter((v) => fits(this, v, { ...f, enumValues: undefined }));
    const hasEnum = enumValues !== undefined && enumValues.length > 0;
    const kinds = (f.types ?? (f.hinted ? [f.hinted] : [])).filter((t) => t !== 'null');
    const onlyNull = f.types !== undefined && kinds.length === 0;
    const nullable = f.nullable && (f.types === undefined || f.types.includes('null'));
    const typed = kinds.map((kind) => typedGenerator(this, kind, f, self));
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

  componentName(schema: object): string | undefined {
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

  sampler(pattern: string): PatternSampler | undefined {
    const { sampler } = this.pattern(pattern);
    if (typeof sampler !== 'string') return sampler;
    this.note(`mock: no string matching pattern ${JSON.stringify(pattern)} can be generated (${sampler}); its example, else a plain sample is used`);
    return undefined;
  }

  tester(pattern: string): RegExpLike | undefined {
    return this.pattern(pattern).tester;
  }
}
