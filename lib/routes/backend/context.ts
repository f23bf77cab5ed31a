// What every `to: http(s)://` step of a facade shares: the global backend options, the trusted upstream
// proxies, and one keep-alive connection pool per backend origin (and TLS settings and connectTimeout),
// closed with the facade. The pools are undici's (Node's own HTTP client, under fetch): it writes a request's
// framing itself and refuses a body that does not match its Content-Length. A call for a pool whose
// maxConnections are all busy waits here, in the pool's own queue, at most queueTimeout.
import { BlockList, isIP } from 'node:net';
import type { Agent, buildConnector, Dispatcher, Pool } from 'undici';
import type { BackendOptions } from '../../config/backend-options.js';
import { Errors, svcError } from '../../util/errors.js';
import type { Socket } from 'node:net';
import { skipInterimAnswers } from './interim-answers.js';
import { silentLogger, type Logger } from '../../util/log.js';
import type { BackendEndpoint } from './endpoint.js';
import { OriginStats } from './origin-stats.js';
import type { RetrySafety } from './retry-safety.js';

export interface BackendContext {
  readonly options: BackendOptions;
  /** svc.server.maxBodySize: also bounds request bodies streamed to a backend. */
  readonly maxBodySize: number;
  /** Where relative caFile/certFile/keyFile paths are found. */
  readonly baseDir: string;
  /** Peers whose Forwarded / X-Forwarded-* values are kept and appended to; undefined: none. */
  readonly trusted: BlockList | undefined;
  /** svc.security.principalHeader, lower-cased: the facade's own field naming the principal; undefined: off. */
  readonly principalHeader: string | undefined;
  /** Where a backend call says what it decided without failing (a redirect not followed). */
  readonly logger: Logger;
  /** svc.server.tls.forwardClientCert: X-Forwarded-Client-Cert is the facade's, never the client's. */
  readonly forwardClientCert: boolean;
  /** The pool for an endpoint's origin and TLS settings, made on first use. */
  pool(endpoint: BackendEndpoint): BackendPool;
  /** Closes every pooled connection (the facade stops). */
  close(): void;
  /** An origin's counters and retry budget, made on first use (at startup, by the steps that forward to it). */
  origin(origin: string): OriginStats;
  readonly origins: ReadonlyMap<string, OriginStats>;
  /** What the contract says about retrying an operation's requests; undefined for an exchange of no operation. */
  retrySafety(operationId: unknown): RetrySafety | undefined;
  /** The circuitBreaker steps of the routes (for metrics), registered as they are compiled. */
  readonly breakers: { route: string; breaker: BreakerView }[];
  /** The loadBalance steps of the routes (for metrics and readiness). */
  readonly balancers: { route: string; balancer: { readonly size: number; ejected(now: number): number } }[];
}

/** What metrics read of a circuit breaker (lib/routes/circuit-breaker.ts). */
export interface BreakerView {
  readonly state: 'closed' | 'open' | 'halfOpen';
  /** Calls answered without the breaker's steps because it was open. */
  readonly rejected: number;
}

/** What a facade's backends take from the rest of its configuration and its contract. */
export interface BackendSettings {
  maxBodySize: number;
  baseDir: string;
  principalHeader?: string | undefined;
  logger?: Logger;
  forwardClientCert?: boolean;
  /** Per operation id, what the contract says about sending its requests again. */
  retrySafety?: ReadonlyMap<string, RetrySafety>;
}

export function createBackendContext(options: BackendOptions, settings: BackendSettings): BackendContext {
  const { maxBodySize, baseDir, principalHeader, logger = silentLogger, forwardClientCert = false, retrySafety: safety = new Map() } = settings;
  const pools = new Map<string, BackendPool>();
  const origins = new Map<string, OriginStats>();
  const trusted = parseTrustedProxies(options.trustedProxies);
  return {
    options,
    maxBodySize,
    baseDir,
    trusted,
    principalHeader,
    logger,
    forwardClientCert,
    origins,
    breakers: [],
    balancers: [],
    origin(origin) {
      let stats = origins.get(origin);
      if (stats === undefined) origins.set(origin, (stats = new OriginStats(options)));
      return stats;
    },
    retrySafety: (operationId) => (typeof operationId === 'string' ? safety.get(operationId) : undefined),
    pool(endpoint) {
      let pool = pools.get(endpoint.poolKey);
      if (pool === undefined) {
        pool = new BackendPool((loaded) => createDispatcher(loaded, endpoint, options), options.maxConnections, options.queueTimeout);
        pools.set(endpoint.poolKey, pool);
      }
      return pool;
    },
    close() {
      for (const pool of pools.values()) pool.close();
      pools.clear();
    },
  };
}

/** undici's two dispatchers, loaded on first need (see loadClient). */
interface Client {
  Pool: typeof Pool;
  Agent: typeof Agent;
  buildConnector: typeof buildConnector;
  /** Where undici keeps a socket's parser (interim-answers.ts reads its state). */
  kParser: symbol;
}
let client: Client | undefined;
let loading: Promise<Client> | undefined;

/**
 * undici is bundled but only its Pool and Agent modules are imported (its index brings fetch, WebSocket...),
 * and only once a route forwards (a facade without `to: http` steps never loads them): in the bundle the
 * import() is a deferred require, so the wait is one turn of the event loop, taken during startup.
 */
function loadClient(): Promise<Client> {
  loading ??= Promise.all([import('undici/lib/dispatcher/pool.js'), import('undici/lib/dispatcher/agent.js'), import('undici/lib/core/connect.js'), import('undici/lib/core/symbols.js')]).then(
    ([pool, agent, connect, symbols]) => (client = { Pool: pool.default, Agent: agent.default, buildConnector: connect.default, kParser: symbols.default.kParser }),
  );
  return loading;
}

/**
 * An endpoint's own origin gets a Pool; the origins its redirects lead to share one Agent (a pool per origin,
 * dropped when its connections close), so a backend's Location cannot grow the facade's pools for good.
 * Timeouts are set per request (call.ts); a pooled connection idle for idleTimeout is closed, as is one the
 * backend's Keep-Alive hint says it will close sooner.
 */
function createDispatcher({ Pool, Agent, buildConnector, kParser }: Client, endpoint: BackendEndpoint, options: BackendOptions): Dispatcher {
  const { ca, cert, key, connectTimeout, http2 } = endpoint.options;
  // http2: the connector offers h2 by ALPN; undici speaks it on a connection whose backend chose it.
  const connector = buildConnector({ timeout: connectTimeout, allowH2: http2, ...(ca && { ca }), ...(cert && key && { cert, key }) });
  // Every connection skips the interim answers undici would take for a broken one (interim-answers.ts).
  const connect: buildConnector.connector = (opts, callback) => connector(opts, (err, socket) => (err === null ? callback(null, skipInterimAnswers(socket as Socket, kParser)) : callback(err, null)));
  const common = { connections: options.maxConnections, pipelining: 1, keepAliveTimeout: options.idleTimeout, keepAliveMaxTimeout: options.idleTimeout, strictContentLength: true, connect };
  return endpoint.poolKey.startsWith(REDIRECTED) ? new Agent(common) : new Pool(endpoint.origin, common);
}

/** The poolKey prefix of the endpoints made for redirects to another origin (redirects.ts). */
const REDIRECTED = 'redirected ';

/** A request that waited longer than svc.backend.queueTimeout for a pooled connection (all maxConnections busy). */
export class QueueTimeout extends Error {}

interface Waiting {
  readonly start: () => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * One origin's connections and the calls waiting for one. A call is handed to undici only when fewer than
 * maxConnections are under way (undici's own queue has no time limit and cannot drop a request without
 * closing a connection), so one that waits longer than queueTimeout leaves the queue having touched nothing.
 */
export class BackendPool {
  private active = 0;
  private readonly waiting: Waiting[] = [];
  private made: Dispatcher | undefined;

  constructor(
    private readonly make: (client: Client) => Dispatcher,
    private readonly limit: number,
    private readonly queueTimeout: number,
  ) {
    if (client === undefined) void loadClient();
  }

  /** undici's pool, made on first use (take() has waited for undici to load). */
  get dispatcher(): Dispatcher {
    return (this.made ??= this.make(client!));
  }

  close(): void {
    void this.made?.destroy().catch(() => undefined);
    this.made = undefined;
  }

  /** Runs `start` now when a connection is free, else once one is; `expired` when none frees in time. Returns how to leave the queue. */
  take(start: () => void, expired: (err: QueueTimeout) => void): (() => void) | undefined {
    // Only a request arriving while the facade starts can get here first; the call checks it was not cut meanwhile.
    if (client === undefined) return void loadClient().then(() => this.take(start, expired));
    if (this.active < this.limit) {
      this.active++;
      start();
      return undefined;
    }
    const entry: Waiting = { start, timer: undefined };
    const leave = (): void => {
      clearTimeout(entry.timer);
      const at = this.waiting.indexOf(entry);
      if (at !== -1) this.waiting.splice(at, 1);
    };
    entry.timer = setTimeout(() => {
      leave();
      expired(new QueueTimeout(`no pooled connection became free within ${this.queueTimeout} ms`));
    }, this.queueTimeout);
    this.waiting.push(entry);
    return leave;
  }

  /** A call's request is done with its connection: the next waiting call gets it (after undici has freed it). */
  release(): void {
    const next = this.waiting.shift();
    if (next === undefined) return void this.active--;
    clearTimeout(next.timer);
    queueMicrotask(next.start);
  }
}

const ALLOWED = 'IP addresses and CIDR ranges (10.0.0.0/8, fd00::/8) separated by commas, or loopback';

function parseTrustedProxies(value: string): BlockList | undefined {
  const entries = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    if (entry === 'loopback') {
      list.addSubnet('127.0.0.0', 8, 'ipv4');
      list.addAddress('::1', 'ipv6');
      continue;
    }
    const [address = '', bits] = entry.split('/');
    const family = isIP(address);
    const prefix = bits === undefined ? undefined : Number(bits);
    if (family === 0 || (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= (family === 4 ? 32 : 128)))) {
      throw svcError(Errors.CONFIG_INVALID, 'backend options', 'backend.trustedProxies', JSON.stringify(entry), ALLOWED);
    }
    const type = family === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, prefix, type);
  }
  return list;
}
