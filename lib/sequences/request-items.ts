// A sequential request body as the route sees it: an async iterable of parsed items, each decoded (and
// checked against `itemSchema` when validating) only as the route asks for it. The body size limit
// applies to the whole sequence, the item cap to each item; a failure rejects the route's `next()` with the
// SvcError that answers the request (400 naming the item's index, 413, or 400 when the client left).
import type { IncomingMessage } from 'node:http';
import { Errors, SvcError, svcError } from '../util/errors.js';
import type { ItemChecks } from '../message/stages.js';
import { ItemsBody } from '../message/streamed-body.js';
import { sequenceFailure } from '../schema/items.js';
import { Violations } from '../message/violations.js';
import { SequenceError, type ItemDecoder } from '../codec/sequence-decode.js';

interface RequestItemsOptions {
  /** The declared media type the body was sent as (its item checks). */
  declared: string;
  maxBodySize: number;
  maxItemSize: number;
  checks: ItemChecks | undefined;
}

const DONE: IteratorResult<unknown> = Object.freeze({ value: undefined, done: true });

export class RequestItems extends ItemsBody implements AsyncIterator<unknown> {
  private source: AsyncIterator<Buffer> | undefined;
  private decoder: ItemDecoder | undefined;
  private readonly queue: unknown[] = [];
  private size = 0;
  private index = 0;
  private ended = false;
  private wholeChecked = false;
  private violations: Violations | undefined;
  private failure: SvcError | undefined;
  /** The check of the whole sequence at its end (3.2 `schema`), and so every item kept for it. */
  private readonly whole: ((items: unknown[], out: Violations) => void) | undefined;
  private readonly kept: unknown[] | undefined;

  constructor(
    private readonly req: IncomingMessage,
    /** Made on the first read, so a Content-Type it refuses (multipart without boundary) is a 400 like the rest. */
    private readonly makeDecoder: () => ItemDecoder,
    private readonly options: RequestItemsOptions,
  ) {
    super();
    this.whole = options.checks?.requestWhole?.(options.declared);
    this.kept = this.whole === undefined ? undefined : [];
  }

  /** True once every item has been handed out (or the body failed). */
  get finished(): boolean {
    return this.failure !== undefined || (this.ended && this.queue.length === 0);
  }

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    return this;
  }

  async next(): Promise<IteratorResult<unknown>> {
    if (this.failure !== undefined) throw this.failure;
    try {
      while (this.queue.length === 0) {
        if (this.ended) {
          this.checkWhole();
          return DONE;
        }
        await this.fill();
      }
      const item = this.queue.shift();
      this.check(item, this.index);
      this.index++;
      return { value: item, done: false };
    } catch (err) {
      this.failure = this.asRequestError(err);
      throw this.failure;
    }
  }

  /** A `break` out of the loop leaves the rest unread (the runtime reads it before a whole answer). */
  return(): Promise<IteratorResult<unknown>> {
    return Promise.resolve(DONE);
  }

  async collect(): Promise<unknown[]> {
    const items: unknown[] = [];
    for (let r = await this.next(); r.done !== true; r = await this.next()) items.push(r.value);
    return items;
  }

  private async fill(): Promise<void> {
    const decoder = (this.decoder ??= this.makeDecoder());
    // Not destroyed when the route stops early: the request must stay readable for the answer.
    this.source ??= this.req.iterator({ destroyOnReturn: false });
    let read: IteratorResult<Buffer>;
    try {
      read = await this.source.next();
    } catch {
      throw svcError(Errors.BODY_ABORTED);
    }
    if (read.done === true) {
      this.ended = true;
      this.queue.push(...decoder.end());
      return;
    }
    this.size += read.value.length;
    if (this.size > this.options.maxBodySize) throw svcError(Errors.BODY_TOO_LARGE, this.options.maxBodySize);
    this.queue.push(...decoder.push(read.value));
  }

  private check(item: unknown, index: number): void {
    const { checks, declared } = this.options;
    this.kept?.push(item);
    if (checks?.request === undefined) return;
    // One collector for the whole body: a conforming item adds nothing to it, the first that does not ends the body.
    const out = (this.violations ??= new Violations());
    checks.request(declared, item, index, out);
    if (out.size > 0) throw out.toError();
  }

  private checkWhole(): void {
    const { kept, whole } = this;
    if (whole === undefined || this.wholeChecked) return;
    this.wholeChecked = true;
    const out = new Violations();
    whole(kept!, out);
    if (out.size > 0) throw out.toError();
  }

  private asRequestError(err: unknown): SvcError {
    if (err instanceof SvcError) return err;
    if (!(err instanceof SequenceError)) throw err;
    return sequenceFailure(err, this.options.maxItemSize);
  }
}
