// The length of the body a response announced, for metrics and the access log. Writers give node's
// writeHead all headers in one object (its fast path), and headers given that way are not readable back
// with getHeader: so the writers that announce a length also note it here.
import type { ServerResponse } from 'node:http';

const BODY_LENGTH = Symbol('svc.bodyLength');
type MeasuredResponse = ServerResponse & { [BODY_LENGTH]?: number };

/** Notes the Content-Length a writer is about to send. */
export function noteBodyLength(res: ServerResponse, length: number): void {
  (res as MeasuredResponse)[BODY_LENGTH] = length;
}

/** The body length the response announced (0 when none was). */
export function bodyLengthOf(res: ServerResponse): number {
  return (res as MeasuredResponse)[BODY_LENGTH] ?? Number(res.getHeader('content-length') ?? 0);
}
