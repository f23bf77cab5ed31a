// Camel's `loadBalance` EIP over several `to: http(s)://` backends: roundRobin, random, weighted
// (distributionRatio) or failover (the next endpoint after a failed call, at most maximumFailoverAttempts more),
// with outlier ejection as Envoy does it: an endpoint that fails 5 calls in a row is left out for 30 s,
// twice as long at each ejection (at most 300 s), and never the last usable one. Failures: the call failed,
// or it ended with a 5xx status the operation does not declare. A call its client cut short (client-cut.ts)
// is neither, and is not sent to another endpoint.
import { performance } from 'node:perf_hooks';
import type { Exchange } from '../message/exchange.js';
import { cutByClient } from './client-cut.js';

export type { Strategy } from '../config/route-definitions.js';
import type { Strategy } from '../config/route-definitions.js';

const CONSECUTIVE_FAILURES = 5;
const BASE_EJECTION_MS = 30_000;
const MAX_EJECTION_MS = 300_000;

interface Member {
  run: (ex: Exchange) => unknown;
  failures: number;
  ejectedUntil: number;
  ejections: number;
}

/** One loadBalance step's endpoints and their health, shared by every request of its route. */
export class Balancer {
  private readonly members: Member[];
  private next = 0;
  /** weighted: the endpoint index of each slot of one round (ratios 2,1 → [0, 0, 1]). */
  private readonly slots: number[];

  constructor(runs: ((ex: Exchange) => unknown)[], readonly strategy: Strategy) {
    this.members = runs.map((run) => ({ run, failures: 0, ejectedUntil: 0, ejections: 0 }));
    this.slots = strategy.kind === 'weighted' ? strategy.ratios.flatMap((r, i) => Array<number>(r).fill(i)) : runs.map((_, i) => i);
  }

  get size(): number {
    return this.members.length;
  }

  /** Ejected endpoints right now (for metrics). */
  ejected(now: number): number {
    return this.members.filter((m) => m.ejectedUntil > now).length;
  }

  /** The index of the endpoint for a call; `after`: failover's previous one (the next usable after it). */
  choose(now: number, after?: number): number {
    const usable = (i: number): boolean => this.members[i]!.ejectedUntil <= now;
    const { kind } = this.strategy;
    if (after !== undefined || kind === 'failover') {
      const start = after === undefined ? 0 : after + 1;
      for (let k = 0; k < this.size; k++) if (usable((start + k) % this.size)) return (start + k) % this.size;
      return (start % this.size);
    }
    for (let tries = 0; tries < this.slots.length; tries++) {
      const slot = kind === 'random' ? Math.floor(Math.random() * this.slots.length) : this.next++ % this.slots.length;
      if (usable(this.slots[slot]!)) return this.slots[slot]!;
    }
    return this.slots[0]!;
  }

  run(i: number, ex: Exchange): unknown {
    return this.members[i]!.run(ex);
  }

  record(i: number, failed: boolean, now: number): void {
    const member = this.members[i]!;
    if (!failed) {
      member.failures = 0;
      return;
    }
    if (++member.failures < CONSECUTIVE_FAILURES) return;
    // Never the last usable endpoint: with all others out, this one keeps taking calls.
    const others = this.members.filter((m) => m !== member && m.ejectedUntil <= now).length;
    if (others === 0) return;
    member.failures = 0;
    member.ejectedUntil = now + Math.min(MAX_EJECTION_MS, BASE_EJECTION_MS * 2 ** member.ejections);
    member.ejections++;
  }
}

/**
 * The step. `failedAnswer(ex)`: the exchange ended with an undeclared 5xx; `maySendAgain(ex)`: failover may
 * send this request to another endpoint (the contract makes it safe, as for retries).
 */
export function loadBalanceStep(balancer: Balancer, failedAnswer: (ex: Exchange) => boolean, maySendAgain: (ex: Exchange) => boolean): (ex: Exchange) => Promise<void> {
  const { strategy } = balancer;
  const failovers = strategy.kind === 'failover' ? (strategy.maximumFailoverAttempts < 0 ? balancer.size - 1 : strategy.maximumFailoverAttempts) : 0;
  return async (ex) => {
    let i = balancer.choose(performance.now());
    for (let attempt = 0; ; attempt++) {
      try {
        await balancer.run(i, ex);
      } catch (err) {
        if (cutByClient(err)) throw err;
        balancer.record(i, true, performance.now());
        // Failover after a failed call only: an answer (even a 5xx) has become the exchange's, so it is passed on.
        if (attempt >= failovers || !maySendAgain(ex)) throw err;
        i = balancer.choose(performance.now(), i);
        continue;
      }
      balancer.record(i, failedAnswer(ex), performance.now());
      return;
    }
  };
}
