// V8's gc(), for the two places the facade asks for a collection itself: once after the CLI starts
// (cli/startup-garbage.ts) and every few MB a backend relays (routes/backend/relayed-garbage.ts).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export interface CollectOptions {
  type?: 'minor' | 'major';
  execution?: 'sync' | 'async';
}

export type Collect = (options?: CollectOptions) => void;

/**
 * The gc() function. V8 exposes it only to contexts created while --expose-gc is set (a context costs
 * milliseconds: ask once, off the way to a first answer). The flag is unset again at once: V8 checks a code
 * cache against the hash of its flags (dist/load.js, scripts/bundle/warm-up.mjs). A process started with
 * --expose-gc has its own.
 */
export function garbageCollector(): Collect {
  if (collector !== undefined) return collector;
  const own = (globalThis as { gc?: Collect }).gc;
  if (typeof own === 'function') return (collector = own);
  setFlagsFromString('--expose-gc');
  collector = runInNewContext('gc') as Collect;
  setFlagsFromString('--no-expose-gc');
  return collector;
}

/** Asked for once per process: both callers share it. */
let collector: Collect | undefined;
