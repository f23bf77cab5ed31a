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
