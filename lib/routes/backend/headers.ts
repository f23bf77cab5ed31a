// The header rules of a proxy (RFC 9110 §7.6): hop-by-hop fields never cross, the backend learns who the
// client was (RFC 7239 Forwarded, X-Forwarded-*), and both directions carry Via.
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { isIP, type BlockList } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { TOKEN } from '../../http/fields.js';
import { isInternalName, type Exchange } from '../exchange.js';

/** RFC 9110 §7.6.1, plus the pre-standard Keep-Alive and Proxy-Connection. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Request fields the proxy writes itself rather than copying: framing, the target's Host, and the forwarding trail. */
const SET_BY_PROXY = new Set(['host', 'content-length', 'expect', 'forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'via']);

/** What no field value can carry (NUL, CR, LF, and anything beyond Latin-1). */
const UNSENDABLE = /[\0\r\n\u0100-\uffff]/;

const VIA_NAME = 'svc-facade';

/** The names a Connection field lists: hop-by-hop for this message only (RFC 9110 §7.6.1). */
function connectionListed(value: unknown): readonly string[] {
  if (typeof value !== 'string' || value === 'keep-alive' || value === 'close') return NONE;
  return value.split(',').map((s) => s.trim().toLowerCase());
}
const NONE: readonly string[] = [];

/**
 * The headers sent to the backend: the exchange's end-to-end headers (request headers and what routes set,
 * query and path parameters included, as Camel sends them), then Forwarded, X-Forwarded-* and Via.
 */
export function backendRequestHeaders(ex: Exchange, trusted: BlockList | undefined, contentLength: string | undefined): OutgoingHttpHeaders {
  const headers = ex.message.headers;
  const listed = connectionListed(headers.get('connection'));
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers.toObject())) {
    if (HOP_BY_HOP.has(name) || SET_BY_PROXY.has(name) || isInternalName(name) || value === undefined || value === null || listed.includes(name)) continue;
    const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : typeof value === 'number' ? String(value) : undefined;
    // Query and path parameters are headers too; one no header can carry (`?a%20b=1`, `%0D%0A`) is left out
    // instead of failing the whole call: the query string still carries it.
    if (text !== undefined && TOKEN.test(name) && !UNSENDABLE.test(text)) out[name] = text;
  }
  if (contentLength !== undefined) out['content-length'] = contentLength;
  const req = ex.request;
  if (req !== undefined) addForwarding(out, req, trusted);
  out.via = appendVia(headers.get('via'), req?.httpVersion ?? '1.1');
  return out;
}

/** RFC 7239 and the X-Forwarded-* de-facto fields: appended to a trusted peer's values, else replacing them. */
function addForwarding(out: OutgoingHttpHeaders, req: IncomingMessage, trusted: BlockList | undefined): void {
  const peer = clientAddress(req.socket.remoteAddress);
  const proto = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const host = req.headers.host;
  const family = isIP(peer);
  const trust = trusted !== undefined && family !== 0 && trusted.check(peer, family === 6 ? 'ipv6' : 'ipv4');
  const h: IncomingHttpHeaders = trust ? req.headers : {};
  const element = `for=${family === 6 ? `"[${peer}]"` : quoted(peer)}${host === undefined ? '' : `;host=${quoted(host)}`};proto=${proto}`;
  out.forwarded = h.forwarded ? `${h.forwarded}, ${element}` : element;
  out['x-forwarded-for'] = h['x-forwarded-for'] ? `${h['x-forwarded-for'] as string}, ${peer}` : peer;
  out['x-forwarded-proto'] = (h['x-forwarded-proto'] as string | undefined) ?? proto;
  const forwardedHost = (h['x-forwarded-host'] as string | undefined) ?? host;
  if (forwardedHost !== undefined) out['x-forwarded-host'] = forwardedHost;
}

/** `::ffff:10.0.0.1` (an IPv4 client on a dual-stack socket) is the IPv4 address; an unknown peer is RFC 7239's `unknown`. */
function clientAddress(address: string | undefined): string {
  if (address === undefined) return 'unknown';
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** An RFC 7239 value: a token as is, anything else (`host:port`) as a quoted string. */
function quoted(value: string): string {
  return TOKEN.test(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`;
}

function appendVia(previous: unknown, version: string): string {
  const own = `${version} ${VIA_NAME}`;
  return typeof previous === 'string' && previous !== '' ? `${previous}, ${own}` : own;
}

/**
 * The backend's status and end-to-end headers become the exchange's (and so the client's). Content-Length
 * travels with the body instead; Svc* names are the facade's own, from a backend as from a client.
 */
export function applyBackendResponse(ex: Exchange, res: IncomingMessage, statusHeader: string): void {
  const headers = ex.message.headers;
  const listed = connectionListed(res.headers.connection);
  headers.set(statusHeader, res.statusCode);
  if (res.headers['content-type'] === undefined) headers.delete('content-type');
  for (const [name, value] of Object.entries(res.headers)) {
    if (HOP_BY_HOP.has(name) || name === 'content-length' || name === 'via' || isInternalName(name) || value === undefined || listed.includes(name)) continue;
    headers.set(name, value);
  }
  headers.set('via', appendVia(res.headers.via, res.httpVersion));
}
