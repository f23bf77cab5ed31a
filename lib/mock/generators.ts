// Synthesized values by JSON type (docs/mocking.md): objects (required properties always, optional ones
// down to a small depth and within a budget of values; writeOnly properties left out, these are responses),
// arrays (at least one item while the budget lasts, `uniqueItems` honoured), strings (by `format`, then
// `pattern`, stretched or cut to the length bounds) and booleans; numbers are numbers.ts's.
import { setOwn } from '../util/objects.js';
import type { SchemaCheck } from '../schema/compiler.js';
import { inheritedDiscriminator } from './choice.js';
import { conforms } from './conformance.js';
import { fits, fitsLength } from './fits.js';
import { filler, formatSample, plainSample } from './formats.js';
import { anyValue, BUDGET, HARD_DEPTH, NOTHING, OPTIONAL_DEPTH, type Generator, type Synthesis } from './generation.js';
import { numberGenerator } from './numbers.js';
import { codePoints } from './pattern.js';
import { Random } from './random.js';
import { factsOf, type Facts, type JsonType } from './schema-facts.js';

/** Dynamic mode: how often an optional property is left out. */
const OMIT_CHANCE = 0.2;
/** Dynamic mode: extra array items beyond the minimum (at least one). */
const EXTRA_ITEMS = 3;

/** The generator for one JSON type of the facts; `self`: the schema they came from (for an inherited discriminator). */
export function typedGenerator(s: Synthesis, kind: JsonType, f: Facts, self: object | undefined): Generator {
  switch (kind) {
    case 'object':
      return objectGenerator(s, f, self);
    case 'array':
      return arrayGenerator(s, f);
    case 'string':
      return stringGenerator(s, f);
    case 'integer':
    case 'number':
      return numberGenerator(f, kind === 'integer');
    default:
      return (g) => (g.random === undefined ? true : g.random.chance(0.5));
  }
}

function objectGenerator(s: Synthesis, f: Facts, self: object | undefined): Generator {
  const props: { name: string; required: boolean; gen: Generator; patterned?: Facts; checks: { check?: SchemaCheck } }[] = [];
  for (const [name, parts] of f.properties) {
    const facts = factsOf(parts, s.contract);
    if (facts.writeOnly) continue; // never in a response
    // A pattern no string can be generated for: an optional property is left out rather than served wrong.
    const patterned = facts.patterns.length > 0 ? facts : undefined;
    props.push({ name, required: f.required.has(name), gen: s.generatorOf(parts), patterned, checks: {} });
  }
  const extra = f.additional === false ? undefined : s.generatorOf(f.additional);
  for (const name of f.required) {
    if (!f.properties.has(name)) props.push({ name, required: true, gen: extra ?? anyValue, checks: {} });
  }
  const patternProps = f.patternProperties.flatMap(([pattern, located]) => {
    const key = s.sampler(pattern)?.sample(undefined, { min: 1, max: 64 });
    return key === undefined ? [] : [{ key, gen: s.generator(located.value, located.uri) }];
  });
  // With nothing declared but `additionalProperties: {schema}`, show one entry (Swagger's convention).
  const showExtra = f.properties.size === 0 && patternProps.length === 0 && f.additional !== false && f.additional.length > 0;
  const minProps = f.minProperties ?? 0;
  const maxProps = f.maxProperties ?? Infinity;
  const discriminator = inheritedDiscriminator(s, f, self);

  return (g, depth) => {
    const out: Record<string, unknown> = {};
    if (depth > HARD_DEPTH) return out;
    const full = depth < OPTIONAL_DEPTH && g.spent < BUDGET;
    let count = 0;
    const random = g.random;
    for (const p of props) {
      if (!p.required && (!full || count >= maxProps || (random !== undefined && random.chance(OMIT_CHANCE)))) continue;
      const value = p.gen(g, depth + 1);
      if (value === NOTHING || (!p.required && p.patterned !== undefined && !conforms(s.checker, value, p.patterned, p.checks))) continue;
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

function arrayGenerator(s: Synthesis, f: Facts): Generator {
  const item = s.generatorOf(f.items);
  const prefix = f.prefixItems.map((p) => s.generator(p.value, p.uri));
  // A contract's minItems is not a reason to build a body of any size: past the budget, a shorter array.
  if ((f.minItems ?? 0) > BUDGET) s.note(`mock: minItems ${f.minItems} is more than ${BUDGET} items; synthesized arrays stop at ${BUDGET}`);
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

function stringGenerator(s: Synthesis, f: Facts): Generator {
  const min = f.minLength ?? 0;
  const max = f.maxLength ?? Infinity;
  const [first, ...others] = f.patterns;
  const sampler = first === undefined ? undefined : s.sampler(first);
  const testers = f.patterns.map((p) => s.tester(p));
  const matchesAll = (text: string): boolean => testers.every((t) => t === undefined || t.test(text));
  const fallback = f.samples.find((sample) => fits(s, sample, f));
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

/** A sample stretched (with letters) or cut to the length bounds. */
function stretch(s: string, min: number, max: number, random: Random | undefined): string {
  if (min === 0 && max === Infinity) return s;
  const n = codePoints(s);
  if (n < min) return s + filler(min - n, random);
  return n > max ? [...s].slice(0, max).join('') : s;
}
