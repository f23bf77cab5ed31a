// The header rules of a proxy (RFC 9110 §7.6): hop-by-hop fields never cross, the backend learns who the
// client was (RFC 7239 Forwarded, X-Forwarded-*), and both directions carry Via.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { isIP, type BlockList, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { TOKEN, connectionOptions, isUnsendableValue } from '../../http/fields.js';
import { isForwardingField } from '../../http/forwarding-fields.js';
import { isInternalName, PropertyNames, type Exchange } from '../../message/exchange.js';
import { CLIENT_CERT_HEADER, forwardedClientCert } from '../../http/client-certificate.js';

/** RFC 9110 §7.6.1, plus the pre-standard Keep-Alive and Proxy-Connection. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

/** Request fields the proxy writes itself rather than copying: framing, the target's Host, and the forwarding trail. */
const SET_BY_PROXY = new Set(['host', 'content-length', 'expect', 'forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'via']);

const VIA_NAME = 'svc-facade';

/** Request fields never copied: hop-by-hop ones and those the proxy writes itself. */
const NOT_COPIED: ReadonlySet<string> = new Set([...HOP_BY_HOP, ...SET_BY_PROXY]);

/**
 * The headers sent to the backend, as the flat name/value list `http.request` takes without copying them
 * into its own map: Host (the backend's `host[:port]`), the exchange's end-to-end headers (request headers
 * and what routes set, query and path parameters included, as Camel sends them), then Forwarded,
 * X-Forwarded-* and Via. Host comes first, so a redirect can point it elsewhere.
 */
export function backendRequestHeaders(ex: Exchange, host: string, trusted: BlockList | undefined, contentLength: string | undefined, principalHeader?: string, forwardClientCert = false): string[] {
  const headers = ex.message.headers;
  const listed = connectionOptions(headers.get('connection'));
  const out = ['host', host];
  const req = ex.request;
  const facts = req === undefined ? undefined : clientFacts(req, trusted);
  headers.forEach((value, name) => {
    if (NOT_COPIED.has(name) || isInternalName(name) || value === undefined || value === null || (listed.length !== 0 && listed.includes(name)) || name === principalHeader) return;
    // X-Real-IP, X-Forwarded-Prefix, X-HTTP-Method-Override...: believed from a trusted proxy only; a route may set them.
    if (facts !== undefined && !facts.trust && isForwardingField(name) && !headers.writtenNames().includes(name)) return;
    // The facade's account of the client certificate; the client's own is dropped (a route may still set one).
    if (forwardClientCert && name === CLIENT_CERT_HEADER && !headers.writtenNames().includes(name)) return;
    const text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : typeof value === 'number' ? String(value) : undefined;
    // Query and path parameters are headers too; one no header can carry (`?a%20b=1`, `%0D%0A`) is left out
    // instead of failing the whole call: the query string still carries it.
    if (text !== undefined && TOKEN.test(name) && !isUnsendableValue(text)) out.push(name, text);
  });
  if (contentLength !== undefined) out.push('content-length', contentLength);
  if (principalHeader !== undefined) addPrincipal(out, principalHeader, ex.properties[PropertyNames.PRINCIPAL]);
  if (facts !== undefined) addForwarding(out, req!, facts);
  if (forwardClientCert && !out.includes(CLIENT_CERT_HEADER)) {
    const cert = forwardedClientCert(req);
    if (cert !== undefined) out.push(CLIENT_CERT_HEADER, cert);
  }
  out.push('via', appendVia(headers.get('via'), req?.httpVersion ?? '1.1'));
  // What the client itself sent, for a redirect to another origin (crossOriginHeaders); one property, no copy.
  if (req !== undefined) (out as BackendHeaders)[CLIENT_FIELDS] = req.headers;
  return out;
}

/** The principal the contract's security admitted (never the client's own copy of the field): percent-encoded when no header can carry it as is. */
function addPrincipal(out: string[], name: string, principal: unknown): void {
  if (typeof principal === 'string' && principal !== '') out.push(name, isUnsendableValue(principal) ? encodeURIComponent(principal) : principal);
}

const CLIENT_FIELDS = Symbol('svc.clientFields');
/** The flat list, remembering the client request's own fields. */
type BackendHeaders = string[] & { [CLIENT_FIELDS]?: IncomingHttpHeaders };

/** The same list for the same backend after a redirect: without the named fields. */
export function redirectedHeaders(headers: readonly string[], without: readonly string[]): string[] {
  const out: BackendHeaders = [];
  for (let i = 0; i < headers.length; i += 2) if (!without.includes(headers[i]!)) out.push(headers[i]!, headers[i + 1]!);
  out[CLIENT_FIELDS] = (headers as BackendHeaders)[CLIENT_FIELDS];
  return out;
}

/** Fields the facade writes that another origin still needs: the framing and description of a body sent again, and Via. */
const KEPT_ACROSS_ORIGINS: ReadonlySet<string> = new Set(['content-length', 'content-type', 'content-encoding', 'content-language', 'via']);
/** Credentials are the client's to give to the backend the facade chose, never to one that backend names. */
const CREDENTIALS: ReadonlySet<string> = new Set(['authorization', 'cookie', 'proxy-authorization']);

/**
 * The list for another origin a backend redirected to: with its Host, and only the fields the client itself
 * sent, unchanged, minus its credentials (plus a body's framing and Via). Whatever a route set for its own
 * backend (an `X-Api-Key`), query parameters turned headers, and the facade's forwarding trail stay behind.
 */
export function crossOriginHeaders(headers: readonly string[], host: string): string[] {
  const client = (headers as BackendHeaders)[CLIENT_FIELDS];
  const out: BackendHeaders = ['host', host];
  for (let i = 2; i < headers.length; i += 2) {
    const name = headers[i]!;
    const value = headers[i + 1]!;
    if (KEPT_ACROSS_ORIGINS.has(name) || (client !== undefined && !CREDENTIALS.has(name) && !isForwardingField(name) && Object.hasOwn(client, name) && client[name] === value)) out.push(name, value);
  }
  // Kept for a further redirect (to a third origin), which is judged the same way.
  out[CLIENT_FIELDS] = client;
  return out;
}

/** What a client connection tells every request it carries, worked out on its first forwarded request. */
interface ClientFacts {
  readonly trusted: BlockList | undefined;
  readonly peer: string;
  readonly proto: string;
  /** The peer is a trusted proxy: its Forwarded and X-Forwarded-* values are kept. */
  readonly trust: boolean;
  /** The RFC 7239 `for=` of the peer. */
  readonly forPart: string;
  /** The Forwarded element for the last Host seen on this connection (clients keep sending the same one). */
  host: string | undefined;
  element: string;
}

const CLIENT_FACTS = Symbol('svc.forwarding');
type ClientSocket = Socket & { [CLIENT_FACTS]?: ClientFacts };
const NO_HEADERS: IncomingHttpHeaders = Object.freeze({});

function clientFacts(req: IncomingMessage, trusted: BlockList | undefined): ClientFacts {
  const socket = req.socket as ClientSocket;
  const known = socket[CLIENT_FACTS];
  if (known !== undefined && known.trusted === trusted) return known;
  const peer = clientAddress(socket.remoteAddress);
  const family = isIP(peer);
  const facts: ClientFacts = {
    trusted,
    peer,
    proto: (socket as TLSSocket).encrypted ? 'https' : 'http',
    trust: trusted !== undefined && family !== 0 && trusted.check(peer, family === 6 ? 'ipv6' : 'ipv4'),
    forPart: `for=${family === 6 ? `"[${peer}]"` : quoted(peer)}`,
    host: undefined,
    element: '',
  };
  socket[CLIENT_FACTS] = facts;
  return facts;
}

/** RFC 7239 and the X-Forwarded-* de-facto fields: appended to a trusted peer's values, else replacing them. */
function addForwarding(out: string[], req: IncomingMessage, facts: ClientFacts): void {
  const { peer, proto } = facts;
  const host = req.headers.host;
  if (facts.element === '' || facts.host !== host) {
    facts.host = host;
    facts.element = `${facts.forPart}${host === undefined ? '' : `;host=${quoted(host)}`};proto=${proto}`;
  }
  const element = facts.element;
  const h = facts.trust ? req.headers : NO_HEADERS;
  out.push('forwarded', h.forwarded ? `${h.forwarded}, ${element}` : element);
  out.push('x-forwarded-for', h['x-forwarded-for'] ? `${h['x-forwarded-for'] as string}, ${peer}` : peer);
  out.push('x-forwarded-proto', (h['x-forwarded-proto'] as string | undefined) ?? proto);
  const forwardedHost = (h['x-forwarded-host'] as string | undefined) ?? host;
  if (forwardedHost !== undefined) out.push('x-forwarded-host', forwardedHost);
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

const OWN_VIA_11 = `1.1 ${VIA_NAME}`;

function appendVia(previous: unknown, version: string): string {
  const own = version === '1.1' ? OWN_VIA_11 : `${version} ${VIA_NAME}`;
  return typeof previous === 'string' && previous !== '' ? `${previous}, ${own}` : own;
}

/**
 * The backend's status and end-to-end headers become the exchange's (and so the client's). Content-Length
 * travels with the body instead; Svc* names are the facade's own, from a backend as from a client.
 */
export function applyBackendResponse(ex: Exchange, res: Pick<IncomingMessage, 'statusCode' | 'headers' | 'httpVersion'>, statusHeader: string): void {
  const headers = ex.message.headers;
  const listed = connectionOptions(res.headers.connection);
  headers.set(statusHeader, res.statusCode);
  if (res.headers['content-type'] === undefined) headers.delete('content-type');
  for (const [name, value] of Object.entries(res.headers)) {
    if (HOP_BY_HOP.has(name) || name === 'content-length' || name === 'via' || isInternalName(name) || value === undefined || listed.includes(name)) continue;
    headers.set(name, value);
  }
  headers.set('via', appendVia(res.headers.via, res.httpVersion));
}
