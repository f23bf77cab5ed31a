// Writing items in a sequential media type, one frame per item, so each goes out as soon as it is made.
import { randomBytes } from 'node:crypto';
import type { SequenceKind } from './sequential-media.js';

/** Frames the items of one response: `frame` per item, then `close` (multipart's closing boundary). */
export interface ItemEncoder {
  /** The Content-Type to send (multipart gets its boundary parameter). */
  readonly contentType: string;
  frame(item: unknown): string | Buffer;
  /** What ends the body after the last item ('' when nothing does). */
  readonly close: string;
}

export function createEncoder(kind: SequenceKind, mediaType: string): ItemEncoder {
  switch (kind) {
    case 'json-lines':
      return { contentType: mediaType, frame: (item) => `${jsonText(item)}\n`, close: '' };
    case 'json-seq':
      return { contentType: mediaType, frame: (item) => `\x1e${jsonText(item)}\n`, close: '' };
    case 'sse':
      return { contentType: mediaType, frame: eventFrame, close: '' };
    case 'multipart': {
      const boundary = `svc-${randomBytes(12).toString('hex')}`;
      return { contentType: `multipart/mixed; boundary=${boundary}`, frame: (item) => partFrame(item, boundary), close: `--${boundary}--\r\n` };
    }
  }
}

/** Every item is a JSON text; `undefined` (which JSON cannot say) is written as `null`. */
function jsonText(item: unknown): string {
  return JSON.stringify(item) ?? 'null';
}

const NEWLINES = /\r\n|\r|\n/;
/** `event` and `id` are one line each; an `id` with NUL would be ignored by clients (WHATWG). */
const LINE_BREAKS = /[\r\n]/g;

/** An event as clients parse it (OpenAPI 3.2 §4.14.4): `data` is text, `retry` an integer. */
export interface ServerSentEvent {
  data?: string;
  event?: string;
  id?: string;
  retry?: number;
}

/**
 * The event an item stands for. An item is an event object: `data` (a string as is, anything else as its
 * JSON text), `event`, `id`, `retry` (an integer, in ms); any other item is the data of an unnamed event.
 */
export function eventOf(item: unknown): ServerSentEvent {
  if (!isEventObject(item)) return { data: dataText(item) };
  const out: ServerSentEvent = {};
  if (item.data !== undefined) out.data = dataText(item.data);
  if (item.event !== undefined) out.event = String(item.event).replace(LINE_BREAKS, '');
  if (item.id !== undefined) out.id = String(item.id).replace(LINE_BREAKS, '').replace(/\0/g, '');
  if (Number.isInteger(item.retry) && (item.retry as number) >= 0) out.retry = item.retry as number;
  return out;
}

/** One Server-Sent Event; an event object's `comment` becomes `:` lines (e.g. a keep-alive). */
function eventFrame(item: unknown): string {
  const event = eventOf(item);
  let out = '';
  if (isEventObject(item) && item.comment !== undefined) for (const line of String(item.comment).split(NEWLINES)) out += `: ${line}\n`;
  if (event.event !== undefined) out += `event: ${event.event}\n`;
  if (event.id !== undefined) out += `id: ${event.id}\n`;
  if (event.retry !== undefined) out += `retry: ${event.retry}\n`;
  if (event.data !== undefined) for (const line of event.data.split(NEWLINES)) out += `data: ${line}\n`;
  return `${out}\n`;
}

function isEventObject(item: unknown): item is Record<string, unknown> {
  return item !== null && typeof item === 'object' && !Array.isArray(item) && !Buffer.isBuffer(item);
}

function dataText(data: unknown): string {
  return typeof data === 'string' ? data : Buffer.isBuffer(data) ? data.toString('utf8') : jsonText(data);
}

/** One part: bytes as application/octet-stream, a string as text/plain, anything else as JSON. */
function partFrame(item: unknown, boundary: string): Buffer {
  const [type, body] = Buffer.isBuffer(item) || item instanceof Uint8Array
    ? ['application/octet-stream', Buffer.from(item)]
    : typeof item === 'string'
      ? ['text/plain; charset=utf-8', Buffer.from(item)]
      : ['application/json', Buffer.from(jsonText(item))];
  // The CRLF after the body belongs to the next delimiter (`\r\n--boundary`), so each part ends with it.
  return Buffer.concat([Buffer.from(`--${boundary}\r\nContent-Type: ${type}\r\n\r\n`), body, Buffer.from('\r\n')]);
}
