// What every part of mock synthesis shares (docs/mocking.md): a generator's signature, the NOTHING marker,
// the depth and budget limits that keep recursive schemas finite, and `Synthesis`, the part of the
// Synthesizer (synthesize.ts) the generators by type, the `oneOf`/`anyOf` choice and the conformance
// redraws call back into. They import this file, never synthesize.ts, so no module reaches itself again.
import type { Contract } from '../contract/load.js';
import type { Located } from '../contract/refs.js';
import type { RegExpLike } from '../schema/safe-regex.js';
import type { SchemaCheck } from '../schema/compiler.js';
import type { PatternSampler } from './pattern.js';
import type { Random } from './random.js';
import type { Facts } from './schema-facts.js';

/** One generation: the random source (undefined in static mode) and how many values it has made. */
export interface Generation {
  random: Random | undefined;
  spent: number;
}

export type Generator = (g: Generation, depth: number) => unknown;

/** Returned when no value can be made (an impossible schema); such a property stays out. */
export const NOTHING: unique symbol = Symbol('nothing');

/** Below this depth objects carry optional properties too and arrays at least one item. */
export const OPTIONAL_DEPTH = 6;
/** Beyond this depth objects and arrays are cut short even when required properties remain. */
export const HARD_DEPTH = 24;
/** After this many values, only what `required` and `minItems` demand is added. */
export const BUDGET = 1500;
/** How many more times a value that fails its schema is drawn (with fixed seeds in static mode). */
export const REDRAWS = 4;

/** A value for a schema that says nothing: an object at the top, a string inside. */
export const anyValue: Generator = (_g, depth) => (depth === 0 ? {} : 'string');

/** Compiles the check of values against schemas that all apply (the facade's response validation). */
export type SchemaChecker = (parts: readonly Located[]) => SchemaCheck;

/** The Synthesizer as its helpers see it: compiled generators, pattern caches, the checks once they are on. */
export interface Synthesis {
  readonly contract: Contract;
  /** Validation's compiled checks; undefined until `useChecks` (then values are checked as validation would). */
  readonly checker: SchemaChecker | undefined;
  /** Warnings for the log; each once. */
  note(message: string): void;
  /** The generator for a schema found in document `uri` (shared per schema). */
  generator(schema: unknown, uri: string): Generator;
  /** The generator for several schemas that all apply. */
  generatorOf(parts: readonly Located[]): Generator;
  /** The generator for facts already flattened; `self`: the schema they came from, if one. */
  compile(f: Facts, self: object | undefined): Generator;
  /** Strings matching `pattern`; undefined (and a note) when none can be generated. */
  sampler(pattern: string): PatternSampler | undefined;
  /** The test of `pattern` (linear-time); undefined when it cannot be compiled. */
  tester(pattern: string): RegExpLike | undefined;
  /** The name of a schema under components/schemas, if it is one. */
  componentName(schema: object): string | undefined;
}
