// A small, bounded `multipart/form-data` parser (RFC 7578) over a body that is already in memory (its size
// is limited by `maxBodySize`). Bounded in parts and header bytes; every search is a linear Buffer.indexOf.
import { percentDecoded } from '../http/percent.js';

export interface Part {
  name: string;
  /** Present for file parts. */
  filename: string | undefined;
  contentType: string | undefined;
  data: Buffer;
}

export interface MultipartLimits {
  maxParts: number;
  maxHeaderBytes: number;
}

export const DEFAULT_LIMITS: MultipartLimits = { maxParts: 1000, maxHeaderBytes: 16 * 1024 };

export class MultipartError extends Error {}

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * The `boundary` parameter of a multipart Content-Type (RFC 2046: 1 to 70 characters). Given twice it is a
 * MultipartError: parsers differ on which one counts (busboy the first), so the facade would check other
 * parts than the backend reads (RFC 9110 §5.6.6: a parameter name appears once).
 */
export function boundaryOf(contentType: string): string | undefined {
  const found = [...contentType.matchAll(/;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;]{1,70}))/gi)];
  if (found.length > 1) throw new MultipartError('the Content-Type has two boundary parameters');
  const m = found[0];
  return m ? (m[1] ?? m[2]) : undefined;
}

export function parseMultipart(body: Buffer, boundary: string, limits: MultipartLimits = DEFAULT_LIMITS): Part[] {
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  // The first delimiter starts the body or follows a preamble line.
  let pos = body.subarray(0, delimiter.length).equals(delimiter) ? 0 : body.indexOf(next);
  if (pos === -1) throw new MultipartError('no boundary delimiter found');
  pos += pos === 0 ? delimiter.length : next.length;
  const parts: Part[] = [];
  for (;;) {
    if (body[pos] === 0x2d && body[pos + 1] === 0x2d) return parts; // `--`: the closing delimiter
    // Transport padding (spaces, tabs) may follow a delimiter before its CRLF.
    while (body[pos] === 0x20 || body[pos] === 0x09) pos++;
    if (body.indexOf(CRLF, pos) !== pos) throw new MultipartError('malformed boundary line');
    pos += 2;
    if (parts.length >= limits.maxParts) throw new MultipartError(`more than ${limits.maxParts} parts`);
    const headerEnd = body.indexOf(HEADER_END, pos);
    const emptyHeaders = body.indexOf(CRLF, pos) === pos;
    if (!emptyHeaders && (headerEnd === -1 || headerEnd - pos > limits.maxHeaderBytes)) throw new MultipartError('part headers are missing or too long');
    const headers = emptyHeaders ? new Map<string, string>() : parsePartHeaders(body.toString('utf8', pos, headerEnd));
    if (headers === undefined) throw new MultipartError('malformed part header (a line without a colon, or a field given twice)');
    const dataStart = emptyHeaders ? pos + 2 : headerEnd + 4;
    const dataEnd = body.indexOf(next, dataStart);
    if (dataEnd === -1) throw new MultipartError('the closing boundary is missing');
    const disposition = parseDisposition(headers.get('content-disposition'));
    if (disposition.name === undefined) throw new MultipartError('a part has no Content-Disposition name');
    parts.push({ name: disposition.name, filename: disposition.filename, contentType: headers.get('content-type'), data: body.subarray(dataStart, dataEnd) });
    pos = dataEnd + next.length;
  }
}

/**
 * A part's header lines (CRLF-separated, without the blank line) by lower-case name; undefined when one is
 * malformed or a field comes twice (two Content-Disposition: busboy reads the first, a last-wins parser the
 * second, so what the facade checks would not be what the backend reads).
 */
export function parsePartHeaders(text: string): Map<string, string> | undefined {
  const headers = new Map<string, string>();
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon <= 0) return undefined;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (headers.has(name)) return undefined;
    headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

/** `form-data; name="field"; filename="a.txt"` (and RFC 5987 `filename*=UTF-8''...`). */
function parseDisposition(value: string | undefined): { name: string | undefined; filename: string | undefined } {
  const out: { name: string | undefined; filename: string | undefined } = { name: undefined, filename: undefined };
  if (value === undefined) return out;
  const param = /;\s*([^=\s;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]*))/g;
  const seen = new Set<string>();
  for (let m = param.exec(value); m !== null; m = param.exec(value)) {
    const key = m[1]!.toLowerCase();
    // RFC 6266 §4.1, RFC 7578 §4.2: each parameter once. `name="role"; name="admin"` is read as role by
    // busboy (multer, @fastify/multipart) and as admin by a last-wins parser: refused, never guessed.
    if (seen.has(key)) throw new MultipartError(`a part's Content-Disposition gives ${key} twice`);
    seen.add(key);
    const raw = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!.trim();
    if (key === 'name') out.name = raw;
    else if (key === 'filename' && out.filename === undefined) out.filename = raw;
    else if (key === 'filename*') out.filename = decodeExtended(raw) ?? out.filename;
  }
  return out;
}

function decodeExtended(value: string): string | undefined {
  const m = /^utf-8'[^']*'(.*)$/i.exec(value);
  return m ? percentDecoded(m[1]!) : undefined;
}
