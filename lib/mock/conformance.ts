// Synthesized values checked by the facade's own response validation (docs/mocking.md): the facade's schema
// compiler (one ajv instance, shared with validation) is loaded when the mock first needs it, not at import,
// so a facade that mocks nothing does not load ajv for it. The echo's check (echo.ts) loads it here too.
import type { Located } from '../contract/refs.js';
import type { FeatureContext } from '../message/stages.js';
import type { BodyContext } from '../schema/bodies.js';
import type { SchemaCompiler } from '../schema/compiler.js';
import type { SchemaChecker, Synthesizer } from './synthesize.js';

/** Checks of values against schemas that all apply, compiled by `compiler` (response direction). */
export function schemaChecker(compiler: SchemaCompiler): SchemaChecker {
  return (parts: readonly Located[]) =>
    compiler.compile('mock: a synthesized value', (convert) => (parts.length === 1 ? convert(parts[0]!.value, parts[0]!.uri, 'response') : { allOf: parts.map((p) => convert(p.value, p.uri, 'response')) }));
}

/** Loads validation and turns the synthesizer's checks on; the promise settles when they are on. */
export async function enableChecks(ctx: FeatureContext, synthesizer: Synthesizer): Promise<void> {
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
