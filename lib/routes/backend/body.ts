// A backend's answer read whole, for a later step or response validation: decoded (gzip, deflate, br: the
// steps see the content, as they did with fetch) and bounded by svc.backend.maxResponseSize after decoding.
import type { Readable } from 'node:stream';
import { Errors } from '../../util/errors.js';
import { CONTENT_DECODERS } from '../../http/request-decoding.js';
import type { Exchange } from '../../message/exchange.js';
import { backendError, shownOrigin } from './failure.js';
import type { BackendOptions } from '../../config/backend-options.js';
import type { BackendAnswer } from './response.js';


const TEXTUAL = /json|xml|text/;

/** Reads the response; the exchange loses Content-Encoding when the bytes were decoded. Rejects with the cause. */
export function readBackendBody(res: BackendAnswer, ex: Exchange, options: BackendOptions, origin: string): Promise<unknown> {
  const encoding = res.headers['content-encoding']?.trim().toLowerCase();
  const decoder = encoding === undefined || !Object.hasOwn(CONTENT_DECODERS, encoding) ? undefined : CONTENT_DECODERS[encoding];
  const body = res.stream;
  let source: Readable = body;
  if (decoder !== undefined) {
    const decoding = decoder();
    body.on('error', (err) => decoding.destroy(err));
    source = body.pipe(decoding);
    ex.message.headers.delete('content-encoding');
  }
  return collect(source, options, body, origin).then((bytes) => {
    if (bytes.length === 0) return undefined;
    return TEXTUAL.test(res.headers['content-type'] ?? '') ? bytes.toString('utf8') : bytes;
  });
}

function collect(source: Readable, options: BackendOptions, res: Readable, origin: string): Promise<Buffer> {
  const limit = options.maxResponseSize;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Settled first: destroying aborts the call, which must not count as the backend's failure.
        reject(backendError(Errors.BACKEND_RESPONSE_TOO_LARGE, [shownOrigin(origin, options.exposeOrigin), limit], origin, `more than ${limit} bytes`));
        res.destroy();
        source.destroy();
        return;
      }
      chunks.push(chunk);
    });
    source.on('end', () => resolve(Buffer.concat(chunks, size)));
    // A backend that closes before the announced length is a failed call (undici's error), not a short body.
    source.on('error', reject);
  });
}
