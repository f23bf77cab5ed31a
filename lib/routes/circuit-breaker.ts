// Camel's `circuitBreaker` EIP with its Resilience4j configuration (the keys and defaults Camel documents):
// the calls of its steps are counted in a sliding window of the last `slidingWindowSize` calls; once at
// least `minimumNumberOfCalls` were made and `failureRateThreshold` % of them failed, the breaker opens:
// for `waitDurationInOpenState` no call is made, the `onFallback` steps answer instead, or a 503 problem
// with Retry-After (the time left open). Then `permittedNumberOfCallsInHalfOpenState` probes go through;
// the breaker closes when fewer than the threshold of them fail, and opens again otherwise.
// Failures: the steps failed (a backend that cannot be reached, a timeout, a problem the facade made), or
// they ended with a 5xx status the operation does not declare. A call its client cut short (client-cut.ts) is
// neither: not recorded, and a half-open probe slot it held is given back. An answer still streaming when the
// steps end (the breaker is its route's last step) is judged by its status; the fallback drops a failed one.
import { Errors, SvcError } from '../util/errors.js';
import { parseDuration } from '../config/units.js';
import { HeaderNames, type Exchange } from '../message/exchange.js';
import { cutByClient } from './client-cut.js';
import { StreamedBody } from '../message/streamed-body.js';

export interface Resilience4jConfiguration {
  failureRateThreshold: number;
  slidingWindowSize: number;
  minimumNumberOfCalls: number;
  waitDurationInOpenState: number;
  permittedNumberOfCallsInHalfOpenState: number;
  timeoutEnabled: boolean;
  timeoutDuration: number;
}

/** Camel's defaults (camel-resilience4j): waitDurationInOpenState 60 s, timeoutDuration 1 s. */
export const RESILIENCE4J_DEFAULTS: Resilience4jConfiguration = {
  failureRateThreshold: 50,
  slidingWindowSize: 100,
  minimumNumberOfCalls: 100,
  waitDurationInOpenState: 60_000,
  permittedNumberOfCallsInHalfOpenState: 10,
  timeoutEnabled: false,
  timeoutDuration: 1000,
};

const KEYS = Object.keys(RESILIENCE4J_DEFAULTS) as (keyof Resilience4jConfiguration)[];
/** Camel's keys that change nothing here (kept so Camel files load): their behaviour is the default's. */
const ACCEPTED = ['id', 'slidingWindowType', 'automaticTransitionFromOpenToHalfOpenEnabled', 'writableStackTraceEnabled', 'config', 'circuitBreaker'];

/** The configuration read from a DSL (strings or numbers; durations in ms, or `10s`); throws naming a bad key. */
export function resilience4jConfiguration(raw: Readonly<Record<string, unknown>> | undefined, where: string): Resilience4jConfiguration {
  const config = { ...RESILIENCE4J_DEFAULTS };
  for (const [key, value] of Object.entries(raw ?? {})) {
    if (ACCEPTED.includes(key)) continue;
    const name = KEYS.find((k) => k === key);
    if (name === undefined) throw new Error(`${where}: unknown resilience4jConfiguration key ${key}; allowed: ${KEYS.join(', ')}`);
    const bad = (allowed: string): Error => new Error(`${where}: resilience4jConfiguration ${key} has invalid value ${JSON.stringify(value)}; allowed: ${allowed}`);
    if (name === 'timeoutEnabled') {
      if (value !== true && value !== false && value !== 'true' && value !== 'false') throw bad('true, false');
      config.timeoutEnabled = value === true || value === 'true';
    } else if (name === 'waitDurationInOpenState' || name === 'timeoutDuration') {
      const ms = parseDuration(value);
      if (ms === undefined || ms === 0) throw bad('milliseconds above 0, or a number with ms, s or m');
      config[name] = ms;
    } else {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
      const max = name === 'failureRateThreshold' ? 100 : 1_000_000;
      if (!Number.isInteger(n) || n < 1 || n > max) throw bad(`an integer from 1 to ${max}`);
      config[name] = n;
    }
  }
  return config;
}

type State = 'closed' | 'open' | 'halfOpen';

/** One breaker (one `circuitBreaker` step): its state, shared by every request of the route. */
export class CircuitBreaker {
  state: State = 'closed';
  /** Calls not let through (open, or half-open with every probe taken). */
  rejected = 0;
  /** The outcomes of the last calls (true: failed), a ring of slidingWindowSize. */
  private readonly window: Uint8Array;
  private calls = 0;
  private next = 0;
  private failures = 0;
  private openUntil = 0;
  /** Half-open: probes let through, and their outcomes. */
  private probes = 0;
  private probed = 0;
  private probeFailures = 0;
  /** The half-open periods so far: a probe's slot is given back only in the period it was taken in. */
  private periods = 0;

  constructor(readonly config: Resilience4jConfiguration) {
    this.window = new Uint8Array(config.slidingWindowSize);
  }

  /** Whether a call may be made now; false: open (or half-open with every probe taken). Closed: no clock read. */
  permit(): boolean {
    if (this.state === 'closed') return true;
    if (this.state === 'open') {
      if (performance.now() < this.openUntil) return false;
      this.state = 'halfOpen';
      this.periods++;
      this.probes = this.probed = this.probeFailures = 0;
    }
    if (this.probes >= this.config.permittedNumberOfCallsInHalfOpenState) return false;
    this.probes++;
    return true;
  }

  /** Seconds until the breaker lets probes through (Retry-After), at least 1. */
  retryAfter(): number {
    return Math.max(1, Math.ceil((this.openUntil - performance.now()) / 1000));
  }

  /** A permitted call ended. */
  record(failed: boolean): void {
    const { config } = this;
    if (this.state === 'halfOpen') {
      this.probed++;
      if (failed) this.probeFailures++;
      if (this.probed < config.permittedNumberOfCallsInHalfOpenState) return;
      if ((this.probeFailures * 100) / this.probed >= config.failureRateThreshold) return this.open();
      this.state = 'closed';
      this.calls = this.next = this.failures = 0;
      this.window.fill(0);
      return;
    }
    if (this.state !== 'closed') return;
    const size = this.window.length;
    if (this.calls === size) this.failures -= this.window[this.next]!;
    else this.calls++;
    this.window[this.next] = failed ? 1 : 0;
    this.failures += failed ? 1 : 0;
    this.next = (this.next + 1) % size;
    if (this.calls >= config.minimumNumberOfCalls && (this.failures * 100) / this.calls >= config.failureRateThreshold) this.open();
  }

  /** The current half-open period (read when a call is permitted, for `release`). */
  get period(): number {
    return this.periods;
  }

  /** A call permitted in `period` ended with no outcome (its client left): a probe's slot is free again. */
  release(period: number): void {
    if (this.state === 'halfOpen' && period === this.periods) this.probes--;
  }

  private open(): void {
    this.state = 'open';
    this.openUntil = performance.now() + this.config.waitDurationInOpenState;
  }
}

type Run = (ex: Exchange) => void | Promise<void>;

/**
 * The step: runs `steps` when the breaker permits, records the outcome, and runs `fallback` (when given)
 * instead of failing, or when open. `declares(ex, status)`: the exchange's operation declares that status.
 * Plain functions, not async ones: a closed breaker around a call adds no promise of its own.
 */
export function circuitBreakerStep(breaker: CircuitBreaker, steps: Run, fallback: Run | undefined, declares: (ex: Exchange, status: number) => boolean): Run {
  const { timeoutEnabled, timeoutDuration } = breaker.config;
  return (ex) => {
    if (!breaker.permit()) {
      breaker.rejected++;
      if (fallback !== undefined) return fallback(ex);
      const seconds = breaker.retryAfter();
      throw new SvcError(Errors.CIRCUIT_OPEN, [seconds], undefined, { 'retry-after': String(seconds) });
    }
    const period = breaker.period;
    const judge = (): void | Promise<void> => {
      const status = Number(ex.message.headers.get(HeaderNames.RESPONSE_CODE));
      const failed = status >= 500 && status <= 599 && !declares(ex, status);
      breaker.record(failed);
      if (!failed || fallback === undefined) return;
      // The fallback's answer is its own: not the failed call's status, nor its body.
      ex.message.headers.delete(HeaderNames.RESPONSE_CODE);
      discardStreamed(ex);
      return fallback(ex);
    };
    const thrown = (err: unknown): void | Promise<void> => {
      // The client left: no outcome for the breaker, and no fallback (it answers for the backend, not the client).
      if (cutByClient(err)) {
        breaker.release(period);
        throw err;
      }
      breaker.record(true);
      if (fallback === undefined) throw err;
      return fallback(ex);
    };
    let run: void | Promise<void>;
    try {
      run = timeoutEnabled ? withTimeout(steps(ex), timeoutDuration, ex) : steps(ex);
    } catch (err) {
      return thrown(err);
    }
    return run instanceof Promise ? run.then(judge, thrown) : judge();
  };
}

function discardStreamed(ex: Exchange): void {
  const body = ex.message.body;
  if (body instanceof StreamedBody) body.discard();
}

/** `run` bounded by `ms`; a call that answers after its time has its streamed answer dropped (nobody reads it). */
function withTimeout(run: void | Promise<void>, ms: number, ex: Exchange): void | Promise<void> {
  if (!(run instanceof Promise)) return run;
  let timedOut = false;
  run.then(
    () => timedOut && discardStreamed(ex),
    () => undefined,
  );
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new SvcError(Errors.BACKEND_TIMEOUT, ['']));
    }, ms);
  });
  return Promise.race([run, timeout]).finally(() => clearTimeout(timer));
}
