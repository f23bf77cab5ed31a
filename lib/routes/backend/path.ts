// forwardPath: the request path appended to the endpoint's, refused when a backend could resolve it elsewhere.
import { Errors, svcError } from '../../errors.js';

/**
 * A path a parameter matched may still say `..` (or `%2E%2E`, or `%2F` inside a segment): a backend that
 * normalizes it would be asked for a path outside the one the facade forwards to. Such a request is refused.
 */
const UNSAFE_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?=\/|$)|%2f|%5c|\\/i;

export function forwardablePath(path: string): string {
  if (UNSAFE_SEGMENT.test(path)) throw svcError(Errors.FORWARD_PATH_UNSAFE);
  return path;
}
