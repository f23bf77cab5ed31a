// `svc.security.principalHeader`: the request header that tells `to:` backends who the contract's security
// admitted the request as. The facade writes it; a copy the client sent is never forwarded, so a backend can
// believe it. Off by default.
import { TOKEN } from '../http/fields.js';
import { Errors, svcError } from '../util/errors.js';

/** Fields that already mean something to the proxy or the backend: never the principal's. */
const RESERVED = new Set(['authorization', 'proxy-authorization', 'cookie', 'host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'forwarded', 'via', 'x-forwarded-for', 'x-request-id', 'traceparent']);

/** The lower-cased field name, checked at startup; undefined when unset. */
export function principalHeaderName(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  const name = value.trim().toLowerCase();
  if (!TOKEN.test(name) || RESERVED.has(name) || name.startsWith('svc')) {
    throw svcError(Errors.CONFIG_INVALID, 'svc.security', 'security.principalHeader', JSON.stringify(value), 'an HTTP field name of your own (e.g. X-Authenticated-Principal), not Authorization, Cookie, Host, a framing or forwarding field, or Svc*');
  }
  return name;
}
