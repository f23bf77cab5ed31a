// Items of sequential bodies (OpenAPI 3.2 §4.14.3.1) against the contract: each item against the media
// type's `itemSchema`, and (3.2) a request's whole sequence, as an array, against its `schema`. A violation
// names the item by its 0-based index: the pointer is `/<index>/...` (the sequence seen as an array) and the
// message starts `item <index>:`.
import type { Located } from '../contract/refs.js';
import type { MediaTypeObject, Operation, ResponseObject } from '../contract/operations.js';
import { responseForStatus, responsesByCode } from '../contract/responses.js';
import { Errors, SvcError } from '../util/errors.js';
import { findDeclaredMediaType } from '../http/negotiation.js';
import { boundedMemo } from '../util/memo.js';
import type { ItemChecks } from '../message/stages.js';
import { decodeAll, SequenceError } from '../codec/sequence-decode.js';
import { eventOf } from '../codec/sequence-encode.js';
import { sequenceKind } from '../codec/sequential-media.js';
import { compileMediaCheck, type BodyContext, type MediaCheck } from './bodies.js';
import type { Direction } from './compiler.js';
import { Violations } from '../message/violations.js';

type ItemCheck = (item: unknown, index: number, out: Violations) => void;

const NO_CHECK: ItemCheck = () => undefined;

/** The item checks of one operation, compiled per media type on first use. */
export function compileItemChecks(op: Operation, ctx: BodyContext, directions: { request: boolean; response: boolean }): ItemChecks {
  const requestContent = op.requestBody?.value.content;
  const requestUri = op.requestBody?.uri ?? '';
  const requestItems = boundedMemo((type: string) => itemCheck(op, type, 'request', { media: requestContent?.[type], uri: requestUri }, ctx));
  const requestWholes = boundedMemo((type: string) => wholeCheck(op, type, { media: requestContent?.[type], uri: requestUri }, ctx));
  const byCode = responsesByCode(op, (response: Located<ResponseObject>) => response);
  const responseItems = new Map<string, ItemCheck>();
  const compileResponseItems = (code: string, type: string): ItemCheck => {
    const response = responseForStatus(byCode, code);
    const declared = Object.keys(response?.value.content ?? {});
    const entry = findDeclaredMediaType(declared, type);
    if (response === undefined || entry === undefined) return NO_CHECK;
    return itemCheck(op, entry, 'response', { media: response.value.content?.[entry], uri: response.uri }, ctx);
  };
  const checks: ItemChecks = {};
  if (directions.request) {
    checks.request = (type, item, index, out) => requestItems(type)(item, index, out);
    checks.requestWhole = (type) => requestWholes(type)?.validate;
  }
  if (directions.response) {
    checks.response = (status, type) => {
      const key = `${status} ${type}`;
      let check = responseItems.get(key);
      if (check === undefined) responseItems.set(key, (check = compileResponseItems(status, type)));
      return check;
    };
  }
  return checks;
}

/**
 * Checks a sequential body that was read whole (a mocked or ignored operation, or a route that forwards the
 * bytes): its items are decoded and checked in order; the first item that cannot be read or does not
 * conform stops the check.
 */
export function checkWholeSequence(checks: ItemChecks, declared: string, contentType: string, raw: Buffer, maxItemSize: number, out: Violations): void {
  const kind = sequenceKind(contentType)!;
  let items: unknown[];
  try {
    items = decodeAll(kind, contentType, raw, maxItemSize);
  } catch (err) {
    if (!(err instanceof SequenceError)) throw err;
    throw sequenceFailure(err, maxItemSize);
  }
  const before = out.size;
  for (let i = 0; i < items.length && out.size === before; i++) checks.request?.(declared, items[i], i, out);
  const whole = checks.requestWhole?.(declared);
  if (whole !== undefined && out.size === before) whole(items, out);
}

/**
 * The answer to a body whose framing is broken or an item that does not parse (400 naming the item; the
 * detail Camel's `Invalid JSon payload.` for JSON), or to an item over the cap (413).
 */
export function sequenceFailure(err: SequenceError, maxItemSize: number): SvcError {
  const violation = { in: 'body' as const, name: '', pointer: `/${err.index}`, message: err.message };
  if (err.tooLarge) return new SvcError(Errors.ITEM_TOO_LARGE, [err.index, maxItemSize], [violation]);
  return new SvcError(/not valid JSON/.test(err.message) ? Errors.INVALID_JSON : Errors.REQUEST_NOT_CONFORMING, [], [violation]);
}

function itemCheck(op: Operation, declared: string, direction: Direction, at: { media: MediaTypeObject | undefined; uri: string }, ctx: BodyContext): ItemCheck {
  const schema = at.media?.itemSchema;
  if (schema === undefined) return NO_CHECK;
  const check = compileMediaCheck(op, `${declared} (itemSchema)`, direction, { value: { schema }, uri: at.uri }, ctx);
  const kind = sequenceKind(declared);
  return (item, index, out) => {
    const before = out.size;
    if (kind === 'sse') for (const v of checkEvent(check, item)?.items ?? []) out.add('schema', v.in, v.name, v.pointer, v.message);
    else check.validate(Buffer.isBuffer(item) ? item.toString('latin1') : item, out); // a part's bytes as a latin1 string
    // The item's own pointers and messages, placed in the sequence seen as an array.
    for (let i = before; i < out.size; i++) {
      const v = out.items[i]!;
      v.pointer = `/${index}${v.pointer}`;
      v.message = `item ${index}: ${v.message}`;
    }
  };
}

/** 3.2: `schema` describes the whole sequence as an array (only requests end, so only they are checked whole). */
function wholeCheck(op: Operation, declared: string, at: { media: MediaTypeObject | undefined; uri: string }, ctx: BodyContext): MediaCheck | undefined {
  const schema = at.media?.schema;
  if (schema === undefined || ctx.contract.version !== '3.2') return undefined;
  return compileMediaCheck(op, declared, 'request', { value: { schema }, uri: at.uri }, ctx);
}

/**
 * The violations of one event, or undefined. It is checked as a client reads it (`data` text); when that
 * fails and its data is JSON, as the JSON it carries, since contracts often describe `data` as that object
 * (`data: {$ref: ...}`). An item that is no event clients see (no data) is not checked.
 */
function checkEvent(check: MediaCheck, item: unknown): Violations | undefined {
  const event = eventOf(item);
  if (event.data === undefined) return undefined;
  const out = new Violations();
  check.validate(event, out);
  if (out.size === 0) return undefined;
  const parsed = parsedData(event as { data: string });
  if (parsed === undefined) return out;
  const retried = new Violations();
  check.validate(parsed, retried);
  return retried.size === 0 ? undefined : retried;
}

function parsedData(event: { data: string }): Record<string, unknown> | undefined {
  try {
    return { ...event, data: JSON.parse(event.data) as unknown };
  } catch {
    return undefined;
  }
}
