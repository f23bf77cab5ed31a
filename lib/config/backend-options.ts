// The global options of `to: http(s)://` backends (svc.backend.*) and their defaults.

export interface BackendOptions {
  maxConnections: number;
  idleTimeout: number;
  timeout: number;
  connectTimeout: number;
  maxResponseSize: number;
  /** Comma-separated addresses and CIDR ranges whose X-Forwarded-* and Forwarded values are kept. */
  trustedProxies: string;
  /** How long a request waits for a pooled connection when all maxConnections are busy → 503 with Retry-After. */
  queueTimeout: number;
  /** 502/504 problem details name the backend's origin (it is always in the log line). */
  exposeOrigin: boolean;
  /** Comma-separated origins besides a route's own that followRedirects may lead to (an endpoint's own option replaces it). */
  redirectOrigins: string;
  /** Retries of a request the contract makes safe to send again (retry.ts); 0: none, and nothing is paid for them. */
  retries: number;
  /** Backoff before a retry: decorrelated jitter from retryDelay up to retryMaxDelay (also the most of a Retry-After honoured). */
  retryDelay: number;
  retryMaxDelay: number;
  /** Finagle's retry budget per backend origin: retries at most this percent of the requests of the last 10 s ... */
  retryBudgetPercent: number;
  /** ... plus this many retries a second. */
  retryBudgetMinPerSecond: number;
  /** A streamed request body is kept for a retry up to this size; a larger one is not retried. */
  maxRetryBodySize: number;
  /** The whole request across its retries, until the answer's head; undefined: the endpoint's `timeout`. */
  requestTimeout: number | undefined;
  /** https:// backends are offered h2 by ALPN (and spoken to over HTTP/2 when they choose it); off: HTTP/1.1 only. */
  http2: boolean;
}

export const BACKEND_DEFAULTS: BackendOptions = {
  maxConnections: 256,
  // Below node's and most servers' 5 s keep-alive, so the pool drops a connection before the backend does.
  idleTimeout: 4_000,
  timeout: 30_000,
  connectTimeout: 10_000,
  maxResponseSize: 10 * 1024 * 1024,
  trustedProxies: '',
  queueTimeout: 10_000,
  exposeOrigin: false,
  redirectOrigins: '',
  retries: 2,
  retryDelay: 25,
  retryMaxDelay: 250,
  retryBudgetPercent: 20,
  retryBudgetMinPerSecond: 10,
  maxRetryBodySize: 64 * 1024,
  requestTimeout: undefined,
  http2: false,
};
