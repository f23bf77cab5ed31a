// One full garbage collection shortly after the CLI listens. A start leaves megabytes of garbage behind (a
// big contract's text and parse trees, the configuration's YAML documents), and V8 collects old-space
// garbage only when allocation next grows the heap, which an idle server may not do for a long time: until
// then it counts in the process's RSS (figures: docs/performance.md). The collection runs on a timer, after the first requests had their chance, and once.
import { garbageCollector } from '../util/garbage.js';

export function collectStartupGarbage(delayMs = 100): void {
  setTimeout(collectGarbage, delayMs).unref();
}

function collectGarbage(): void {
  garbageCollector()();
}
