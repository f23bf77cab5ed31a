// Synthesized values checked by the facade's own response validation (docs/mocking.md): the facade's schema
// compiler (one ajv instance, shared with validation) is loaded when the mock first needs it, not at import,
// so a facade that mocks nothing does not load ajv for it. The echo's check (echo.ts) loads it here too.
// Once the checks are on, a contract sample is served only when it validates as a whole, an optional
// property whose pattern cannot be generated is left out, and a whole body that still fails is drawn again,
// a few times, before the closest one is served and the log says so once, naming the schema.
import type { ErrorObject } from 'ajv';
import type { Located } from '../contract/refs.js';
import type { FeatureContext } from '../message/stages.js';
import type { BodyContext } from '../schema/bodies.js';
import type { SchemaCheck, SchemaCompiler } from '../schema/compiler.js';
import { NOTHING, REDRAWS, type Generator, type SchemaChecker, type Synthesis } from './generation.js';
import { Random } from './random.js';
import type { Facts } from './schema-facts.js';

/** Checks of values against schemas that all apply, compiled by `compiler` (response direction). */
export function schemaChecker(compiler: SchemaCompiler): SchemaChecker {
  return (parts: readonly Located[]) =>
    compiler.compile('mock: a synthesized value', (convert) => (parts.length === 1 ? convert(parts[0]!.value, parts[0]!.uri, 'response') : { allOf: parts.map((p) => convert(p.value, p.uri, 'response')) }));
}

/** Loads validation and turns the synthesizer's checks on; the promise settles when they are on. */
export async function enableChecks(ctx: FeatureContext, synthesizer: { useChecks(checker: SchemaChecker): void }): Promise<void> {
  const { context } = await loadValidation();
  synthesizer.useChecks(schemaChecker(context(ctx).compiler));
}

/** The validation modules the mock uses, imported on first use. */
export interface Validation {
  bodies: typeof import('../schema/bodies.js');
  violations: typeof import('../message/violations.js');
  context: (ctx: FeatureContext) => BodyContext;
}

let loading: Promise<Validation> | undefined;

export function loadValidation(): Promise<Validation> {
  loading ??= Promise.all([import('../schema/bodies.js'), import('../message/violations.js'), import('../schema/body-context.js')]).then(([bodies, violations, shared]) => ({
    bodies,
    violations,
    context: shared.bodyContext,
  }));
  return loading;
}

/**
 * `gen`, for a whole body: values that fail the schema are drawn again (REDRAWS times); the last resort is
 * the first value made, and the log says once (per label in `unsatisfied`), naming the schema, that none validated.
 */
export function conformingGenerator(s: Synthesis, gen: Generator, schema: unknown, uri: string, label: string, unsatisfied: Set<string>): Generator {
  let check: SchemaCheck | undefined;
  return (g, depth) => {
    const first = gen(g, depth);
    if (s.checker === undefined || first === NOTHING) return first;
    check ??= s.checker([{ value: schema, uri }]);
    let errors = safeCheck(check, first);
    for (let n = 1; errors !== undefined && n <= REDRAWS; n++) {
      const source = g.random === undefined ? { random: new Random(`redraw-${n}`), spent: 0 } : g;
      const value = gen(source, depth);
      if (value !== NOTHING && (errors = safeCheck(check, value)) === undefined) return value;
    }
    if (errors !== undefined && !unsatisfied.has(label)) {
      unsatisfied.add(label);
      s.note(`mock: no value valid against ${label} can be synthesized (${describeErrors(errors)}); the closest one is served`);
    }
    return first;
  };
}

/** Whether a value passes the compiled check of `f`'s schemas (true while there are no checks); compiled once into `cache`. */
export function conforms(checker: SchemaChecker | undefined, value: unknown, f: Facts, cache: { check?: SchemaCheck }): boolean {
  if (checker === undefined || f.sources.length === 0) return true;
  cache.check ??= checker(f.sources);
  return safeCheck(cache.check, value) === undefined;
}

/** A compiled check that may throw (an uncompilable schema refuses every value): read as "no errors known". */
export function safeCheck(check: SchemaCheck, value: unknown): ErrorObject[] | undefined {
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
