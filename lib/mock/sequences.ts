// Mock answers in a sequential media type (docs/mocking.md for streams): a finite stream, framed, then ended.
// Source, first that applies: the Example Object's `serializedValue` sent as is; an example value (the
// named or first one of `examples`, else `example`): a string is taken as the serialized sequence, an
// array as its items, anything else as one item; else a few items synthesized from `itemSchema` (or from
// an array `schema`, whose items they are). Static answers are made once and kept.
import type { Contract } from '../contract/load.js';
import type { MediaTypeObject, Operation, ResponseObject } from '../contract/operations.js';
import type { Located } from '../contract/refs.js';
import { exampleSample, type ExampleSample } from '../contract/example-objects.js';
import { responseForStatus, responsesByCode } from '../contract/responses.js';
import type { Random } from './random.js';
import type { MockBody } from './render.js';
import { NOTHING, type Synthesizer } from './synthesize.js';
import { createEncoder } from '../codec/sequence-encode.js';
import { sequenceKind } from '../codec/sequential-media.js';

/** How many items a synthesized stream has. */
const SYNTHESIZED_ITEMS = 3;

export type SequenceMock = (status: number, mediaType: string, exampleName: string | undefined, random: Random | undefined) => MockBody | undefined;

export function compileSequenceMock(op: Operation, contract: Contract, synthesizer: Synthesizer): SequenceMock {
  const byCode = responsesByCode(op, (response) => response);
  const kept = new Map<string, MockBody | null>();
  const make = (response: Located<ResponseObject>, mediaType: string, exampleName: string | undefined, random: Random | undefined): MockBody | undefined => {
    const media = response.value.content?.[mediaType];
    if (!media || typeof media !== 'object') return undefined;
    const deref = (value: unknown): unknown => contract.refs.deref(value, response.uri).value;
    if (random === undefined || exampleName !== undefined) {
      const example = exampleOf(media, exampleName, deref);
      if (example !== undefined) return 'serialized' in example ? { payload: example.serialized, type: mediaType } : framed(mediaType, example.data);
    }
    try {
      const items = synthesizedItems(media, mediaType, response.uri, synthesizer, random);
      return items === undefined ? undefined : framed(mediaType, items);
    } catch (err) {
      synthesizer.note(`mock: no items can be synthesized for ${mediaType}: ${(err as Error).message}`);
      return undefined;
    }
  };
  return (status, mediaType, exampleName, random) => {
    const response = responseForStatus(byCode, String(status));
    if (response === undefined) return undefined;
    // A name the client made up is no example (and no key: what is kept stays bounded by the contract).
    const examples = response.value.content?.[mediaType]?.examples;
    const name = exampleName !== undefined && examples && typeof examples === 'object' && Object.hasOwn(examples, exampleName) ? exampleName : undefined;
    if (random !== undefined) return make(response, mediaType, name, random);
    const key = `${status} ${mediaType} ${name ?? ''}`;
    let body = kept.get(key);
    if (body === undefined) kept.set(key, (body = make(response, mediaType, name, undefined) ?? null));
    return body ?? undefined;
  };
}

/** The named Example Object (else the first with something to send), else the media type's `example`. */
function exampleOf(media: MediaTypeObject, name: string | undefined, deref: (value: unknown) => unknown): ExampleSample | undefined {
  const examples = media.examples && typeof media.examples === 'object' ? media.examples : {};
  const named = name !== undefined && Object.hasOwn(examples, name) ? exampleSample(deref(examples[name])) : undefined;
  if (named !== undefined) return named;
  for (const entry of Object.values(examples)) {
    const found = exampleSample(deref(entry));
    if (found !== undefined) return found;
  }
  return media.example === undefined ? undefined : { data: media.example };
}

/** A string is the sequence already serialized; an array its items; anything else one item. */
function framed(mediaType: string, value: unknown): MockBody {
  if (typeof value === 'string') return { payload: value, type: mediaType };
  const encoder = createEncoder(sequenceKind(mediaType)!, mediaType);
  const frames = (Array.isArray(value) ? value : [value]).map((item) => encoder.frame(item));
  frames.push(encoder.close);
  return { payload: Buffer.concat(frames.map((f) => (typeof f === 'string' ? Buffer.from(f) : f))), type: encoder.contentType };
}

function synthesizedItems(media: MediaTypeObject, mediaType: string, uri: string, synthesizer: Synthesizer, random: Random | undefined): unknown[] | undefined {
  const sse = sequenceKind(mediaType) === 'sse';
  // An array `schema` (the whole sequence) gives its items; otherwise `itemSchema` (or any value) per item.
  if (media.itemSchema === undefined && media.schema !== undefined) {
    const value = synthesizer.generator(media.schema, uri)({ random, spent: 0 }, 0);
    if (value === NOTHING) return undefined;
    return (Array.isArray(value) ? value : [value]).map((item) => (sse ? asEvent(item) : item));
  }
  const gen = synthesizer.generator(media.itemSchema, uri);
  const items: unknown[] = [];
  for (let i = 0; i < SYNTHESIZED_ITEMS; i++) {
    const item = gen({ random, spent: 0 }, 0);
    if (item !== NOTHING) items.push(sse ? asEvent(item) : item);
  }
  return items.length === 0 ? undefined : items;
}

/** A synthesized event without `data` (no schema, or one that does not require it) carries the value as its data. */
function asEvent(item: unknown): unknown {
  return item !== null && typeof item === 'object' && Object.hasOwn(item, 'data') ? item : { data: item };
}
