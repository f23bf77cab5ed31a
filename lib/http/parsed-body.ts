// Embedding behind a body parser (Express's express.json(), urlencoded(), raw(), text(), or any middleware
// that reads the request first): the stream is already at its end, and reading it would wait forever. What
// the parser left stands in for the bytes when it says the same thing; otherwise the request is refused.
import type { IncomingMessage } from 'node:http';
import { essence, isJsonMediaType } from './negotiation.js';

/** What an earlier parser left on the request (Express's `req.body`; a `verify` hook's `req.rawBody`). */
interface ParsedRequest extends IncomingMessage {
  body?: unknown;
  rawBody?: unknown;
  /** body-parser 1.x (Express 4) marks a request whose body it read. */
  _body?: unknown;
}

/** The bytes that stand for the body an earlier parser read, or why none can (for the log line). */
export type EarlierBody = { bytes: Buffer } | { unusable: string };

/**
 * The body an earlier middleware read, for a request that announces one: undefined when nothing read the
 * stream (read it as usual). Bytes kept by a `verify` hook are the body itself; a Buffer (raw parser) too; a
 * string (text parser) and a parsed JSON value are written back as UTF-8, which says the same thing; a parsed
 * form only when it is flat (see formBytes).
 */
export function bodyReadEarlier(req: IncomingMessage): EarlierBody | undefined {
  const parsed = req as ParsedRequest;
  if (!req.readableEnded && parsed._body !== true) return undefined;
  const encoding = req.headers['content-encoding'];
  // Parsers inflate gzip and deflate: what they keep is no longer what Content-Encoding describes.
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') return { unusable: `it was sent with Content-Encoding: ${encoding}, which the parser undid` };
  const raw = parsed.rawBody;
  if (Buffer.isBuffer(raw)) return { bytes: raw };
  if (raw instanceof Uint8Array) return { bytes: Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) };
  const contentType = req.headers['content-type'] ?? '';
  const body = parsed.body;
  if (Buffer.isBuffer(body)) return { bytes: body };
  // A parser decoded text in the declared charset; written back in UTF-8 the bytes would contradict it.
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase();
  const utf8 = charset === undefined || charset === 'utf-8' || charset === 'utf8' || charset === 'us-ascii';
  if (typeof raw === 'string' && utf8) return { bytes: Buffer.from(raw, 'utf8') };
  if (typeof body === 'string' && utf8) return { bytes: Buffer.from(body, 'utf8') };
  if (!utf8) return { unusable: `the parser decoded it from charset ${charset}` };
  const type = essence(contentType);
  if (body !== null && typeof body === 'object') {
    if (isJsonMediaType(type)) return { bytes: Buffer.from(JSON.stringify(body), 'utf8') };
    if (type === 'application/x-www-form-urlencoded') {
      const bytes = formBytes(body as Record<string, unknown>);
      return bytes === undefined ? { unusable: 'the parser nested its form fields (urlencoded with extended: true), and the names they were sent under cannot be told from that' } : { bytes };
    }
  }
  return { unusable: body === undefined ? 'the parser left no body' : `the parser left a ${typeof body} for a ${type || 'request without Content-Type'} body` };
}

/**
 * A parsed form written back as `name=value` pairs. Only a flat one: every value a string, or a list of
 * strings (a name sent more than once; with extended: true also `a[]=1`, written back as `a=1`, the name the
 * application reads). extended: false keeps every name as sent. A nested value (extended: true turns
 * `a[b]=1` into `{a: {b: '1'}}`) no longer says whether it came as `a[b]=1` or `a[b][]=1`, how deep, or in
 * which order: the facade could check a form other than the one the application reads, so it refuses.
 */
function formBytes(form: Record<string, unknown>): Buffer | undefined {
  const pairs: string[] = [];
  for (const name of Object.keys(form)) {
    const value = form[name];
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v !== 'string') return undefined;
      pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(v)}`);
    }
  }
  return Buffer.from(pairs.join('&'), 'utf8');
}
