// Answers made of items: a route's async iterable (or generator) is written item by item as it produces
// them, framed in the negotiated sequential media type, through the streamed-body path a backend's answer
// takes (lib/http/respond.ts writeStreamed): the client going away destroys the stream, which ends the
// iteration (`return()`). An array is framed the same way when the answer's media type is sequential.
// A backend's answer in a sequential media type streams through as its bytes, its items checked as they pass.
import { Readable, Transform } from 'node:stream';
import type { Operation } from '../contract/operations.js';
import { responsesByCode, responseForStatus } from '../contract/responses.js';
import { Errors, SvcError } from '../util/errors.js';
import { compileNegotiator } from '../http/negotiation.js';
import type { Logger } from '../util/log.js';
import type { ItemChecks } from '../message/stages.js';
import { HeaderNames, type Exchange } from '../message/exchange.js';
import { isItemSource, StreamedBody, type ItemSource } from '../message/streamed-body.js';
import { Violations } from '../message/violations.js';
import { createDecoder, SequenceError } from '../codec/sequence-decode.js';
import { createEncoder, type ItemEncoder } from '../codec/sequence-encode.js';
import { isSequential, sequenceKind } from '../codec/sequential-media.js';

type ItemCheck = (item: unknown, index: number) => void;

const RESPONSE_CODE = HeaderNames.RESPONSE_CODE.toLowerCase();
const DEFAULT_TYPE = 'application/jsonl';


interface Offers {
  /** Among all the media types declared for the status. */
  any: (accept: string | undefined) => string | undefined;
  /** Among its sequential ones. */
  sequential: (accept: string | undefined) => string | undefined;
}

export function compileFrame(op: Operation, logger: Logger, checks: ItemChecks | undefined, maxItemSize: number): (ex: Exchange) => void {
  const byCode = responsesByCode(op, (response): Offers => {
    const types = Object.keys(response.value.content ?? {}).filter((t) => !t.includes('*'));
    return { any: compileNegotiator(types), sequential: compileNegotiator(types.filter(isSequential)) };
  });
  const declaredType = op.produces.find(isSequential);
  const fail = (err: unknown, index: number): void => {
    const where = `${op.method} ${op.path} (direct:${op.id})`;
    if (err instanceof SvcError && err.status < 500) logger.warn(`${where}: the streamed answer stopped at item ${index}: ${err.message}`);
    else if (err instanceof SvcError) logger.error(`${where}: item ${index} of the streamed answer does not conform to the contract, so the stream was cut: ${(err.errors ?? []).map((v) => `${v.pointer} ${v.message}`).join('; ')}`);
    else logger.error(`${where}: the streamed answer failed at item ${index}, so the stream was cut: ${(err as Error)?.stack ?? String(err)}`);
  };

  return (ex) => {
    const body = ex.message.body;
    if (body instanceof StreamedBody) {
      const type = streamedSequenceType(ex);
      if (type !== undefined && checks?.response !== undefined) ex.message.body = checkedThrough(body, type, itemCheck(checks.response, statusOf(ex), type), maxItemSize, fail);
      return;
    }
    const items = isItemSource(body) ? body : Array.isArray(body) ? body : undefined;
    if (items === undefined) return;
    const headers = ex.message.headers;
    const status = statusOf(ex);
    const written = headers.writtenValue('content-type');
    const accept = ex.request?.headers.accept;
    let type = typeof written === 'string' && isSequential(written) ? written : undefined;
    if (type === undefined) {
      const offers = responseForStatus(byCode, status);
      if (Array.isArray(items)) {
        // An array is a JSON array unless the answer's negotiated media type is a sequential one (and the
        // route named no other).
        if (written !== undefined) return;
        type = offers?.any(accept);
        if (type === undefined || !isSequential(type)) return;
      } else {
        const requestType = ex.request?.headers['content-type'];
        type = offers?.sequential(accept) ?? declaredType ?? (requestType !== undefined && isSequential(requestType) ? requestType : DEFAULT_TYPE);
      }
    }
    const kind = sequenceKind(type)!;
    const encoder = createEncoder(kind, type);
    headers.set('content-type', encoder.contentType);
    // Events are live: no cache (or proxy) may keep them, unless the route says otherwise.
    if (kind === 'sse' && !headers.writtenNames().includes('cache-control')) headers.set('cache-control', 'no-cache');
    const check = checks?.response === undefined ? undefined : itemCheck(checks.response, status, type);
    const source = ex.request?.method === 'HEAD' ? headOnly(items) : items;
    ex.message.body = new StreamedBody(Readable.from(frames(source, encoder, check, fail), { objectMode: false }), undefined, notReadWhole);
  };
}

function statusOf(ex: Exchange): string {
  const code = ex.message.headers.get(RESPONSE_CODE);
  return code === undefined || code === null || code === '' ? '200' : String(code);
}

function itemCheck(checkResponse: NonNullable<ItemChecks['response']>, status: string, type: string): ItemCheck {
  const check = checkResponse(status, type);
  return (item, index) => {
    const out = new Violations();
    check(item, index, out);
    if (out.size > 0) throw new SvcError(Errors.INVALID_RESPONSE, [], out.items);
  };
}

/**
 * The sequential media type of a backend's answer still streaming, when its items can be read as they pass
 * (not content-encoded); undefined otherwise (such an answer is read whole when it must be checked).
 */
export function streamedSequenceType(ex: Exchange): string | undefined {
  if (!(ex.message.body instanceof StreamedBody)) return undefined;
  const headers = ex.message.headers;
  const type = headers.get('content-type');
  const encoding = headers.get('content-encoding');
  if (typeof type !== 'string' || !isSequential(type)) return undefined;
  return encoding === undefined || encoding === null || String(encoding).trim().toLowerCase() === 'identity' ? type : undefined;
}

/**
 * A backend's items passed on as bytes, as they arrive: the decoder reads the items each chunk completes and
 * each is checked before the chunk goes on; the first that does not conform, or cannot be read, cuts the
 * stream as for a route's items.
 */
function checkedThrough(body: StreamedBody, type: string, check: ItemCheck, maxItemSize: number, fail: (err: unknown, index: number) => void): StreamedBody {
  const decoder = createDecoder(sequenceKind(type)!, type, maxItemSize);
  let index = 0;
  /** Checks the items the bytes complete; the error that cuts the stream, if one does not pass. */
  const checkEach = (read: () => unknown[]): Error | undefined => {
    try {
      for (const item of read()) {
        check(item, index);
        index++;
      }
      return undefined;
    } catch (thrown) {
      // A backend item that cannot be read does not conform either.
      const err = thrown instanceof SequenceError ? new SvcError(Errors.INVALID_RESPONSE, [], [{ in: 'body', name: '', pointer: `/${thrown.index}`, message: thrown.message }]) : thrown;
      fail(err, index);
      return err as Error;
    }
  };
  const through = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const err = checkEach(() => decoder.push(chunk));
      if (err !== undefined) done(err);
      else done(null, chunk);
    },
    flush(done) {
      done(checkEach(() => decoder.end()));
    },
  });
  const backend = body.stream;
  backend.once('error', (err) => through.destroy(err));
  // The client gone (or the stream cut): the backend's answer is not read any further.
  through.once('close', () => {
    if (!backend.readableEnded) backend.destroy();
  });
  backend.pipe(through);
  return new StreamedBody(through, body.length, notReadWhole);
}

/**
 * The frames, each made when its item arrives. A failure (the route's, or an item that does not conform)
 * is logged and ends the stream with an error, which cuts the connection: a client never mistakes a cut
 * stream for a complete one.
 */
async function* frames(items: ItemSource, encoder: ItemEncoder, check: ItemCheck | undefined, fail: (err: unknown, index: number) => void): AsyncGenerator<string | Buffer> {
  let index = 0;
  try {
    for await (const item of items) {
      check?.(item, index);
      yield encoder.frame(item);
      index++;
    }
  } catch (err) {
    fail(err, index);
    throw err;
  }
  if (encoder.close !== '') yield encoder.close;
}

/** A HEAD answer has no body: the items are never produced (a generator is closed unstarted). */
function headOnly(items: ItemSource): ItemSource {
  const close = (items as { return?: () => unknown }).return;
  if (typeof close === 'function') void Promise.resolve(close.call(items)).catch(() => undefined);
  return [];
}

function notReadWhole(): Promise<unknown> {
  return Promise.reject(new Error('a stream of items is written as it is produced, never read whole'));
}
