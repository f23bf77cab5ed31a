// RFC 9110 §5.1: a field name is a token. Shared by everything that writes header names it did not choose
// (backend forwarding, mock answers from contract-declared headers).
export const TOKEN = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;

/**
 * What no field value can carry (RFC 9110 §5.5, as node:http and undici enforce it): control characters but
 * HTAB (CR, LF and NUL among them), DEL, and anything beyond Latin-1.
 */
const UNSENDABLE_VALUE = /[\0-\x08\n-\x1f\x7f\u0100-\uffff]/;
/** Anything but printable ASCII: most values have none, and this one-range class is the quicker scan. */
const NOT_PRINTABLE_ASCII = /[^\x20-\x7e]/;

/** True when no field can carry `text` (it runs for every header of every forwarded request and answer). */
export function isUnsendableValue(text: string): boolean {
  return NOT_PRINTABLE_ASCII.test(text) && UNSENDABLE_VALUE.test(text);
}

/**
 * The options a Connection field lists, lower-cased (RFC 9110 §7.6.1: the hop-by-hop fields of this message,
 * or `upgrade`); none for the plain `keep-alive` and `close` most messages carry.
 */
export function connectionOptions(value: unknown): readonly string[] {
  if (typeof value !== 'string' || value === 'keep-alive' || value === 'close') return NO_OPTIONS;
  return value.split(',').map((s) => s.trim().toLowerCase());
}
const NO_OPTIONS: readonly string[] = [];

/** One element of a list with quality values (Accept, Accept-Encoding; RFC 9110 §12.4.2). */
export interface WeightedItem {
  /** The element without its parameters, trimmed, in the case sent. */
  value: string;
  /** Its `q`, within 0 and 1; 1 when absent, NaN when not a number (each field decides what that means). */
  q: number;
  /** Its other parameters, names lower-cased, values as sent. */
  params: [string, string][];
}

/** The elements of a field such as Accept or Accept-Encoding, with their quality values. */
export function weightedItems(header: string): WeightedItem[] {
  return header.split(',').map((part) => {
    const [value = '', ...rest] = part.split(';');
    let q = 1;
    const params: [string, string][] = [];
    for (const p of rest) {
      const [k = '', v = ''] = p.split('=').map((s) => s.trim());
      if (k.toLowerCase() === 'q') {
        const n = Number(v);
        q = Number.isFinite(n) ? Math.min(Math.max(n, 0), 1) : Number.NaN;
      } else if (k) params.push([k.toLowerCase(), v]);
    }
    return { value: value.trim(), q, params };
  });
}
