// Reading sequential bodies item by item as their bytes arrive: each decoder takes chunks and returns the
// items they complete. Bounded: an item may not grow past `maxItemSize` bytes. Malformed framing or an
// item that does not parse is a SequenceError naming the item's 0-based index.
import { StringDecoder } from 'node:string_decoder';
import { dropForbiddenKeys } from '../util/objects.js';
import { isJsonMediaType } from '../http/negotiation.js';
import { boundaryOf, parsePartHeaders } from './multipart.js';
import type { SequenceKind } from './sequential-media.js';

export class SequenceError extends Error {
  constructor(
    /** The 0-based index of the item that could not be read. */
    readonly index: number,
    message: string,
    /** True for an item over the size cap (the others are malformed). */
    readonly tooLarge = false,
  ) {
    super(message);
  }
}

export interface ItemDecoder {
  /** The items these bytes complete, in order (often none). */
  push(chunk: Buffer): unknown[];
  /** The body ended: the items still pending. */
  end(): unknown[];
}

const EMPTY: Buffer = Buffer.alloc(0);
const NONE: unknown[] = [];

export function createDecoder(kind: SequenceKind, contentType: string, maxItemSize: number): ItemDecoder {
  switch (kind) {
    case 'json-lines':
      return new JsonLinesDecoder(maxItemSize);
    case 'json-seq':
      return new JsonSeqDecoder(maxItemSize);
    case 'sse':
      return new EventStreamDecoder(maxItemSize);
    case 'multipart':
      return new MultipartMixedDecoder(contentType, maxItemSize);
  }
}

/** All the items of a body that is already whole. */
export function decodeAll(kind: SequenceKind, contentType: string, raw: Buffer, maxItemSize: number): unknown[] {
  const decoder = createDecoder(kind, contentType, maxItemSize);
  return [...decoder.push(raw), ...decoder.end()];
}

function tooLarge(index: number, max: number): SequenceError {
  return new SequenceError(index, `item ${index} exceeds the limit of ${max} bytes`, true);
}

/** What a text holding a prototype-reaching key contains (an escape may spell one): the rare case that walks the value. */
const FORBIDDEN_KEY_HINT = /__proto__|constructor|prototype|\\u/;

function parseJsonItem(bytes: Buffer, index: number): unknown {
  const text = bytes.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new SequenceError(index, `item ${index} is not valid JSON: ${(err as Error).message}`);
  }
  if (FORBIDDEN_KEY_HINT.test(text)) dropForbiddenKeys(value, bytes);
  return value;
}

function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d) return false;
  return true;
}

/** JSON Lines and NDJSON: one JSON text per line (LF or CRLF); blank lines are skipped. */
class JsonLinesDecoder implements ItemDecoder {
  private pending: Buffer = EMPTY;
  private index = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): unknown[] {
    const scanFrom = this.pending.length;
    const buf = scanFrom === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let out = NONE;
    let start = 0;
    for (let nl = buf.indexOf(0x0a, scanFrom); nl !== -1; nl = buf.indexOf(0x0a, start)) {
      const item = this.line(buf.subarray(start, nl));
      if (item !== SKIP) (out === NONE ? (out = []) : out).push(item);
      start = nl + 1;
    }
    this.pending = buf.subarray(start);
    if (this.pending.length > this.max) throw tooLarge(this.index, this.max);
    return out;
  }

  end(): unknown[] {
    const item = this.line(this.pending);
    this.pending = EMPTY;
    return item === SKIP ? NONE : [item];
  }

  private line(bytes: Buffer): unknown {
    if (bytes.length > this.max) throw tooLarge(this.index, this.max);
    if (isBlank(bytes)) return SKIP;
    return parseJsonItem(bytes, this.index++);
  }
}

const SKIP: unique symbol = Symbol('blank');
const RS = 0x1e;

/**
 * JSON text sequences (RFC 7464): each text follows a Record Separator and ends with LF. A text is complete
 * at the next RS or, when the bytes so far end with LF and parse, at once (a live stream's last item).
 */
class JsonSeqDecoder implements ItemDecoder {
  private pending: Buffer = EMPTY;
  private index = 0;
  private started = false;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): unknown[] {
    const scanFrom = this.pending.length;
    const buf = scanFrom === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: unknown[] = [];
    let start = 0;
    for (let rs = buf.indexOf(RS, scanFrom); rs !== -1; rs = buf.indexOf(RS, start)) {
      this.segment(buf.subarray(start, rs), out);
      this.started = true;
      start = rs + 1;
    }
    this.pending = buf.subarray(start);
    if (this.started && this.pending.length > 0 && this.pending[this.pending.length - 1] === 0x0a && !isBlank(this.pending)) {
      try {
        out.push(parseJsonItem(this.pending, this.index));
        this.index++;
        this.pending = EMPTY;
      } catch {
        // Not complete yet (a pretty-printed text continues on the next line).
      }
    }
    if (this.pending.length > this.max) throw tooLarge(this.index, this.max);
    return out;
  }

  end(): unknown[] {
    const out: unknown[] = [];
    this.segment(this.pending, out);
    this.pending = EMPTY;
    return out;
  }

  private segment(bytes: Buffer, out: unknown[]): void {
    if (isBlank(bytes)) return; // RS RS is no empty item (RFC 7464 §2.1)
    if (!this.started) throw new SequenceError(this.index, `item ${this.index} does not start with a Record Separator (0x1E)`);
    if (bytes.length > this.max) throw tooLarge(this.index, this.max);
    out.push(parseJsonItem(bytes, this.index++));
  }
}

const LINE_END = /\r\n|\r|\n/g;

/**
 * Server-Sent Events, parsed as the WHATWG HTML standard says: lines end in CRLF, LF or CR; `:` starts a
 * comment; a blank line ends an event; an event without `data` is none. Each event becomes an object with
 * `data` (its data lines joined with LF, always a string), and `event`, `id`, `retry` (an integer) when it
 * sets them; other fields are ignored. A last event the body ends without a blank line still counts (as
 * in the OpenAPI 3.2 example).
 */
class EventStreamDecoder implements ItemDecoder {
  private readonly text = new StringDecoder('utf8');
  private pending = '';
  private first = true;
  private index = 0;
  private data: string[] | undefined;
  private fields: { event?: string; id?: string; retry?: number } = {};
  /** Characters of the event being read. */
  private size = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): unknown[] {
    let text = this.pending + this.text.write(chunk);
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    const out: unknown[] = [];
    let start = 0;
    LINE_END.lastIndex = 0;
    for (let m = LINE_END.exec(text); m !== null; m = LINE_END.exec(text)) {
      // A CR that ends the bytes so far may be the first half of a CRLF.
      if (m[0] === '\r' && m.index === text.length - 1) break;
      this.line(text.slice(start, m.index), out);
      start = m.index + m[0].length;
    }
    this.pending = text.slice(start);
    if (this.size + this.pending.length > this.max) throw tooLarge(this.index, this.max);
    return out;
  }

  end(): unknown[] {
    const out: unknown[] = [];
    const rest = this.pending + this.text.end();
    this.pending = '';
    if (rest !== '') for (const line of rest.split(/\r\n|\r|\n/)) this.line(line, out);
    this.dispatch(out);
    return out;
  }

  private line(line: string, out: unknown[]): void {
    if (line === '') return this.dispatch(out);
    this.size += line.length + 1;
    if (this.size > this.max) throw tooLarge(this.index, this.max);
    if (line.charCodeAt(0) === 0x3a) return; // a comment
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (name) {
      case 'data':
        (this.data ??= []).push(value);
        break;
      case 'event':
        this.fields.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.fields.id = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.fields.retry = Number(value);
        break;
    }
  }

  private dispatch(out: unknown[]): void {
    const { data, fields } = this;
    this.data = undefined;
    this.fields = {};
    this.size = 0;
    if (data === undefined) return;
    out.push({ data: data.join('\n'), ...fields });
    this.index++;
  }
}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const MAX_PART_HEADERS = 16 * 1024;

/**
 * `multipart/mixed` (RFC 2046): each part is an item, its body as its Content-Type says: parsed JSON for a
 * JSON type, text for `text/*` or none (the default is text/plain), bytes otherwise.
 */
class MultipartMixedDecoder implements ItemDecoder {
  private pending: Buffer = EMPTY;
  private index = 0;
  /** Each step either consumes bytes (and may change state) or waits for more, changing nothing. */
  private state: 'preamble' | 'delimiter' | 'headers' | 'body' | 'done' = 'preamble';
  private partType: string | undefined;
  private readonly first: Buffer;
  private readonly delimiter: Buffer;

  constructor(contentType: string, private readonly max: number) {
    let boundary: string | undefined;
    try {
      boundary = boundaryOf(contentType);
    } catch (err) {
      throw new SequenceError(0, `the multipart/mixed Content-Type is malformed: ${(err as Error).message}`);
    }
    if (boundary === undefined) throw new SequenceError(0, 'the multipart/mixed Content-Type has no boundary');
    this.first = Buffer.from(`--${boundary}`);
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  push(chunk: Buffer): unknown[] {
    let buf = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const out: unknown[] = [];
    for (;;) {
      const rest = this.step(buf, out);
      if (rest === undefined) break;
      buf = rest;
    }
    this.pending = buf;
    if (this.state === 'done') this.pending = EMPTY;
    else if (buf.length > this.max + this.delimiter.length + MAX_PART_HEADERS) throw tooLarge(this.index, this.max);
    return out;
  }

  end(): unknown[] {
    const out = this.push(EMPTY);
    if (this.state !== 'done') throw new SequenceError(this.index, `item ${this.index}: the multipart body ends without its closing boundary`);
    return out;
  }

  /** Reads one framing element; returns the bytes after it, or undefined when more bytes are needed. */
  private step(buf: Buffer, out: unknown[]): Buffer | undefined {
    switch (this.state) {
      case 'done':
        return undefined;
      case 'preamble': {
        const at = buf.subarray(0, this.first.length).equals(this.first) ? 0 : buf.indexOf(this.delimiter);
        if (at === -1) return undefined;
        this.state = 'delimiter';
        return buf.subarray(at + (at === 0 ? this.first.length : this.delimiter.length));
      }
      case 'delimiter':
        return this.afterDelimiter(buf);
      case 'headers': {
        if (buf.length >= 2 && buf[0] === 0x0d && buf[1] === 0x0a) {
          this.partType = undefined;
          this.state = 'body';
          return buf.subarray(2);
        }
        const end = buf.indexOf(HEADER_END);
        if (end === -1) {
          if (buf.length > MAX_PART_HEADERS) throw new SequenceError(this.index, `item ${this.index}: the part headers are too long`);
          return undefined;
        }
        const headers = parsePartHeaders(buf.toString('utf8', 0, end));
        if (headers === undefined) throw new SequenceError(this.index, `item ${this.index}: malformed part header`);
        this.partType = headers.get('content-type');
        this.state = 'body';
        return buf.subarray(end + 4);
      }
      case 'body': {
        const end = buf.indexOf(this.delimiter);
        if (end === -1) return undefined;
        if (end > this.max) throw tooLarge(this.index, this.max);
        out.push(partValue(buf.subarray(0, end), this.partType, this.index++));
        this.state = 'delimiter';
        return buf.subarray(end + this.delimiter.length);
      }
    }
  }

  /** After a boundary: `--` closes the body; otherwise optional padding and CRLF start a part's headers. */
  private afterDelimiter(buf: Buffer): Buffer | undefined {
    if (buf.length < 2) return undefined;
    if (buf[0] === 0x2d && buf[1] === 0x2d) {
      this.state = 'done';
      return undefined;
    }
    let pos = 0;
    while (buf[pos] === 0x20 || buf[pos] === 0x09) pos++;
    if (pos + 2 > buf.length) return undefined;
    if (buf.indexOf(CRLF, pos) !== pos) throw new SequenceError(this.index, `item ${this.index}: malformed multipart boundary line`);
    this.state = 'headers';
    return buf.subarray(pos + 2);
  }
}

function partValue(body: Buffer, type: string | undefined, index: number): unknown {
  if (type !== undefined && isJsonMediaType(type)) return parseJsonItem(body, index);
  if (type === undefined || /^text\//i.test(type)) return body.toString('utf8');
  return Buffer.from(body);
}
