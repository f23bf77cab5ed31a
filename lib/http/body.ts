// Reading request bodies with a size limit (docs/security.md#hostile-input: 413, and the connection is not left hanging).
import type { IncomingMessage } from 'node:http';
import { Errors, svcError, type SvcError } from '../util/errors.js';

/**
 * True when the request announces a body (RFC 9112 §6.3). An HTTP/2 request has one unless its HEADERS frame
 * ended the stream (RFC 9113 §8.1): a content-length is optional there, and transfer-encoding never sent.
 */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if ((length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined) return true;
  return length === undefined && req.httpVersionMajor === 2 && (req as { stream?: { endAfterHeaders?: boolean } }).stream?.endAfterHeaders === false;
}

/**
 * A text body as a string: UTF-8, a leading byte-order mark dropped. `decoded`: the same bytes already
 * decoded as UTF-8 (by validation, for the route too), used instead of decoding them again.
 */
export function bodyText(raw: Buffer, decoded?: string): string {
  const text = decoded ?? raw.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Called once with the whole body, or with the error that ended reading it. */
type BodyDone = (err: SvcError | undefined, body?: Buffer) => void;

/**
 * Reads the whole body, then calls `done` once with the bytes or with an error (413 over `limit`, 400 when
 * the client goes away). Callbacks rather than a promise: this runs on every request with a body.
 */
export function readBody(req: IncomingMessage, limit: number, done: BodyDone): void {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return done(svcError(Errors.BODY_TOO_LARGE, limit));
  // node hands the request to its listener before it parses the body that came in the same packet: by the
  // next tick that body is in the request's buffer. Taken whole from there, it costs one call instead of
  // flowing-mode events; a body still on its way is read as it arrives.
  if (declared > 0) process.nextTick(readArrivedBody, req, declared, limit, done);
  else readArrivingBody(req, limit, done);
}

function readArrivedBody(req: IncomingMessage, declared: number, limit: number, done: BodyDone): void {
  if (req.readableLength !== declared || req.readableFlowing === true) return readArrivingBody(req, limit, done);
  done(undefined, req.read() as Buffer);
}

function readArrivingBody(req: IncomingMessage, limit: number, done: BodyDone): void {
  const chunks: Buffer[] = [];
  let size = 0;
  const onData = (chunk: Buffer): void => {
    size += chunk.length;
    if (size > limit) {
      cleanup();
      req.resume();
      done(svcError(Errors.BODY_TOO_LARGE, limit));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = (): void => {
    cleanup();
    done(undefined, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size));
  };
  const onError = (): void => {
    cleanup();
    done(svcError(Errors.BODY_ABORTED));
  };
  const cleanup = (): void => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
  };
  req.on('data', onData);
  req.on('end', onEnd);
  // A client leaving mid-body is an 'error' (ECONNRESET, after the deprecated 'aborted' event).
  req.on('error', onError);
}
