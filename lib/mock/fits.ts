// Whether a contract's own value (an `example`, `default` or `enum` value) fits its schema's constraints at
// its own level, so a sample that contradicts its schema is never served (docs/mocking.md). Nested values
// are not looked at here: properties have their own samples, and whole bodies are checked by conformance.ts.
import { codePoints } from './pattern.js';
import { matchesFormat } from './formats.js';
import type { Synthesis } from './generation.js';
import { fitsNumber } from './numbers.js';
import type { Facts, JsonType } from './schema-facts.js';

/**
 * Whether a contract example (or enum value) satisfies the schema's own constraints, so an example that
 * contradicts its schema is not served. Nested values are not checked: properties have their own examples.
 */
export function fits(s: Synthesis, value: unknown, f: Facts): boolean {
  if (value === undefined) return false;
  if (f.enumValues !== undefined && !f.enumValues.some((e) => sameJson(e, value))) return false;
  const type = jsonTypeOf(value);
  if (type === undefined) return false;
  if (type === 'null') return f.nullable && (f.types === undefined || f.types.includes('null'));
  const kinds = f.types ?? (f.hinted !== undefined ? [f.hinted] : undefined);
  if (kinds !== undefined && !kinds.includes(type) && !(type === 'integer' && kinds.includes('number'))) return false;
  if (typeof value === 'string') {
    return fitsLength(value, f.minLength ?? 0, f.maxLength ?? Infinity) && matchesFormat(f.format, value) && f.patterns.every((p) => s.tester(p)?.test(value) !== false);
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

/** Whether a string has between `min` and `max` code points. */
export function fitsLength(s: string, min: number, max: number): boolean {
  const n = codePoints(s);
  return n >= min && n <= max;
}
