// Request fields a browser sets itself and a web page cannot: the Fetch standard's forbidden request-header
// names (Origin, Referer, Cookie, Host, every Sec-* and Proxy-*...) and X-Requested-With, which a cross-site
// form cannot send either. Backends build their CSRF defences on them (Origin and Sec-Fetch-Site checks,
// "X-Requested-With present, so not a form"), so a query or path parameter never becomes one of them: as
// Camel turns query parameters into headers, `POST /pet?sec-fetch-site=same-origin` from a cross-site form
// would otherwise reach the backend as a same-origin request.

/** By lower-case name, besides the prefixes below (Fetch: "forbidden request-header names"). */
const NAMES: ReadonlySet<string> = new Set([
  'origin', 'referer', 'cookie', 'cookie2', 'host', 'x-requested-with', 'authorization', 'date', 'dnt', 'via',
  'accept-charset', 'accept-encoding', 'access-control-request-headers', 'access-control-request-method',
  'access-control-request-private-network', 'connection', 'content-length', 'expect', 'keep-alive', 'set-cookie',
  'te', 'trailer', 'transfer-encoding', 'upgrade',
]);

const PREFIXES = ['sec-', 'proxy-'] as const;

/** True when a lower-cased name is a field only a browser sets (`_` read as `-`, as CGI, PHP and Rack backends read it). */
export function isBrowserOnlyField(name: string): boolean {
  const key = name.includes('_') ? name.replace(/_/g, '-') : name;
  if (NAMES.has(key)) return true;
  for (const prefix of PREFIXES) if (key.startsWith(prefix)) return true;
  return false;
}
