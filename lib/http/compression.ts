// Compressed answers (docs/cors.md#compression): br or gzip as the request's Accept-Encoding prefers, for bodies
// of a compressible media type at least svc.server.compressionThreshold long, unless something says no (a
// Content-Encoding already, Cache-Control: no-transform, a range, a sequential media type that streams item
// by item). The dispatcher marks a response only when its request sends Accept-Encoding: every other answer
// is written exactly as before, at the cost of one property read.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import { boundedMemo } from '../util/memo.js';
import { noteBodyLength } from './body-length.js';
import { weightedItems } from './fields.js';
import { essence } from './negotiation.js';
import { CONTENT_DECODERS } from './request-decoding.js';
import { withVary } from './vary.js';

export type Coding = 'br' | 'gzip';

/** How one request's answers may be coded: the coding chosen, and whether identity was refused. */
export interface AnswerCoding {
  /** Undefined: the client accepts neither br nor gzip. */
  readonly coding: Coding | undefined;
  /** The client named every coding it takes, and `identity` is not one (`identity;q=0`, `*;q=0`). */
  readonly identityRefused: boolean;
  /** The codings the client takes, for answers that arrive coded already (a backend's). */
  readonly accepts: (coding: string) => boolean;
  readonly threshold: number;
}

// Levels for an API: brotli quality 4 compresses JSON about as well as gzip 6 at a fraction of quality 11's
// cost (@fastify/compress moved off 11 for this); gzip 6 is zlib's own default.
const BROTLI_OPTIONS = { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } };
const GZIP_OPTIONS = { level: 6 };
/** Up to this size a body is compressed at once, its length announced; larger ones stream (no event-loop stall). */
const AT_ONCE = 64 * 1024;

const COMPRESSED = Symbol('svc.answerCoding');
type CodedResponse = ServerResponse & { [COMPRESSED]?: AnswerCoding };

/**
 * Compression for the requests of one facade, or undefined when svc.server.compression is off. `mark` is called
 * for each request that sends Accept-Encoding.
 */
export function compileCompression(options: { compression: boolean; compressionThreshold: number }): ((req: IncomingMessage, res: ServerResponse, acceptEncoding: string) => void) | undefined {
  if (!options.compression) return undefined;
  const threshold = options.compressionThreshold;
  const codingOf = boundedMemo((header) => negotiateCoding(header, threshold));
  return (_req, res, acceptEncoding) => {
    (res as CodedResponse)[COMPRESSED] = codingOf(acceptEncoding);
  };
}

/** RFC 9110 §12.5.3: q-values, `*` for what is not named, br before gzip at equal q. */
export function negotiateCoding(header: string, threshold: number): AnswerCoding {
  const q = new Map<string, number>();
  for (const item of weightedItems(header)) {
    const coding = item.value.toLowerCase();
    if (coding === '') continue;
    // A q that is not a number refuses the coding: nothing is compressed on a guess.
    q.set(coding === 'x-gzip' ? 'gzip' : coding, Number.isNaN(item.q) ? 0 : item.q);
  }
  const star = q.get('*');
  const qualityOf = (coding: string): number => q.get(coding) ?? star ?? 0;
  const br = qualityOf('br');
  const gzip = qualityOf('gzip');
  const coding: Coding | undefined = br > 0 && br >= gzip ? 'br' : gzip > 0 ? 'gzip' : undefined;
  const identity = q.get('identity') ?? (star === 0 ? 0 : 1);
  return { coding, identityRefused: identity === 0, accepts: (c) => qualityOf(c === 'x-gzip' ? 'gzip' : c) > 0, threshold };
}

/** True for media types whose bodies shrink (JSON, XML, YAML, text), but not those that stream item by item. */
const compressibleType = boundedMemo((type: string): boolean => {
  const e = essence(type);
  if (e === 'text/event-stream' || e === 'application/jsonl' || e === 'application/x-ndjson' || e === 'application/x-jsonlines' || e === 'application/json-seq' || e.endsWith('+json-seq')) return false;
  if (e.startsWith('text/')) return true;
  return e === 'application/json' || e.endsWith('+json') || e === 'application/xml' || e.endsWith('+xml') || e === 'application/yaml' || e === 'application/x-yaml' || e.endsWith('+yaml') || e === 'application/javascript' || e === 'application/x-www-form-urlencoded' || e === 'application/graphql';
});

type OutgoingHeaders = Record<string, string | string[] | number>;

/**
 * Whether this answer is compressed, and with what: undefined leaves it as it is. Sets Content-Encoding, Vary
 * and a weak ETag on `headers` when it is. `length` undefined: not known yet (a stream).
 */
function codingFor(res: ServerResponse, headers: OutgoingHeaders, type: string | undefined, length: number | undefined): Coding | undefined {
  const coded = (res as CodedResponse)[COMPRESSED];
  if (coded === undefined || type === undefined || !compressibleType(type)) return undefined;
  if (length !== undefined && length < coded.threshold && !coded.identityRefused) return undefined;
  if (headers['content-encoding'] !== undefined || headers['content-range'] !== undefined || noTransform(headers['cache-control'])) return undefined;
  headers.vary = withVary(headers.vary, 'Accept-Encoding');
  if (coded.coding === undefined) return undefined;
  headers['content-encoding'] = coded.coding;
  const etag = headers.etag;
  if (typeof etag === 'string' && !etag.startsWith('W/')) headers.etag = `W/${etag}`;
  return coded.coding;
}

function noTransform(cacheControl: unknown): boolean {
  return cacheControl !== undefined && /(^|,)\s*no-transform\s*(,|$)/i.test(String(cacheControl));
}

/** Compressed bodies of answers seen before (the mock's fixed answers, a route's constant): compressed once. */
const remembered: Record<Coding, Map<string | Buffer, Buffer>> = { br: new Map(), gzip: new Map() };
const REMEMBERED_AT_MOST = 64;

function compressNow(coding: Coding, payload: string | Buffer): Buffer {
  const cache = remembered[coding];
  let out = cache.get(payload);
  if (out === undefined) {
    out = coding === 'br' ? brotliCompressSync(payload, BROTLI_OPTIONS) : gzipSync(payload, GZIP_OPTIONS);
    if (cache.size >= REMEMBERED_AT_MOST) cache.clear();
    // Strings are remembered by value (equal text, same bytes); Buffers only by identity, as Map keys are.
    cache.set(payload, out);
  }
  return out;
}

/**
 * Writes a whole body: compressed when the request allows it and the answer is worth it, else as given. For
 * the writers of the facade (routes, the mock, problems, the published contract); HEAD gets the same fields.
 */
export function endWithBody(res: ServerResponse, status: number, headers: OutgoingHeaders, type: string | undefined, payload: string | Buffer): void {
  const length = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.length;
  const coding = (res as CodedResponse)[COMPRESSED] === undefined ? undefined : codingFor(res, headers, type, length);
  if (coding === undefined) {
    headers['content-length'] = length;
    noteBodyLength(res, length);
    res.writeHead(status, headers);
    res.end(payload);
    return;
  }
  if (length <= AT_ONCE) {
    const body = compressNow(coding, payload);
    headers['content-length'] = body.length;
    noteBodyLength(res, body.length);
    res.writeHead(status, headers);
    res.end(body);
    return;
  }
  res.writeHead(status, headers);
  if (res.req?.method === 'HEAD') return void res.end();
  const encoder = createEncoder(coding);
  pipeEncoded(encoder, res);
  encoder.end(payload);
}

function createEncoder(coding: Coding): Transform {
  return coding === 'br' ? createBrotliCompress(BROTLI_OPTIONS) : createGzip(GZIP_OPTIONS);
}

function pipeEncoded(encoder: Transform, res: ServerResponse): void {
  encoder.once('error', () => res.destroy());
  res.once('close', () => {
    if (!res.writableFinished) encoder.destroy();
  });
  encoder.pipe(res);
}


/**
 * A body still arriving (a backend's answer): compressed as it passes when it may be, and decoded when it
 * arrives in a coding the client does not take. Returns the stream to send and fixes the headers to match.
 */
export function encodedStream(res: ServerResponse, headers: OutgoingHeaders, type: string | undefined, source: Readable, length: number | undefined): Readable {
  const coded = (res as CodedResponse)[COMPRESSED];
  const arrived = headers['content-encoding'];
  if (arrived !== undefined) {
    const name = String(arrived).trim().toLowerCase();
    const decoder = Object.hasOwn(CONTENT_DECODERS, name) ? CONTENT_DECODERS[name] : undefined;
    // Passed untouched when the client takes it (or says nothing: no Accept-Encoding takes anything).
    if (name === 'identity' || decoder === undefined || coded === undefined || coded.accepts(name)) return source;
    delete headers['content-encoding'];
    delete headers['content-length'];
    headers.vary = withVary(headers.vary, 'Accept-Encoding');
    return through(source, decoder());
  }
  if (coded === undefined) return source;
  const coding = codingFor(res, headers, type, length);
  if (coding === undefined) return source;
  delete headers['content-length'];
  return flushedThrough(source, coding);
}

/**
 * A body compressed as it arrives, each chunk flushed out as soon as it is in: a backend that sends part of
 * its answer and waits (a long poll, a progress report) is seen by the client as it sends, not when the
 * compressor's buffer fills. A sync flush costs a few bytes a chunk and keeps the dictionary.
 */
function flushedThrough(source: Readable, coding: Coding): Readable {
  const encoder = createEncoder(coding) as Transform & { flush(kind: number, callback?: () => void): void };
  const kind = coding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH;
  source.once('error', (err) => encoder.destroy(err));
  encoder.once('close', () => {
    if (!source.readableEnded) source.destroy();
  });
  encoder.on('drain', () => source.resume());
  source.on('data', (chunk: Buffer) => {
    if (!encoder.write(chunk)) source.pause();
    encoder.flush(kind);
  });
  source.once('end', () => encoder.end());
  return encoder;
}

function through(source: Readable, transform: Transform): Readable {
  source.once('error', (err) => transform.destroy(err));
  transform.once('close', () => {
    if (!source.readableEnded) source.destroy();
  });
  return source.pipe(transform);
}
