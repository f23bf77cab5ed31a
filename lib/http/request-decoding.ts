// Request bodies sent with Content-Encoding (gzip, deflate, br): decoded before validation and binding see them,
// bounded by svc.server.maxBodySize after decoding, so a small body that inflates a thousandfold is a 413
// once the limit is passed, never held whole. Any other coding is a 415 naming the codings taken (RFC 7694).
import type { IncomingMessage } from 'node:http';
import { createBrotliDecompress, createGunzip, createInflate, type BrotliDecompress, type Gunzip, type Inflate } from 'node:zlib';
import { Errors, SvcError, svcError } from '../util/errors.js';

type Decoder = Gunzip | Inflate | BrotliDecompress;

/** The content codings node's zlib undoes, by name: for request bodies, and a backend's answers (compression.ts, backend/body.ts). */
export const CONTENT_DECODERS: Readonly<Record<string, () => Decoder>> = { gzip: createGunzip, 'x-gzip': createGunzip, deflate: createInflate, br: createBrotliDecompress };
const TAKEN = 'gzip, deflate, br';

/**
 * How a request's body is coded: undefined for none (or `identity`), the decoder's factory for one the facade
 * takes, or the 415 to answer for any other (a stack of codings included).
 */
export function requestCoding(contentEncoding: string): (() => Decoder) | SvcError | undefined {
  const name = contentEncoding.trim().toLowerCase();
  if (name === '' || name === 'identity') return undefined;
  return Object.hasOwn(CONTENT_DECODERS, name) ? CONTENT_DECODERS[name]! : new SvcError(Errors.CONTENT_ENCODING_UNSUPPORTED, [JSON.stringify(contentEncoding)], undefined, { 'accept-encoding': TAKEN });
}

/**
 * Reads and decodes the whole body, then calls `done` once with the decoded bytes or the error: 413 once the
 * decoded bytes pass `limit` (or the coded ones announce more), 400 when the bytes are not in that coding or
 * the client goes away. The request then no longer says it is coded: later stages (a backend) get the content.
 */
export function readDecodedBody(req: IncomingMessage, decoder: () => Decoder, limit: number, done: (err: SvcError | undefined, body?: Buffer) => void): void {
  if (Number(req.headers['content-length']) > limit) return done(svcError(Errors.BODY_TOO_LARGE, limit));
  const decoding = decoder();
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const settle = (err: SvcError | undefined, body?: Buffer): void => {
    if (settled) return;
    settled = true;
    req.unpipe(decoding);
    decoding.destroy();
    if (err !== undefined) req.resume(); // what is left is read and dropped; the answer closes the connection
    done(err, body);
  };
  decoding.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) return settle(svcError(Errors.BODY_TOO_LARGE, limit));
    chunks.push(chunk);
  });
  decoding.on('end', () => {
    delete req.headers['content-encoding'];
    settle(undefined, Buffer.concat(chunks, size));
  });
  decoding.on('error', () => settle(svcError(Errors.CONTENT_ENCODING_INVALID, JSON.stringify(req.headers['content-encoding']))));
  req.on('error', () => settle(svcError(Errors.BODY_ABORTED)));
  req.pipe(decoding);
}
