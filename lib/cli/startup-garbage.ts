// One full garbage collection shortly after the CLI listens. A start leaves megabytes of garbage behind (a
// big contract's text and parse trees, the configuration's YAML documents), and V8 collects old-space
// garbage only when allocation next grows the heap, which an idle server may not do for a long time: until
// then it counts in the process's RSS (figures: docs/performance.md). The collection runs on a timer, after the first requests had their chance, and once.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

export function collectStartupGarbage(delayMs = 100): void {
  setTimeout(collectGarbage, delayMs).unref();
}

function collectGarbage(): void {
  // V8 exposes gc() only to contexts created while --expose-gc is set (a context costs milliseconds: not on
  // the way to the first answer). The flag is unset again at once: V8 checks a code cache against the hash
  // of its flags (dist/load.js, scripts/bundle/warm-up.mjs).
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  gc();
}
