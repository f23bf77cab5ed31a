// A copy of a streamed request body kept while it is sent, so that a retry can send it again: up to
// svc.backend.maxRetryBodySize, beyond which the copy is dropped (memory stays bounded) and the request is
// not retried. Only made for an endpoint with retries; the chunks are the ones sent, not copied again.

export class KeptBody {
  private chunks: Buffer[] | undefined = [];
  private size = 0;
  private ended = false;
  /** Waits for the body's end (whenWhole). */
  private waiting: ((body: Buffer | undefined) => void) | undefined;

  constructor(readonly limit: number) {}

  /** A chunk sent; past the limit the copy is dropped. */
  add(chunk: Buffer): void {
    if (this.chunks === undefined) return;
    this.size += chunk.length;
    if (this.size <= this.limit) return void this.chunks.push(chunk);
    this.chunks = undefined;
    this.settle();
  }

  /** The client's body ended. */
  end(): void {
    this.ended = true;
    this.settle();
  }

  /** The copy was dropped: the body is larger than the limit. */
  get dropped(): boolean {
    return this.chunks === undefined;
  }

  get complete(): boolean {
    return this.ended && this.chunks !== undefined;
  }

  /** Calls back with the whole body once it has arrived, or with undefined as soon as it turns out larger than the limit. */
  whenWhole(done: (body: Buffer | undefined) => void): void {
    this.waiting = done;
    this.settle();
  }

  private settle(): void {
    const done = this.waiting;
    if (done === undefined || (!this.ended && this.chunks !== undefined)) return;
    this.waiting = undefined;
    done(this.chunks === undefined ? undefined : Buffer.concat(this.chunks, this.size));
  }
}
