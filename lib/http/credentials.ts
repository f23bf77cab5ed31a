// The Authorization field of a request whose credentials the facade checks itself (docs/bearer-tokens.md): taken out of
// the request once, so no route, `to: http` backend or log line ever sees it.
import type { IncomingMessage } from 'node:http';

const AUTHORIZATION = 'authorization';

/**
 * Removes every Authorization field from the request (parsed and raw headers) and returns the value: one
 * string, a list when the client sent several (node would keep only the first), undefined when none.
 */
export function takeAuthorization(req: IncomingMessage): string | string[] | undefined {
  const raw = req.rawHeaders;
  let found: string | string[] | undefined;
  for (let i = raw.length - 2; i >= 0; i -= 2) {
    const name = raw[i]!;
    if (name.length !== AUTHORIZATION.length || name.toLowerCase() !== AUTHORIZATION) continue;
    const value = raw[i + 1]!;
    found = found === undefined ? value : Array.isArray(found) ? [value, ...found] : [value, found];
    raw.splice(i, 2);
  }
  // Not `delete`: that would turn node's headers object into a slow dictionary for the rest of the request.
  if (found !== undefined) req.headers.authorization = undefined;
  return found;
}
