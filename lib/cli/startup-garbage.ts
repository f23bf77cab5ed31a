// How a CLI start leaves memory. While the facade is built, V8's young generation keeps its first size
// (holdYoungGeneration). Shortly after it listens, one full, compacting garbage collection: a start leaves
// megabytes of garbage behind (a big contract's text and parse trees, the configuration's YAML documents),
// and V8 collects old-space garbage only when allocation next grows the heap, which an idle server may not
// do for a long time: until then it counts in the process's RSS (figures: docs/performance.md). The
// collection runs on a timer, after the first requests had their chance, and once.
import { setFlagsFromString } from 'node:v8';
import { garbageCollector } from '../util/garbage.js';

export function collectStartupGarbage(delayMs = 100): void {
  setTimeout(collectGarbage, delayMs).unref();
}

function collectGarbage(): void {
  const gc = garbageCollector();
  // Compacting too: the pages a start left half full are given back (1.3 MiB of a Petstore start's 8.5).
  // Unset again at once, as V8 checks a code cache against the hash of its flags (dist/load.js).
  setFlagsFromString('--compact-on-every-full-gc');
  gc();
  setFlagsFromString('--no-compact-on-every-full-gc');
}

/** A growth factor set in NODE_OPTIONS or node's own arguments is the operator's: left alone. */
const GROWTH_FLAG = /--semi[-_]space[-_]growth[-_]factor/;
/** V8's default (v8_flags.semi_space_growth_factor). */
const DEFAULT_GROWTH = 2;

/**
 * Keeps V8's young generation at its first size while the CLI builds its facade; returns what puts it back.
 * A scavenge that finds much alive (a big contract's parse) doubles the young generation, up to 32 MiB, and
 * its pages stay resident once the start is over: a quarter of the idle RSS of a start on GitHub's YAML
 * description (docs/performance.md). Put back before the listening line, so traffic grows it as it always
 * did, and to the exact value: V8 checks a code cache against the hash of its flags (dist/load.js), and the
 * build's warm-up writes the cache after it reads that line.
 */
export function holdYoungGeneration(): () => void {
  if ([...process.execArgv, process.env.NODE_OPTIONS ?? ''].some((arg) => GROWTH_FLAG.test(arg))) return () => undefined;
  setFlagsFromString('--semi-space-growth-factor=1');
  let held = true;
  return () => {
    if (held) setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH}`);
    held = false;
  };
}
