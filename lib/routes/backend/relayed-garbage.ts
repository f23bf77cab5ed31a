// A young-generation collection every RELAY_COLLECTION_BYTES a backend relays (its answer's bytes, and a
// client's body streamed to it). Every socket read is a new buffer outside V8's heap, dead as soon as it
// has been written on; V8 frees such buffers only with a collection, and starts one for them only once
// tens of MB have piled up (then as an incremental full collection, ~10 for 300 MB). A minor collection
// frees the buffers still young at a fraction of that cost: RSS growth stays under 10 MB whatever a body's
// size, and the CPU per MB relayed falls (figures: docs/performance.md, "A body streamed through a `to:`
// backend"). The count is the process's, not a call's: concurrent bodies share the collections.
import { garbageCollector } from '../../util/garbage.js';

/** 4 MiB: the lowest CPU per MB measured (2 MiB alike; 8 MiB holds twice the garbage, 16 MiB lets V8's own full collections back). */
export const RELAY_COLLECTION_BYTES = 4 * 1024 * 1024;

let relayed = 0;
const MINOR = { type: 'minor', execution: 'sync' } as const;

/** Counts bytes relayed; collects the young generation once RELAY_COLLECTION_BYTES have passed since the last time. */
export function countRelayed(bytes: number): void {
  relayed += bytes;
  if (relayed < RELAY_COLLECTION_BYTES) return;
  relayed = 0;
  garbageCollector()(MINOR);
}
