// Retries of one forwarded call (issue 34): which failures may be retried, the backoff before each retry, the
// whole request's time limit and the origin's budget. The call (call.ts) asks `next` after a failure or an
// undeclared 502/503/504 and sends again after the delay it is given; it checks beforehand that the body can
// be sent again (held whole, or a streamed one kept, see kept-body.ts).
import type { OriginStats } from './origin-stats.js';

/** The endpoint options that govern retries (endpoint.ts; svc.backend.* by default). */
export interface RetryOptions {
  readonly retries: number;
  readonly retryDelay: number;
  readonly retryMaxDelay: number;
  /** The whole request, until the answer's head, across attempts and backoffs. */
  readonly requestTimeout: number;
}

/**
 * How an attempt failed, as far as sending again is concerned. `unsent`: no connection was made (refused,
 * unreachable, connect timeout), so nothing reached the backend and any request may go again; `reset`: the
 * connection closed before any byte of an answer, so the backend may have acted on the request; `status`:
 * it answered 502, 503 or 504 without the operation declaring it.
 */
export type FailureKind = 'unsent' | 'reset' | 'status';

const UNSENT = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);
const RESET = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** The kind of a failed attempt that may be retried, or undefined (a timeout waiting for the answer, a TLS error...). */
export function failureKind(err: unknown): FailureKind | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  return UNSENT.has(code) ? 'unsent' : RESET.has(code) ? 'reset' : undefined;
}

/** One call's retries; made only for an endpoint with retries above 0. */
export class CallRetries {
  /** Retries made so far. */
  made = 0;
  /** The last backoff (decorrelated jitter grows from it). */
  private delay: number;
  /** performance.now() when the whole request's time is spent. */
  readonly deadline: number;

  constructor(
    private readonly options: RetryOptions,
    private readonly stats: OriginStats,
    /** The contract lets the request be sent again once some of it may have reached the backend. */
    private readonly safe: boolean,
    now: number,
  ) {
    this.delay = options.retryDelay;
    this.deadline = now + options.requestTimeout;
    stats.budget.requested(now);
  }

  /**
   * The delay before the next attempt, or undefined when there is none: no retries left, not safe to send
   * again, a Retry-After longer than the backoff limit, no time left for the wait, or the budget is spent.
   */
  next(kind: FailureKind, now: number, retryAfter?: string | string[]): number | undefined {
    const { options } = this;
    if (this.made >= options.retries) return undefined;
    if (kind !== 'unsent' && !this.safe) return undefined;
    let delay = this.backoff();
    if (retryAfter !== undefined) {
      const asked = retryAfterMs(retryAfter, Date.now());
      if (asked !== undefined && asked > options.retryMaxDelay) return undefined;
      if (asked !== undefined) delay = Math.max(delay, asked);
    }
    if (now + delay >= this.deadline) return undefined;
    if (!this.stats.budget.tryRetry(now)) {
      this.stats.budgetExhausted++;
      return undefined;
    }
    this.made++;
    this.stats.retries++;
    return delay;
  }

  /** Decorrelated jitter (the AWS architecture blog's): uniform between retryDelay and three times the last, at most retryMaxDelay. */
  private backoff(): number {
    const { retryDelay, retryMaxDelay } = this.options;
    const next = Math.min(retryMaxDelay, retryDelay + Math.random() * Math.max(0, this.delay * 3 - retryDelay));
    this.delay = next;
    return Math.round(next);
  }
}

/** RFC 9110 §10.2.3: seconds, or an HTTP date; undefined when neither. */
export function retryAfterMs(value: string | string[], now: number): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim() ?? '';
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
