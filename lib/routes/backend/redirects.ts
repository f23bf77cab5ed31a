// followRedirects=true: where a 3xx answer leads, with the method and headers the next request keeps
// (as fetch does: 303, and 301/302 after POST, become GET without a body; to another origin goes only what
// the client itself sent, without its credentials).
import type { IncomingMessage } from 'node:http';
import { addressOf, type BackendEndpoint } from './endpoint.js';
import { crossOriginHeaders, redirectedHeaders } from './headers.js';

/** One request of a forwarded call: where it goes and what it sends. */
export interface Hop {
  endpoint: BackendEndpoint;
  path: string;
  method: string;
  /** Flat name/value list, Host first (see backendRequestHeaders). */
  headers: string[];
  payload: string | Buffer | undefined;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Fields that describe a body the next request no longer sends. */
const BODY_FIELDS = ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location'];

/**
 * The next hop for a redirect; undefined to pass the answer to the client (not a redirect); a string to pass
 * it and say why it was not followed (an unusable Location, an origin `route` does not allow, https to http). A hop to another origin still has its address checked (redirect-guard.ts checkedHop).
 */
export function redirectTarget(hop: Hop, res: Pick<IncomingMessage, 'statusCode' | 'headers'>, route: BackendEndpoint): Hop | string | undefined {
  const location = res.headers.location;
  if (!REDIRECTS.has(res.statusCode ?? 0) || location === undefined) return undefined;
  const from = hop.endpoint;
  const base = `${from.origin}${hop.path}`;
  if (!URL.canParse(location, base)) return 'its Location is not a URL';
  const url = new URL(location, base);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `its Location is not http(s) but ${url.protocol}`;
  if (url.origin !== from.origin) {
    const refused = refusedOrigin(url, route);
    if (refused !== undefined) return refused;
  }
  let { method, payload, headers } = hop;
  if (res.statusCode === 303 ? method !== 'HEAD' : (res.statusCode === 301 || res.statusCode === 302) && method === 'POST') {
    method = 'GET';
    payload = undefined;
    headers = redirectedHeaders(headers, BODY_FIELDS);
  }
  if (url.origin === from.origin) return { endpoint: from, path: `${url.pathname}${url.search}`, method, headers, payload };
  // Another origin: never from https down to http, and without what identifies the facade (or the client) to its own backend.
  const address = addressOf(url);
  if (from.https && !address.https) return 'it leads from https down to http';
  headers = crossOriginHeaders(headers, url.host);
  const endpoint: BackendEndpoint = {
    ...from,
    ...address,
    options: { ...from.options, cert: undefined, key: undefined },
    // Set once its address is checked (checkedHop), never inherited from the hop before.
    connectOrigin: undefined,
    // One pool for all the origins this endpoint redirects to: a backend's Location cannot grow the pools.
    poolKey: `redirected ${url.protocol} ${from.poolKey}`,
  };
  return { endpoint, path: `${url.pathname}${url.search}`, method, headers, payload };
}

/** Why a redirect to `url` is not followed, before any address is looked at; undefined when its origin may be followed. */
function refusedOrigin(url: URL, route: BackendEndpoint): string | undefined {
  if (url.origin === route.origin || route.options.redirectOrigins.has(url.origin)) return undefined;
  return 'its origin is neither the route\'s own nor listed in redirectOrigins';
}
