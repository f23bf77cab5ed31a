// A `to: http(s)://` endpoint compiled once at startup: its target, and its options (Camel style: in the URI
// query, or in YAML `parameters` / the fluent `to(uri, parameters)`), which are taken out of the URI sent.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import type { BackendOptions } from '../../config/backend-options.js';
import { parseDuration } from '../../config/units.js';
import { parseRedirectOrigins } from './forbidden-addresses.js';

export interface EndpointOptions {
  /** No byte to or from the backend for this long → 504. */
  timeout: number;
  /** Establishing a new connection (TCP, and TLS for https) taking longer → 504. */
  connectTimeout: number;
  /** Follow 3xx answers with a Location instead of passing them to the client. */
  followRedirects: boolean;
  /** Append the request path after the base path (header SvcHttpPath) to the endpoint's path. */
  forwardPath: boolean;
  /** Origins besides its own a redirect may lead to (redirect-guard.ts). */
  redirectOrigins: ReadonlySet<string>;
  /** Retries of a request the contract makes safe to send again (retry.ts); 0: none. */
  retries: number;
  retryDelay: number;
  retryMaxDelay: number;
  /** The whole request until the answer's head, across retries → 504 when spent. */
  requestTimeout: number;
  /** https only: h2 offered by ALPN beside http/1.1; the backend chooses. */
  http2: boolean;
  /** PEM contents (read at startup) for https: trusted CAs, client certificate and key. */
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
}

export interface BackendEndpoint {
  readonly https: boolean;
  readonly hostname: string;
  readonly port: number;
  /** TLS server name indication: host names only, never IP addresses. */
  readonly servername: string | undefined;
  /** `http://host:port`: the only part of the URI that error bodies name. */
  readonly origin: string;
  /** The Host field sent: `host[:port]`, the port only when not the scheme's default. */
  readonly host: string;
  /** The path the URI names, without a trailing `/` when forwardPath appends another. */
  readonly path: string;
  /** The query the URI keeps after its options are taken out, with `?`; empty when none. */
  readonly search: string;
  readonly options: EndpointOptions;
  /** Identifies the TLS settings and connectTimeout, so endpoints sharing an origin and settings share a connection pool. */
  readonly poolKey: string;
  /** A redirect's target only: the checked address undici connects to (`origin` keeps the host name for Host and TLS). */
  readonly connectOrigin?: string;
}

const OPTION_NAMES = ['timeout', 'connectTimeout', 'followRedirects', 'redirectOrigins', 'forwardPath', 'caFile', 'certFile', 'keyFile', 'retries', 'retryDelay', 'retryMaxDelay', 'requestTimeout', 'http2'] as const;
const ALLOWED = OPTION_NAMES.join(', ');

/** Parses the URI and its options; throws an Error naming the option and its allowed values (startup only). */
export function compileEndpoint(uri: string, parameters: Readonly<Record<string, unknown>> | undefined, defaults: BackendOptions, baseDir: string): BackendEndpoint {
  // Said once at startup rather than by every request: a URL no request can use.
  if (!URL.canParse(uri)) throw new Error(`to ${uri}: not a valid URL`);
  const url = new URL(uri);
  if (url.username !== '' || url.password !== '') throw new Error(`to ${url.protocol}//${url.host}${url.pathname}: credentials in the URL are not sent; set an Authorization header instead`);
  const where = `to ${url.origin}${url.pathname}`;
  const given = new Map<string, string>();
  for (const [name, value] of url.searchParams) {
    const known = OPTION_NAMES.find((o) => o === name);
    if (known) given.set(known, value);
  }
  for (const [name, value] of Object.entries(parameters ?? {})) {
    const known = OPTION_NAMES.find((o) => o.toLowerCase() === name.toLowerCase());
    if (!known) throw new Error(`${where}: unknown parameter ${name}; allowed: ${ALLOWED}`);
    given.set(known, String(value));
  }
  const address = addressOf(url);
  const { https } = address;
  const file = (name: 'caFile' | 'certFile' | 'keyFile'): Buffer | undefined => {
    const value = given.get(name);
    if (value === undefined) return undefined;
    if (!https) throw new Error(`${where}: ${name} applies to https:// backends only`);
    const path = isAbsolute(value) ? value : resolve(baseDir, value);
    try {
      return readFileSync(path);
    } catch (err) {
      throw new Error(`${where}: ${name} ${path} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  };
  const timeout = duration(given.get('timeout'), defaults.timeout, where, 'timeout');
  const options: EndpointOptions = {
    timeout,
    connectTimeout: duration(given.get('connectTimeout'), defaults.connectTimeout, where, 'connectTimeout'),
    followRedirects: flag(given.get('followRedirects'), where, 'followRedirects'),
    forwardPath: flag(given.get('forwardPath'), where, 'forwardPath'),
    redirectOrigins: origins(given.get('redirectOrigins') ?? defaults.redirectOrigins, where),
    retries: count(given.get('retries'), defaults.retries, where, 'retries'),
    retryDelay: duration(given.get('retryDelay'), defaults.retryDelay, where, 'retryDelay'),
    retryMaxDelay: duration(given.get('retryMaxDelay'), defaults.retryMaxDelay, where, 'retryMaxDelay'),
    requestTimeout: duration(given.get('requestTimeout'), defaults.requestTimeout ?? timeout, where, 'requestTimeout'),
    http2: http2(given.get('http2'), https, defaults.http2, where),
  };
  if (options.retryMaxDelay < options.retryDelay) throw new Error(`${where}: retryMaxDelay (${options.retryMaxDelay} ms) is below retryDelay (${options.retryDelay} ms)`);
  const ca = file('caFile');
  const cert = file('certFile');
  const key = file('keyFile');
  if ((cert === undefined) !== (key === undefined)) throw new Error(`${where}: certFile and keyFile go together`);
  if (ca) options.ca = ca;
  if (cert && key) {
    options.cert = cert;
    options.key = key;
  }
  // The rest of the query is sent as written (re-serializing would turn `%20` into `+`).
  const kept = url.search.slice(1).split('&').filter((pair) => pair !== '' && !given.has(decodeURIComponent(pair.split('=')[0]!)));
  const search = kept.length > 0 ? `?${kept.join('&')}` : '';
  const path = options.forwardPath ? url.pathname.replace(/\/+$/, '') : url.pathname;
  // connectTimeout too: it is a setting of the pool's connector (undici), not of a request.
  const poolKey = `${url.origin}|${options.connectTimeout}|${options.http2 ? 'h2' : ''}|${given.get('caFile') ?? ''}|${given.get('certFile') ?? ''}|${given.get('keyFile') ?? ''}`;
  return { ...address, path, search, options, poolKey };
}

/** Where a request to `url` connects and what it names as Host (the URL of an endpoint, or of a redirect). */
export function addressOf(url: URL): Pick<BackendEndpoint, 'https' | 'hostname' | 'port' | 'servername' | 'origin' | 'host'> {
  const https = url.protocol === 'https:';
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  return { https, hostname, port: Number(url.port) || (https ? 443 : 80), servername: https && isIP(hostname) === 0 ? hostname : undefined, origin: url.origin, host: url.host };
}

function duration(value: string | undefined, fallback: number, where: string, name: string): number {
  if (value === undefined) return fallback;
  const ms = parseDuration(value);
  if (ms === undefined || ms === 0) throw new Error(`${where}: ${name} has invalid value ${JSON.stringify(value)}; allowed: milliseconds above 0, or a number with ms, s or m (e.g. 10s)`);
  return ms;
}

function origins(value: string, where: string): ReadonlySet<string> {
  try {
    return parseRedirectOrigins(value);
  } catch (err) {
    throw new Error(`${where}: ${(err as Error).message}`);
  }
}

/** A retry count: 0 to 10, as svc.backend.retries. */
function count(value: string | undefined, fallback: number, where: string, name: string): number {
  if (value === undefined) return fallback;
  if (/^\d+$/.test(value) && Number(value) <= 10) return Number(value);
  throw new Error(`${where}: ${name} has invalid value ${JSON.stringify(value)}; allowed: an integer from 0 to 10`);
}

/** h2 is chosen by ALPN, which only TLS has: asked of an http:// endpoint it is a startup error; the global default leaves http:// on HTTP/1.1. */
function http2(value: string | undefined, https: boolean, fallback: boolean, where: string): boolean {
  if (value === undefined) return https && fallback;
  const on = flag(value, where, 'http2');
  if (on && !https) throw new Error(`${where}: http2 applies to https:// backends only (h2 is chosen by ALPN in the TLS handshake)`);
  return on;
}

function flag(value: string | undefined, where: string, name: string): boolean {
  if (value === undefined) return false;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Error(`${where}: ${name} has invalid value ${JSON.stringify(value)}; allowed: true, false`);
}
