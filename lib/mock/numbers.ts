// Synthesized integers and numbers (docs/mocking.md): 0 in static mode, a seeded draw in dynamic mode, moved
// into the schema's bounds (exclusive ones included), onto `multipleOf` and into its format's range, and
// checked the way validation checks it (ajv tests `n / multipleOf` for an integer).
import type { Generator } from './generation.js';
import type { Facts } from './schema-facts.js';

const INT32: [number, number] = [-2147483648, 2147483647];
const INT64: [number, number] = [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER];
/** How many neighbouring multiples are tried for `multipleOf`. */
const MULTIPLE_TRIES = 64;
/** Unbounded numbers in dynamic mode stay within this span of the one bound (or of 0). */
const DYNAMIC_SPAN = 1000;

/** Whether a number satisfies the schema's bounds, `multipleOf` and integer formats. */
export function fitsNumber(n: number, f: Facts): boolean {
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
export function numberGenerator(f: Facts, integer: boolean): Generator {
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
