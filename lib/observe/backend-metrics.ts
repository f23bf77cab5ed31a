// The backend side's metrics (svc_backend_*): per origin, the attempts sent, the retries among them and the
// retries the retry budget refused. Every family is always present; an origin has series once it was called.
import type { BackendContext } from '../routes/backend/context.js';
import { labelValue, type Exposition } from './exposition.js';

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
}
