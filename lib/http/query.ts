// The request's query string as decoded `[name, value]` pairs, parsed once per request and shared by the
// exchange headers and parameter validation.

/** Decoded `[name, value]` pairs of a query string, a Cookie header or a form body, in order. */
export type Pairs = readonly (readonly [string, string])[];

const NONE: Pairs = Object.freeze([]);

/**
 * The pairs as `URLSearchParams` gives them. Most queries escape nothing (`username=a&password=b`): those are
 * split here without building a URLSearchParams; any `%` or `+` (and a leading `?`, which it drops) leaves
 * the decoding to it.
 */
export function parseQuery(query: string): Pairs {
  if (query === '') return NONE;
  if (query.includes('%') || query.includes('+') || query.charCodeAt(0) === 0x3f) return [...new URLSearchParams(query)];
  const pairs: (readonly [string, string])[] = [];
  let start = 0;
  while (start <= query.length) {
    let end = query.indexOf('&', start);
    if (end === -1) end = query.length;
    if (end > start) {
      const eq = query.indexOf('=', start);
      pairs.push(eq === -1 || eq > end ? [query.slice(start, end), ''] : [query.slice(start, eq), query.slice(eq + 1, end)]);
    }
    start = end + 1;
  }
  return pairs;
}
