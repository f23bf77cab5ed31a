// A backend's answer as undici hands it over (status, raw header list, body chunks), shaped as the rest of the
// facade reads an answer: node's header object and a Readable body, fed with backpressure (the parser pauses
// while the client does not read) and aborting the backend call when it is destroyed before its end.
import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';

export class BackendResponse extends Readable {
  /** Every byte of the body arrived (node's IncomingMessage.complete): takeArrived may take it whole. */
  complete = false;
  /** undici's parser does not tell the version; only HTTP/1.1 is spoken to a backend. */
  readonly httpVersion = '1.1';
  /** Resumes undici's parser after onData asked it to pause. */
  resumeParser: (() => void) | undefined;

  constructor(
    readonly statusCode: number,
    readonly headers: IncomingHttpHeaders,
    /** Stops the call (the consumer went away or gave up on the body): the connection is closed. */
    private readonly abortCall: (err: Error) => void,
  ) {
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
