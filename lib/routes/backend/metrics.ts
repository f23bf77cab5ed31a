// The backend side's metrics: per origin (svc_backend_*) the attempts sent, the retries among them and the
// retries the retry budget refused; per circuitBreaker step (svc_circuit_breaker_*) its state and the calls it refused.
import { performance } from 'node:perf_hooks';
import type { BackendContext } from './context.js';
import { labelValue, type Exposition } from '../../util/exposition.js';

const FAMILIES = [
  ['svc_backend_attempts_total', 'Requests sent to a backend origin, retries included.', 'attempts'],
  ['svc_backend_retries_total', 'Requests sent again to a backend origin after a failure or an undeclared 502/503/504.', 'retries'],
  ['svc_backend_retry_budget_exhausted_total', "Retries not made because the origin's retry budget was spent.", 'budgetExhausted'],
] as const;

/** `withWorker` adds the worker label (metrics.ts) to rendered labels. */
export function backendFamilies(out: Exposition, backends: BackendContext, withWorker: (labels: string) => string): void {
  const called = [...backends.origins].filter(([, stats]) => stats.attempts > 0);
  for (const [name, help, field] of FAMILIES) {
    out.family(name, 'counter', help);
    for (const [origin, stats] of called) out.sample(name, withWorker(`origin="${labelValue(origin)}"`), stats[field]);
  }
  // A state as three series, one of them 1 (Prometheus's way with an enum): `max by (route)` never mixes states.
  out.family('svc_circuit_breaker_state', 'gauge', 'The state of each circuitBreaker step, by route: 1 for the state it is in.');
  for (const { route, breaker } of backends.breakers) {
    for (const state of BREAKER_STATES) out.sample('svc_circuit_breaker_state', withWorker(`route="${labelValue(route)}",state="${state}"`), breaker.state === state ? 1 : 0);
  }
  out.family('svc_circuit_breaker_rejected_total', 'counter', 'Calls a circuitBreaker step answered without its steps (open, or half-open with every probe taken), by route.');
  for (const { route, breaker } of backends.breakers) out.sample('svc_circuit_breaker_rejected_total', withWorker(`route="${labelValue(route)}"`), breaker.rejected);
  out.family('svc_load_balancer_ejected_endpoints', 'gauge', 'Endpoints of each loadBalance step left out for failing 5 calls in a row, by route.');
  const now = performance.now();
  for (const { route, balancer } of backends.balancers) out.sample('svc_load_balancer_ejected_endpoints', withWorker(`route="${labelValue(route)}"`), balancer.ejected(now));
}

const BREAKER_STATES = ['closed', 'open', 'halfOpen'] as const;
