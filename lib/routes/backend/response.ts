// A backend's answer as undici hands it over (status, raw header list, body chunks), shaped as the rest of the
// facade reads an answer: node's header object and a body. The body is held as it arrives (a small answer
// comes whole in the packets of its head) and becomes a Readable only when something asks for a stream: the
// answer that arrived whole is written to the client in one piece, without a stream made, fed and ended per
// request. Either way undici's parser pauses while more than HELD bytes wait unread, and a stream destroyed
// before its end aborts the backend call.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { takeArrived, type BodySource } from '../../message/streamed-body.js';

/** What is held before the parser is paused: a Readable's own default high-water mark. */
const HELD = 16 * 1024;

export class BackendAnswer implements BodySource {
  /** Every byte of the body arrived (node's IncomingMessage.complete). */
  complete = false;
  /** undici's parser does not tell the version; only HTTP/1.1 is spoken to a backend. */
  readonly httpVersion = '1.1';
  /** Chunks arrived and not yet handed to a stream (or taken whole). */
  private chunks: Buffer[] | undefined;
  private held = 0;
  /** Resumes undici's parser, paused while `held` was over HELD. */
  private resumeParser: (() => void) | undefined;
  private failure: Error | undefined;
  private readable: BackendStream | undefined;

  constructor(
    readonly statusCode: number,
    readonly headers: IncomingHttpHeaders,
    /** Stops the call (the consumer went away or gave up on the body): the connection is closed. */
    private readonly abortCall: (err: Error) => void,
  ) {}

  /** A chunk from undici; false asks it to pause its parser until `resume` is called. */
  data(chunk: Buffer, resume: () => void): boolean {
    const readable = this.readable;
    if (readable !== undefined) {
      if (readable.push(chunk)) return true;
      readable.resumeParser = resume;
      return false;
    }
    if (this.chunks === undefined) this.chunks = [chunk];
    else this.chunks.push(chunk);
    this.held += chunk.length;
    if (this.held <= HELD) return true;
    this.resumeParser = resume;
    return false;
  }

  /** Nobody will read this body (a redirect followed after all): what is held goes, and a paused parser reads on. */
  drop(): void {
    this.chunks = undefined;
    this.held = 0;
    const resume = this.resumeParser;
    this.resumeParser = undefined;
    resume?.();
  }

  end(): void {
    this.complete = true;
    const readable = this.readable;
    if (readable === undefined) return;
    readable.complete = true;
    readable.push(null);
  }

  fail(err: Error): void {
    this.failure = err;
    this.readable?.destroy(err);
  }

  /** The whole body when all of it has arrived and nothing streamed it (null when empty); undefined otherwise. */
  arrived(): Buffer | null | undefined {
    if (this.readable !== undefined) return takeArrived(this.readable);
    if (!this.complete || this.failure !== undefined) return undefined;
    const chunks = this.chunks;
    this.chunks = undefined;
    this.held = 0;
    if (chunks === undefined) return null;
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }

  /** The body as a Readable, made on first use with what is held so far. */
  get stream(): Readable {
    if (this.readable !== undefined) return this.readable;
    const readable = (this.readable = new BackendStream(this.abortCall));
    const chunks = this.chunks;
    this.chunks = undefined;
    this.held = 0;
    if (chunks !== undefined) for (const chunk of chunks) readable.push(chunk);
    readable.resumeParser = this.resumeParser;
    this.resumeParser = undefined;
    if (this.failure !== undefined) readable.destroy(this.failure);
    else if (this.complete) {
      readable.complete = true;
      readable.push(null);
    }
    return readable;
  }
}

/** The body as a stream, fed with backpressure (the parser pauses while the client does not read). */
class BackendStream extends Readable {
  /** Every byte arrived (node's IncomingMessage.complete): takeArrived may take it whole. */
  complete = false;
  /** Resumes undici's parser after data() asked it to pause. */
  resumeParser: (() => void) | undefined;

  constructor(private readonly abortCall: (err: Error) => void) {
    super();
  }

  override _read(): void {
    const resume = this.resumeParser;
    if (resume === undefined) return;
    this.resumeParser = undefined;
    resume();
  }

  override _destroy(err: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.complete) this.abortCall(err ?? new Error('the answer was not read to its end'));
    callback(err);
  }
}

/** Fields node keeps once, dropping later copies (its IncomingMessage rules), so steps see what they saw before. */
const SINGLE: ReadonlySet<string> = new Set(['age', 'authorization', 'content-length', 'content-type', 'etag', 'expires', 'from', 'host', 'if-modified-since', 'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'proxy-authorization', 'referer', 'retry-after', 'server', 'user-agent']);

/** undici's raw [name, value, ...] list as node's header object: lower-case names, repeats joined (Set-Cookie an array). */
export function responseHeaders(raw: readonly Buffer[]): IncomingHttpHeaders {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toString('latin1').toLowerCase();
    const value = raw[i + 1]!.toString('latin1');
    const seen = out[name];
    if (seen === undefined) out[name] = name === 'set-cookie' ? [value] : value;
    else if (name === 'set-cookie') (seen as string[]).push(value);
    else if (!SINGLE.has(name)) out[name] = `${seen as string}${name === 'cookie' ? '; ' : ', '}${value}`;
  }
  return out;
}
