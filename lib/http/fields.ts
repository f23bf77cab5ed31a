// RFC 9110 §5.1: a field name is a token. Shared by everything that writes header names it did not choose
// (backend forwarding, mock answers from contract-declared headers).
export const TOKEN = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;

/**
 * What no field value can carry (RFC 9110 §5.5, as node:http and undici enforce it): control characters but
 * HTAB (CR, LF and NUL among them), DEL, and anything beyond Latin-1.
 */
export const UNSENDABLE_VALUE = /[\0-\x08\n-\x1f\x7f\u0100-\uffff]/;
