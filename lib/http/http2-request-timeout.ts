// svc.server.requestTimeout for one HTTP/2 stream. Over HTTP/1.1 node's own timer closes a connection whose
// request has not fully arrived in time; an HTTP/2 session carries many requests, so the limit is per stream:
// a request whose body is still arriving when it expires gets 408 (problem+json) and its stream is closed
// (RST_STREAM NO_ERROR after the answer, so the client stops sending), or, when an answer has already begun,
// is reset with CANCEL. The session and its other streams go on; the session's idle timeout is separate.
import http2 from 'node:http2';
import type { ServerResponse } from 'node:http';
import { Errors } from '../util/errors.js';
import { compileStaticProblem } from './problem.js';

const sendTimeout = compileStaticProblem(Errors.REQUEST_TIMEOUT);

/**
 * Arms the limit for a stream whose HEADERS did not end it (a request with a body); one timer per such
 * stream, cleared when its body has arrived or the stream closes. A request without a body costs nothing.
 */
export function limitRequestTime(req: { readonly stream: http2.ServerHttp2Stream }, res: http2.Http2ServerResponse, timeoutMs: number): void {
  const stream = req.stream;
  if (timeoutMs <= 0 || stream.endAfterHeaders) return;
  const timer = setTimeout(() => expire(stream, res), timeoutMs);
  const clear = (): void => clearTimeout(timer);
  stream.once('end', clear);
  stream.once('close', clear);
}

function expire(stream: http2.ServerHttp2Stream, res: http2.Http2ServerResponse): void {
  if (stream.destroyed || stream.closed) return;
  // The client's END_STREAM arrived, though nothing has read the body to its end: the request did arrive in time.
  const { state } = stream.state;
  if (state === http2.constants.NGHTTP2_STREAM_STATE_HALF_CLOSED_REMOTE || state === http2.constants.NGHTTP2_STREAM_STATE_CLOSED) return;
  if (stream.headersSent) return void stream.close(http2.constants.NGHTTP2_CANCEL);
  sendTimeout(res as unknown as ServerResponse);
  // After the answer's last DATA frame: RST_STREAM NO_ERROR tells the client to stop sending (RFC 9113 §8.1).
  stream.once('finish', () => stream.close(http2.constants.NGHTTP2_NO_ERROR));
}
