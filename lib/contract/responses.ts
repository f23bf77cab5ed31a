// Choosing among an operation's declared responses, the same way for mocks, binding and validation.
import type { Operation } from './operations.js';

/** The operation's responses keyed by upper-cased code (`2xx` → `2XX`, `default` → `DEFAULT`), values mapped. */
export function responsesByCode<T>(op: Operation, map: (response: Operation['responses'][string]) => T): Map<string, T> {
  const byCode = new Map<string, T>();
  for (const [code, response] of Object.entries(op.responses)) byCode.set(code.toUpperCase(), map(response));
  return byCode;
}

/** The response declared for a status: the exact code, else its `NXX` range, else (unless excluded) `default`. */
export function responseForStatus<T>(byCode: ReadonlyMap<string, T>, status: string, withDefault = true): T | undefined {
  return byCode.get(status) ?? byCode.get(`${status[0]}XX`) ?? (withDefault ? byCode.get('DEFAULT') : undefined);
}

/**
 * The status of a successful answer when nothing else says: `200` when declared, else the lowest declared
 * 2xx code, else `200` for a `2XX` range; undefined when only `default` (or nothing) is declared.
 */
export function successStatus(byCode: ReadonlyMap<string, unknown>): string | undefined {
  // Three-digit codes sort as numbers do, so this is `200` whenever it is declared.
  const lowest = [...byCode.keys()].filter((c) => /^2\d\d$/.test(c)).sort()[0];
  return lowest ?? (byCode.has('2XX') ? '200' : undefined);
}
