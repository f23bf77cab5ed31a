// Finagle's retry budget (com.twitter.finagle.service.RetryBudget): every request sent deposits a fraction of
// a retry, every retry withdraws one, and the balance counts only the last 10 s; a reserve of
// `minPerSecond` × 10 s retries lets a quiet backend be retried at all. So over any 10 s a backend gets at
// most `percent` % more requests than it was sent plus `minPerSecond` a second: retries cannot multiply an
// overload into a storm. One budget per backend origin, shared by every route that forwards to it.

/** The window the balance counts, in one-second slots. */
const SLOTS = 10;
const SLOT_MS = 1000;
/** A retry costs this much; a request deposits percent × WITHDRAWAL / 100 (integers, no drift). */
const WITHDRAWAL = 100;

export class RetryBudget {
  /** Deposits minus withdrawals per one-second slot of the window; `slot` is the current one. */
  private readonly slots = new Int32Array(SLOTS);
  private slot = 0;
  /** The second (since the epoch of performance.now) the current slot counts. */
  private second = 0;
  private readonly deposit: number;
  private readonly reserve: number;

  constructor(percent: number, minPerSecond: number) {
    this.deposit = Math.round((percent * WITHDRAWAL) / 100);
    this.reserve = minPerSecond * (SLOTS * SLOT_MS / 1000) * WITHDRAWAL;
  }

  /** A request was sent (its first attempt). */
  requested(now: number): void {
    this.slots[this.advance(now)]! += this.deposit;
  }

  /** Takes one retry from the budget; false (nothing taken) when it is spent. */
  tryRetry(now: number): boolean {
    const current = this.advance(now);
    let balance = this.reserve;
    for (let i = 0; i < SLOTS; i++) balance += this.slots[i]!;
    if (balance < WITHDRAWAL) return false;
    this.slots[current]! -= WITHDRAWAL;
    return true;
  }

  /** Moves the window to `now` (ms), clearing the slots of the seconds that passed; returns the current slot. */
  private advance(now: number): number {
    const second = Math.floor(now / SLOT_MS);
    const passed = second - this.second;
    if (passed === 0) return this.slot;
    this.second = second;
    if (passed >= SLOTS || passed < 0) {
      this.slots.fill(0);
    } else {
      for (let i = 1; i <= passed; i++) this.slots[(this.slot + i) % SLOTS] = 0;
    }
    this.slot = (this.slot + Math.max(0, Math.min(passed, SLOTS))) % SLOTS;
    return this.slot;
  }
}
