// Sequential media types (OpenAPI 3.2 §4.14.3.1): bodies that are a repeating structure of items, read and
// written item by item. Which media types are sequential, and how each one frames its items.
import { essence } from '../http/negotiation.js';

/**
 * How a sequential media type frames items: JSON Lines / NDJSON (one JSON text a line), JSON text
 * sequences (RFC 7464, each text after a Record Separator), Server-Sent Events, and `multipart/mixed` parts.
 */
export type SequenceKind = 'json-lines' | 'json-seq' | 'sse' | 'multipart';

const KINDS: ReadonlyMap<string, SequenceKind> = new Map([
  ['application/jsonl', 'json-lines'],
  ['application/x-ndjson', 'json-lines'],
  ['application/x-jsonlines', 'json-lines'],
  ['application/json-seq', 'json-seq'],
  ['text/event-stream', 'sse'],
  ['multipart/mixed', 'multipart'],
]);

/** The framing of a sequential media type (`+json-seq` suffixes too), or undefined for any other type. */
export function sequenceKind(mediaType: string): SequenceKind | undefined {
  const type = essence(mediaType);
  return KINDS.get(type) ?? (type.endsWith('+json-seq') ? 'json-seq' : undefined);
}

export function isSequential(mediaType: string): boolean {
  return sequenceKind(mediaType) !== undefined;
}
