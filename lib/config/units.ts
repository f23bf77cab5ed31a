// Durations and sizes as every configuration surface spells them (`10s`, `2MiB`): one parser for the option
// table and for endpoint options in route URIs.

/** Node's timers hold at most 2^31 - 1 ms; a longer one fires after 1 ms (and node:http refuses some outright). */
export const MAX_DURATION_MS = 2 ** 31 - 1;

/** Milliseconds from `500`, `500ms`, `10s`, `2m`; undefined when invalid or too long. */
export function parseDuration(value: unknown): number | undefined {
  const ms = withUnit(value, { '': 1, ms: 1, s: 1000, m: 60_000 });
  return ms !== undefined && ms <= MAX_DURATION_MS ? ms : undefined;
}

/** Bytes from `1024`, `512KB`, `2MiB`; undefined when invalid. */
export function parseSize(value: unknown): number | undefined {
  return withUnit(value, { '': 1, b: 1, kb: 1000, kib: 1024, mb: 1_000_000, mib: 1024 * 1024 });
}

function withUnit(value: unknown, units: Record<string, number>): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(value);
  const factor = m ? units[(m[2] ?? '').toLowerCase()] : undefined;
  return m && factor !== undefined ? Math.round(Number(m[1]) * factor) : undefined;
}
