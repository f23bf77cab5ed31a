// The client certificate a TLS connection presented (svc.server.tls.clientAuth): what a route, a `mutualTLS`
// requirement and the access log read as `ex.clientCertificate`, and what `to:` backends are told in
// X-Forwarded-Client-Cert (svc.server.tls.forwardClientCert). Read once per connection: every request on it
// (HTTP/1.1 keep-alive, HTTP/2 streams) presented the same certificate.
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { PeerCertificate, TLSSocket } from 'node:tls';

export interface ClientCertificate {
  /** The subject as an RFC 4514 string, most specific first: `CN=alice,O=Example`. */
  readonly subject: string;
  /** The subject alternative names as node spells their kinds: `DNS:a.example`, `URI:spiffe://x`, `IP Address:10.0.0.1`, `email:a@b`. */
  readonly subjectAltNames: readonly string[];
  /** The certificate was verified against svc.server.tls.caFile; false with clientAuth `request` and a certificate that was not. */
  readonly authorized: boolean;
  /** SHA-256 of the certificate (DER), lower-case hex. */
  readonly sha256: string;
}

const NONE = Symbol('no certificate');
const seen = new WeakMap<object, ClientCertificate | typeof NONE>();

/** The certificate the request's connection presented; undefined on plaintext and when none was presented. */
export function clientCertificateOf(req: IncomingMessage | undefined): ClientCertificate | undefined {
  const socket = req?.socket as TLSSocket | undefined;
  if (socket === undefined || socket === null || socket.encrypted !== true) return undefined;
  // An HTTP/2 request's socket is a proxy made per request: the session's socket is the one to remember.
  const key = ((req as { stream?: { session?: { socket?: object } } }).stream?.session?.socket ?? socket) as object;
  let found = seen.get(key);
  if (found === undefined) {
    found = describe(socket.getPeerCertificate(), socket.authorized === true) ?? NONE;
    seen.set(key, found);
  }
  return found === NONE ? undefined : found;
}

function describe(peer: PeerCertificate | null | undefined, authorized: boolean): ClientCertificate | undefined {
  if (peer === null || peer === undefined || peer.raw === undefined) return undefined;
  return Object.freeze({
    subject: distinguishedName(peer.subject),
    subjectAltNames: Object.freeze(splitAltNames(peer.subjectaltname)),
    authorized,
    sha256: createHash('sha256').update(peer.raw).digest('hex'),
  });
}

/** RFC 4514: the certificate's RDNs in reverse order, special characters escaped. */
function distinguishedName(subject: Readonly<Record<string, string | string[] | undefined>> | undefined): string {
  if (subject === undefined) return '';
  const parts: string[] = [];
  for (const [type, value] of Object.entries(subject)) for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) parts.push(`${type}=${escapeValue(one)}`);
  return parts.reverse().join(',');
}

function escapeValue(value: string): string {
  return value.replace(/[,+"\\<>;=]/g, '\\$&').replace(/^[ #]/, '\\$&').replace(/ $/, '\\ ');
}

/** Node joins the names with `, ` and quotes a value that holds one (JSON string syntax). */
const ALT_NAME = /([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)(?:, |$)/g;

function splitAltNames(text: string | undefined): string[] {
  if (text === undefined || text === '') return [];
  const out: string[] = [];
  for (const [, kind, raw] of text.matchAll(ALT_NAME)) out.push(`${kind}:${raw!.startsWith('"') ? (JSON.parse(raw!) as string) : raw}`);
  return out;
}

/**
 * The X-Forwarded-Client-Cert value (Envoy's format) for a verified certificate: `Hash=<sha256>;Subject="...";
 * URI=...;DNS=...`; undefined when the request's connection presented none that was verified.
 */
export function forwardedClientCert(req: IncomingMessage | undefined): string | undefined {
  const cert = clientCertificateOf(req);
  if (cert === undefined || !cert.authorized) return undefined;
  let value = `Hash=${cert.sha256};Subject="${cert.subject.replace(/["\\]/g, '\\$&')}"`;
  for (const name of cert.subjectAltNames) {
    if (name.startsWith('URI:')) value += `;URI=${quotedIfNeeded(name.slice(4))}`;
    else if (name.startsWith('DNS:')) value += `;DNS=${quotedIfNeeded(name.slice(4))}`;
  }
  return value;
}

function quotedIfNeeded(value: string): string {
  return /[;,="\s]/.test(value) ? `"${value.replace(/["\\]/g, '\\$&')}"` : value;
}

export const CLIENT_CERT_HEADER = 'x-forwarded-client-cert';
