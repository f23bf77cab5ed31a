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

/** The next hop for a redirect, or undefined to pass the answer to the client (not a redirect, or an unusable Location). */
export function redirectTarget(hop: Hop, res: Pick<IncomingMessage, 'statusCode' | 'headers'>): Hop | undefined {
  const location = res.headers.location;
  if (!REDIRECTS.has(res.statusCode ?? 0) || location === undefined) return undefined;
  const from = hop.endpoint;
  const base = `${from.origin}${hop.path}`;
  if (!URL.canParse(location, base)) return undefined;
  const url = new URL(location, base);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  let { method, payload, headers } = hop;
  if (res.statusCode === 303 ? method !== 'HEAD' : (res.statusCode === 301 || res.statusCode === 302) && method === 'POST') {
    method = 'GET';
    payload = undefined;
    headers = redirectedHeaders(headers, BODY_FIELDS);
  }
  if (url.origin === from.origin) return { endpoint: from, path: `${url.pathname}${url.search}`, method, headers, payload };
  // Another origin: never from https down to http, and without what identifies the facade (or the client) to its own backend.
  const address = addressOf(url);
  if (from.https && !address.https) return undefined;
  headers = crossOriginHeaders(headers, url.host);
  const endpoint: BackendEndpoint = {
    ...from,
    ...address,
    options: { ...from.options, cert: undefined, key: undefined },
    // One pool for all the origins this endpoint redirects to: a backend's Location cannot grow the pools.
    poolKey: `redirected ${url.protocol} ${from.poolKey}`,
  };
  return { endpoint, path: `${url.pathname}${url.search}`, method, headers, payload };
}
