// The sequence stage of operations that declare a sequential media type (request or response); decided per
// operation at startup, so every other operation runs exactly as before.
import type { ServerResponse } from 'node:http';
import { findDeclaredMediaType } from '../http/negotiation.js';
import { boundedMemo } from '../util/memo.js';
import type { Feature, SequenceStage } from '../message/stages.js';
import type { Exchange } from '../message/exchange.js';
import { createDecoder } from '../codec/sequence-decode.js';
import { isSequential, sequenceKind } from '../codec/sequential-media.js';
import { RequestItems } from './request-items.js';
import { compileFrame, streamedSequenceType } from './response.js';
import { isItemSource } from '../message/streamed-body.js';

/** The request items of each exchange that has some, for `settle`. */
const requestItems = new WeakMap<Exchange, RequestItems>();

export const sequenceFeature: Feature = (op, disposition, ctx) => {
  if (!op.consumes.some(isSequential) && !op.produces.some(isSequential)) return undefined;
  const { maxBodySize, maxItemSize } = ctx.serverOptions;
  const declared = compileSequentialMatch(op.consumes);
  return {
    sequence: (checks): SequenceStage => ({
      // Only routes read items; a mocked or ignored operation echoes or ignores the bytes, read whole.
      accepts: disposition === 'route' ? (req) => declared(req.headers['content-type']) !== undefined : undefined,
      open(req, ex) {
        const contentType = req.headers['content-type']!;
        const items = new RequestItems(req, () => createDecoder(sequenceKind(contentType)!, contentType, maxItemSize), {
          declared: declared(contentType)!,
          maxBodySize,
          maxItemSize,
          checks,
        });
        requestItems.set(ex, items);
        return items;
      },
      settle,
      frame: compileFrame(op, ctx.logger, checks, maxItemSize),
      checksThrough: (ex) => checks?.response !== undefined && streamedSequenceType(ex) !== undefined,
    }),
  };
};

/**
 * Before the answer: the items of the request the route left unread are read (and checked) first, so an
 * invalid or malformed one still gets its 400 instead of the route's answer. A streamed answer starts at
 * once instead (it may be reading them itself), and its connection closes after it, unless the answer is
 * the request's items themselves (written back as they are read, so all of them are).
 */
function settle(ex: Exchange, res: ServerResponse): void | Promise<void> {
  const items = requestItems.get(ex);
  if (items === undefined || items.finished) return;
  const body = ex.message.body;
  if (body === items) return;
  if (isItemSource(body)) {
    res.setHeader('connection', 'close');
    return;
  }
  return items.collect().then(() => undefined);
}

/** Content-Type → the declared sequential media type it matches, or undefined. */
function compileSequentialMatch(consumes: readonly string[]): (contentType: string | undefined) => string | undefined {
  const match = boundedMemo((contentType) => (isSequential(contentType) ? findDeclaredMediaType(consumes, contentType) : undefined));
  return (contentType) => (contentType === undefined ? undefined : match(contentType));
}
