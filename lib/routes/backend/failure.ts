// A failed backend call as two texts: the problem detail the client gets, which names the backend's origin
// only with svc.backend.exposeOrigin (an internal address is of no use to a client and helps an attacker map
// the network), and the one log line the operator gets, which always names the origin and the cause (a
// refused connection, a certificate, a reset) instead of a stack through node's internals.
import { SvcError, type ErrorDef } from '../../util/errors.js';

/** The catalogue's backend templates take this right after "The backend": " <origin>", or nothing. */
export function shownOrigin(origin: string, exposeOrigin: boolean): string {
  return exposeOrigin ? ` ${origin}` : '';
}

/** The catalogue error; its stack (what the pipeline logs) is one line: message, origin and cause. */
export function backendError(def: ErrorDef, args: readonly unknown[], origin: string, cause: unknown, headers?: Readonly<Record<string, string>>): SvcError {
  const err = new SvcError(def, args, undefined, headers);
  err.stack = `${err.name} ${err.code}: ${err.message} Backend: ${origin}. Caused by: ${describeCause(cause)}`;
  return err;
}

function describeCause(cause: unknown): string {
  try {
    if (typeof cause === 'string') return cause;
    const { code, message } = cause as NodeJS.ErrnoException;
    const text = code === undefined ? String(message ?? cause) : `${code} ${message}`;
    return text.replace(/\s+/g, ' ');
  } catch {
    return 'unknown';
  }
}
