// Durations and sizes as every configuration surface spells them (`10s`, `2MiB`): one parser for the option
// table and for endpoint options in route URIs.

/** Node's timers hold at most 2^31 - 1 ms; a longer one fires after 1 ms (and node:http refuses some outright). */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** Duration units (any case) and their milliseconds; no unit is milliseconds. */
export const DURATION_UNITS: Readonly<Record<string, number>> = { '': 1, ms: 1, s: 1000, m: 60_000 };
/** Size units (any case) and their bytes; no unit is bytes. */
export const SIZE_UNITS: Readonly<Record<string, number>> = { '': 1, b: 1, kb: 1000, kib: 1024, mb: 1_000_000, mib: 1024 * 1024 };

/** Milliseconds from `500`, `500ms`, `10s`, `2m`; undefined when invalid or too long. */
export function parseDuration(value: unknown): number | undefined {
  const ms = withUnit(value, DURATION_UNITS);
  return ms !== undefined && ms <= MAX_DURATION_MS ? ms : undefined;
}

/** Bytes from `1024`, `512KB`, `2MiB`; undefined when invalid. */
export function parseSize(value: unknown): number | undefined {
  return withUnit(value, SIZE_UNITS);
}

function withUnit(value: unknown, units: Readonly<Record<string, number>>): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const unit = (m?.[2] ?? '').toLowerCase();
  // Own keys only: `10constructor` is no unit.
  const factor = m && Object.hasOwn(units, unit) ? units[unit] : undefined;
  return m && factor !== undefined ? Math.round(Number(m[1]) * factor) : undefined;
}
