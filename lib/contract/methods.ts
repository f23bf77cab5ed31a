// Which operations a Path Item declares, by HTTP method. OpenAPI 3.0/3.1 have the eight fixed fields; 3.2
// adds `query` (HTTP QUERY, RFC 10008: safe, with a request body) and `additionalOperations`, a map of any
// other method token to its operation, the key written "with the same capitalization that is to be sent".
import { METHODS } from 'node:http';
import { Errors, svcError } from '../util/errors.js';
import { TOKEN } from '../http/fields.js';
import type { OpenApiVersion } from './version.js';

/** The fixed Operation fields of a Path Item before 3.2, in the order the specification lists them. */
const FIXED = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
const FIXED_3_2 = [...FIXED, 'query'] as const;
/** Every fixed Operation field a Path Item may have (3.2's `query` included). */
export const OPERATION_FIELDS: ReadonlySet<string> = new Set(FIXED_3_2);

/** One declared operation: its method as sent on the wire, and the (possibly `$ref`) operation value. */
export interface DeclaredOperation {
  method: string;
  value: unknown;
}

/**
 * The operations of a Path Item, fixed fields first, then `additionalOperations` in contract order. A key
 * of `additionalOperations` must be a method token (RFC 9110 §9.1) and must not name a method a fixed field
 * is for, in any letter case (`GET` or `get` belongs in `get`): both fail startup naming path and key.
 */
export function declaredOperations(item: Record<string, unknown>, version: OpenApiVersion, path: string): DeclaredOperation[] {
  const fixed = version === '3.2' ? FIXED_3_2 : FIXED;
  const out: DeclaredOperation[] = [];
  for (const key of fixed) if (item[key] !== undefined) out.push({ method: key.toUpperCase(), value: item[key] });
  const additional = version === '3.2' ? item.additionalOperations : undefined;
  if (additional === undefined || additional === null || typeof additional !== 'object') return out;
  for (const [method, value] of Object.entries(additional)) {
    if (!TOKEN.test(method)) throw svcError(Errors.ADDITIONAL_OPERATION_KEY, method, path, 'it is not an HTTP method token (RFC 9110: letters, digits and !#$%&\'*+-.^_`|~)');
    const lower = method.toLowerCase();
    if ((FIXED_3_2 as readonly string[]).includes(lower)) throw svcError(Errors.ADDITIONAL_OPERATION_KEY, method, path, `the ${method.toUpperCase()} operation belongs in the fixed field '${lower}'`);
    if (value !== undefined) out.push({ method, value });
  }
  return out;
}

/**
 * Methods node's HTTP/1.1 parser accepts as requests (its `http.METHODS`, case-sensitive). Any other method
 * never reaches a request listener: the parser answers 400 first. CONNECT is a tunnel, never a request.
 */
const RECEIVABLE: ReadonlySet<string> = new Set(METHODS.filter((m) => m !== 'CONNECT'));

export function isReceivable(method: string): boolean {
  return RECEIVABLE.has(method);
}

/** The startup warning for an operation whose method node cannot receive (it is still listed and routed). */
export function unreceivableWarning(method: string, path: string, id: string): string {
  return `${method} ${path} -> direct:${id}: node's HTTP parser does not accept the method ${method} (only those of http.METHODS, case-sensitive, CONNECT excepted), so no HTTP request can reach this operation; other routes can still call direct:${id}`;
}
