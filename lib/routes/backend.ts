// `to: http(s)://...`: forwards the exchange to a backend and makes its response the exchange's (SPEC §4).
import { Errors, svcError } from '../errors.js';
import { HeaderNames, isInternalName, type Exchange } from './exchange.js';

/** Hop-by-hop and framing headers that must not cross a proxy (RFC 9110 §7.6.1). */
const NOT_FORWARDED = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'host', 'content-length', 'expect']);

/** Response headers copied apart (content-type, set-cookie), or describing the encoded bytes fetch has already decoded. */
const NOT_RETURNED = new Set(['content-type', 'content-encoding', 'set-cookie']);

const BACKEND_TIMEOUT_MS = 30_000;

/** RFC 9110 §5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+\-.^_`|~\dA-Za-z]+$/;
/** What no field value can carry (fetch refuses NUL, CR, LF and anything beyond Latin-1). */
const UNSENDABLE = /[\0\r\n\u0100-\uffff]/;

export async function forwardToBackend(uri: string, ex: Exchange): Promise<void> {
  const headers = ex.message.headers;
  const method = String(headers.get(HeaderNames.METHOD) ?? (ex.message.body == null ? 'GET' : 'POST')).toUpperCase();
  const query = headers.get(HeaderNames.QUERY);
  const target = typeof query === 'string' && query !== '' && !uri.includes('?') ? `${uri}?${query}` : uri;
  const outgoing: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers.toObject())) {
    if (NOT_FORWARDED.has(name) || isInternalName(name) || value === undefined || value === null) continue;
    const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : undefined;
    // Query and path parameters are headers too; one no header can carry (`?a%20b=1`, `%0D%0A`) is left out
    // instead of failing the whole call: the query string still carries it.
    if (text !== undefined && TOKEN.test(name) && !UNSENDABLE.test(text)) outgoing[name] = text;
  }
  const body = method === 'GET' || method === 'HEAD' ? undefined : toBody(ex.message.body);
  let res: Response;
  let payload: Buffer;
  try {
    res = await fetch(target, { method, headers: outgoing, body, redirect: 'manual', signal: AbortSignal.timeout(BACKEND_TIMEOUT_MS) });
    // A backend that dies or stalls in the middle of its body failed just as one that never answered.
    payload = Buffer.from(await res.arrayBuffer());
  } catch {
    throw svcError(Errors.BACKEND_FAILED, new URL(target).origin);
  }
  headers.set(HeaderNames.RESPONSE_CODE, res.status);
  const type = res.headers.get('content-type');
  if (type) headers.set('content-type', type);
  else headers.delete('content-type');
  // The backend's end-to-end headers (Location, Cache-Control, ...) become the exchange's and go to the client;
  // Svc* names are the facade's own, from a backend as from a client.
  for (const [name, value] of res.headers) {
    if (!NOT_FORWARDED.has(name) && !NOT_RETURNED.has(name) && !isInternalName(name)) headers.set(name, value);
  }
  const cookies = res.headers.getSetCookie();
  if (cookies.length > 0) headers.set('set-cookie', cookies);
  ex.message.body = payload.length === 0 ? undefined : /json|xml|text/.test(type ?? '') ? payload.toString('utf8') : payload;
}

function toBody(body: unknown): string | Buffer | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  return JSON.stringify(body);
}
