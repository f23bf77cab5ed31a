// A body still arriving: a backend's response streamed through to the client without being held whole.
// Whatever needs the body whole (a later step, response validation) reads it through `wholeBody`, as it
// does a request body arriving item by item.
import { Readable } from 'node:stream';
import type { Exchange } from './exchange.js';

/** A body that is a stream only once asked for one (a backend's answer, lib/routes/backend/response.ts). */
export interface BodySource {
  readonly stream: Readable;
  /** The whole body if it has all arrived and nothing streamed it (null when empty); undefined otherwise. */
  arrived(): Buffer | null | undefined;
}

export class StreamedBody {
  constructor(
    private readonly source: Readable | BodySource,
    /** The announced length in bytes (Content-Length), if any. */
    readonly length: number | undefined,
    /** Reads the rest (bounded, decoded) and returns the body value; may adjust the exchange's headers. */
    private readonly readAll: (ex: Exchange) => Promise<unknown>,
  ) {}

  get stream(): Readable {
    const source = this.source;
    return source instanceof Readable ? source : source.stream;
  }

  read(ex: Exchange): Promise<unknown> {
    return this.readAll(ex);
  }

  /**
   * Nobody will read this body (a fallback answers instead): one that has arrived whole is dropped, one still
   * arriving is destroyed (a backend's answer: its call is aborted and its connection closed).
   */
  discard(): void {
    if (this.arrived() === undefined) this.stream.destroy();
  }

  /** The whole body if it has all arrived (a small answer comes in the packets of its head): see takeArrived. */
  arrived(): Buffer | null | undefined {
    const source = this.source;
    return source instanceof Readable ? takeArrived(source) : source.arrived();
  }
}

/**
 * An HTTP message's body taken at once when all of it has arrived and nothing has read from it (null when
 * empty); undefined while more is to come. Node has then parsed it into the stream's buffer already.
 */
export function takeArrived(stream: Readable & { complete?: boolean }): Buffer | null | undefined {
  if (stream.complete !== true || stream.readableFlowing !== null) return undefined;
  return stream.read() as Buffer | null;
}

/**
 * A request body still arriving item by item (a sequential media type, lib/sequences/): code iterates it
 * (`for await`); steps that need the body whole get the array of its items.
 */
export abstract class ItemsBody implements AsyncIterable<unknown> {
  abstract [Symbol.asyncIterator](): AsyncIterator<unknown>;
  /** Reads the items not read yet into an array. */
  abstract collect(): Promise<unknown[]>;
}

/** Replaces a streamed body with the whole body; nothing to do (and no promise) for any other body. */
export function wholeBody(ex: Exchange): void | Promise<void> {
  const body = ex.message.body;
  if (body instanceof ItemsBody) {
    return body.collect().then((items) => {
      ex.message.body = items;
    });
  }
  if (!(body instanceof StreamedBody)) return;
  return body.read(ex).then((value) => {
    ex.message.body = value;
  });
}

/** What a route may answer item by item. */
export type ItemSource = AsyncIterable<unknown> | Iterable<unknown>;

/** An async iterable or a generator (not an array, a string or a byte stream): an answer of items. */
export function isItemSource(body: unknown): body is ItemSource {
  if (body === null || typeof body !== 'object' || body instanceof Readable || body instanceof StreamedBody) return false;
  return Symbol.asyncIterator in body || (Symbol.iterator in body && typeof (body as { next?: unknown }).next === 'function');
}
