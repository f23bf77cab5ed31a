// Request fields by which proxies, CDNs and load balancers tell a backend who the client is, how it
// connected, which URL or method it "really" asked for, or which certificate it showed. A backend may
// believe them (Spring's ForwardedHeaderFilter, Tomcat's RemoteIpValve, Symfony's trusted headers, IIS URL
// rewriting, method-override middleware), so they only cross the facade from a trusted proxy.

/** The family by name (lower-cased), besides the prefixes below. */
const NAMES: ReadonlySet<string> = new Set([
  // RFC 7239 and its predecessors
  'forwarded', 'forwarded-for', 'forwarded-proto', 'x-forwarded', 'x-host', 'x-url-scheme', 'front-end-https',
  // the client address, as CDNs and load balancers name it
  'x-real-ip', 'true-client-ip', 'cf-connecting-ip', 'cf-connecting-ipv6', 'cf-ipcountry', 'x-client-ip', 'x-cluster-client-ip',
  'fastly-client-ip', 'x-proxyuser-ip', 'x-originating-ip', 'x-remote-ip', 'x-remote-addr', 'client-ip', 'x-envoy-external-address',
  'x-azure-clientip', 'x-azure-socketip', 'x-appengine-user-ip',
  // the URL or method the request "really" is
  'x-rewrite-url', 'x-http-method-override', 'x-http-method', 'x-method-override',
  // the client certificate a TLS-terminating proxy saw
  'x-client-cert', 'x-client-verify', 'ssl-client-cert', 'ssl-client-verify', 'x-arr-clientcert', 'x-amzn-mtls-clientcert',
]);

/** Whole sub-families: X-Forwarded-* (For, Host, Proto, Port, Prefix, Server, Scheme, Ssl, Uri, Client-Cert...), X-Original-* (URL, URI, Host, Method...), X-SSL-Client-*, X-Envoy-*. */
const PREFIXES = ['x-forwarded-', 'x-original-', 'x-ssl-', 'x-envoy-'] as const;

/**
 * The first two characters of every name and prefix (`x-`, `cf`, `tr`...), as a 128×128 table: most fields of
 * a request (`host`, `accept`, `content-type`, `user-agent`) are told apart by one lookup, without hashing
 * the name for the Set. It runs for every field of every forwarded request.
 */
const STARTS = new Uint8Array(128 * 128);
for (const name of [...NAMES, ...PREFIXES]) STARTS[(name.charCodeAt(0) << 7) | name.charCodeAt(1)] = 1;

const UNDERSCORE = 0x5f;
const HYPHEN = 0x2d;

/**
 * True when a lower-cased field name belongs to the forwarding family, `_` read as `-`: CGI, PHP, WSGI and
 * Rack backends see `X_Real_IP` and `X-Real-IP` as the same variable (HTTP_X_REAL_IP).
 */
export function isForwardingField(name: string): boolean {
  const first = name.charCodeAt(0);
  let second = name.charCodeAt(1);
  if (second === UNDERSCORE) second = HYPHEN;
  if (first > 0x7f || second > 0x7f || STARTS[(first << 7) | second] === 0) return false;
  const key = name.includes('_') ? name.replace(/_/g, '-') : name;
  if (NAMES.has(key)) return true;
  for (const prefix of PREFIXES) if (key.startsWith(prefix)) return true;
  return false;
}
