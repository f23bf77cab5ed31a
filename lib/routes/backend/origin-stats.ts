// What the facade counts per backend origin for retries (attempts sent, retries among them, retries the
// budget refused) and the origin's retry budget; rendered as metrics (svc_backend_*) when scraped.
import type { BackendOptions } from '../../config/backend-options.js';
import { RetryBudget } from './retry-budget.js';

export class OriginStats {
  /** Requests sent to the origin, retries included. */
  attempts = 0;
  retries = 0;
  /** Retries not made because the budget was spent. */
  budgetExhausted = 0;
  readonly budget: RetryBudget;

  constructor(options: BackendOptions) {
    this.budget = new RetryBudget(options.retryBudgetPercent, options.retryBudgetMinPerSecond);
  }
}
