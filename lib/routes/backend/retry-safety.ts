// What the contract says about sending a forwarded request again: which methods are idempotent (RFC 9110
// §9.2.2), which POST/PATCH operations declare an `Idempotency-Key` header (the IETF httpapi draft) so that a
// request carrying it may be sent again with the same key, and which 502/503/504 statuses an operation
// declares as answers (a declared status is the backend's answer, not a fault, and is never retried).
import type { Operation } from '../../contract/operations.js';
import { responseForStatus, responsesByCode } from '../../contract/responses.js';

/** RFC 9110 §9.2.2 (QUERY: RFC 10008 §2): a client may send these again. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE', 'TRACE', 'QUERY']);

/** The statuses that may be a backend's fault (a proxy, gateway or overload) when the operation does not declare them. */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

const IDEMPOTENCY_KEY = 'idempotency-key';

/** One operation's facts for retries, read once at startup. */
export interface RetrySafety {
  /** The operation declares an `Idempotency-Key` header parameter. */
  readonly declaresIdempotencyKey: boolean;
  /** The status is declared by its exact code or its range (`5XX`); `default` does not count: it declares no status. */
  declares(status: number): boolean;
}

export function retrySafetyOf(op: Operation): RetrySafety {
  const byCode = responsesByCode(op, () => true);
  return {
    declaresIdempotencyKey: op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === IDEMPOTENCY_KEY),
    declares: (status) => responseForStatus(byCode, String(status), false) === true,
  };
}

/** Operation id → its facts, for the operations of a contract. */
export function retrySafetyTable(operations: readonly Operation[]): ReadonlyMap<string, RetrySafety> {
  return new Map(operations.map((op) => [op.id, retrySafetyOf(op)]));
}

/**
 * The request may be sent again after some of it may have reached the backend: an idempotent method, or a
 * POST/PATCH of an operation declaring `Idempotency-Key` whose request carries one (sent unchanged on every
 * attempt, as the headers are). Without the operation's facts only the method decides.
 */
export function maySendAgain(method: string, safety: RetrySafety | undefined, idempotencyKey: unknown): boolean {
  if (IDEMPOTENT_METHODS.has(method)) return true;
  if (method !== 'POST' && method !== 'PATCH') return false;
  return safety?.declaresIdempotencyKey === true && typeof idempotencyKey === 'string' && idempotencyKey !== '';
}

/** The header name the key is read from. */
export const IDEMPOTENCY_KEY_HEADER = IDEMPOTENCY_KEY;
