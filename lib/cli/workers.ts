// The cluster primary with `svc.server.workers` > 1: starts the workers, passes stop signals on, and keeps
// the service up when one worker dies.
import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../util/log.js';

/**
 * More replacements than this within REPLACEMENT_WINDOW_MS means the workers crash as fast as they start:
 * the service stops with the dead worker's exit code, and its supervisor sees a crash loop, not a fork storm.
 */
const MAX_REPLACEMENTS = 5;
const REPLACEMENT_WINDOW_MS = 60_000;

/** How many dead workers may still be replaced: at most `max` within any `windowMs`. */
export class ReplacementBudget {
  private readonly times: number[] = [];

  constructor(
    readonly max = MAX_REPLACEMENTS,
    readonly windowMs = REPLACEMENT_WINDOW_MS,
  ) {}

  /** Spends one replacement at time `now` (ms) and says true, or says false when the budget is spent. */
  spend(now: number): boolean {
    while (this.times.length > 0 && now - this.times[0]! >= this.windowMs) this.times.shift();
    if (this.times.length >= this.max) return false;
    this.times.push(now);
    return true;
  }
}

/**
 * Forks `count` workers. A worker that was serving and dies on its own (a crash, a signal, the OOM killer) is
 * replaced: the primary and the other workers carry on, so one fatal request does not end the whole service.
 * A worker that dies before it listens failed to start (the port is taken, a module throws): a replacement
 * would fail the same way, so all stop and the process exits with that worker's code. A worker that exits
 * with code 0 was stopped on purpose (its own SIGTERM) and is not replaced.
 */
export function superviseWorkers(count: number, logger: Logger): void {
  let stopping = false;
  const stopAll = (): void => {
    stopping = true;
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  };
  const serving = new Set<Worker>();
  const budget = new ReplacementBudget();
  cluster.on('listening', (worker) => serving.add(worker));
  cluster.on('exit', (worker, code, signal) => {
    const wasServing = serving.delete(worker);
    if (stopping || code === 0) return;
    const how = signal ? `signal ${signal}` : `code ${code}`;
    if (wasServing && budget.spend(Date.now())) {
      logger.error(`worker ${worker.id} (pid ${worker.process.pid}) exited with ${how}; starting a replacement`);
      cluster.fork();
      return;
    }
    if (wasServing) logger.error(`worker ${worker.id} exited with ${how}, more than ${budget.max} worker deaths within ${budget.windowMs / 1000} s; stopping`);
    process.exitCode = code ?? 1;
    stopAll();
  });
  for (let i = 0; i < count; i++) cluster.fork();
  process.on('SIGTERM', stopAll).on('SIGINT', stopAll);
}
