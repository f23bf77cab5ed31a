// What every `to: http(s)://` step of a facade shares: the global backend options, the trusted upstream
// proxies, and one keep-alive connection pool per backend origin (and TLS settings), closed with the facade,
// where a new connection waits at most connectTimeout and a request for a busy pool at most queueTimeout.
import { Agent as HttpAgent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { BlockList, isIP } from 'node:net';
import type { BackendOptions } from './options.js';
import { Errors, svcError } from '../../errors.js';
import type { BackendEndpoint } from './endpoint.js';

export interface BackendContext {
  readonly options: BackendOptions;
  /** svc.server.maxBodySize: also bounds request bodies streamed to a backend. */
  readonly maxBodySize: number;
  /** Where relative caFile/certFile/keyFile paths are found. */
  readonly baseDir: string;
  /** Peers whose Forwarded / X-Forwarded-* values are kept and appended to; undefined: none. */
  readonly trusted: BlockList | undefined;
  /** The pool for an endpoint's origin and TLS settings, made on first use. */
  agent(endpoint: BackendEndpoint): HttpAgent;
  /** Closes every pooled connection (the facade stops). */
  close(): void;
}

export function createBackendContext(options: BackendOptions, maxBodySize: number, baseDir: string): BackendContext {
  const pools = new Map<string, HttpAgent>();
  const trusted = parseTrustedProxies(options.trustedProxies);
  return {
    options,
    maxBodySize,
    baseDir,
    trusted,
    agent(endpoint) {
      let agent = pools.get(endpoint.poolKey);
      if (agent === undefined) {
        // `timeout` is the idle time after which a pooled socket is closed; requests set their own.
        const common = { keepAlive: true, maxSockets: options.maxConnections, maxFreeSockets: options.maxConnections, timeout: options.idleTimeout, scheduling: 'lifo' as const };
        const { ca, cert, key } = endpoint.options;
        agent = endpoint.https ? new HttpsAgent({ ...common, ...(ca && { ca }), ...(cert && key && { cert, key }) }) : new HttpAgent(common);
        boundConnections(agent, endpoint.https);
        boundQueue(agent, options.queueTimeout);
        pools.set(endpoint.poolKey, agent);
      }
      return agent;
    },
    close() {
      for (const agent of pools.values()) agent.destroy();
      pools.clear();
    },
  };
}

/** A new connection (TCP, and TLS for https) that took longer than the request's connectTimeout. */
export class ConnectTimeout extends Error {}

/**
 * New connections give up after the `connectTimeout` of the request that asked for them (a request option
 * node passes through to here): one timer per new connection instead of a listener and a timer per request.
 */
function boundConnections(agent: HttpAgent, https: boolean): void {
  const connect = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = connect(options, callback);
    const limit = (options as { connectTimeout?: number }).connectTimeout;
    if (socket == null || limit === undefined) return socket;
    const timer = setTimeout(() => socket.destroy(new ConnectTimeout(`no connection within ${limit} ms`)), limit);
    const settle = (): void => clearTimeout(timer);
    socket.once(https ? 'secureConnect' : 'connect', settle);
    socket.once('close', settle);
    return socket;
  };
}

/** A request that waited longer than svc.backend.queueTimeout for a pooled connection (all maxConnections busy). */
export class QueueTimeout extends Error {}

type QueueingAgent = HttpAgent & { addRequest(req: ClientRequest, options: object): void; requests: Record<string, ClientRequest[] | undefined> };
/** How an agent hands a request its socket, or the error that stands for one (node's own Agent calls it so). */
type WaitingRequest = ClientRequest & { onSocket(socket: null, err: Error): void };

/**
 * A request the pool cannot serve at once (maxConnections busy) waits in the agent's queue, without limit in
 * node: slow uploads holding every connection would hold every later request too. One that waits longer than
 * `limit` leaves the queue and fails with a QueueTimeout (a 503 with Retry-After), as a request whose
 * connection could not be made fails. Only queued requests get a timer.
 */
function boundQueue(agent: HttpAgent, limit: number): void {
  const queueing = agent as QueueingAgent;
  const add = queueing.addRequest.bind(agent);
  queueing.addRequest = (req, options) => {
    add(req, options);
    // One queue per origin the agent serves (redirects aside, one); the request was queued if it is last in one.
    for (const name in queueing.requests) {
      if (queueing.requests[name]?.at(-1) !== req) continue;
      const timer = setTimeout(() => {
        const queue = queueing.requests[name];
        const at = queue?.indexOf(req) ?? -1;
        // Destroying a queued request alone would report nothing until a connection came free.
        if (at === -1) return;
        queue!.splice(at, 1);
        if (queue!.length === 0) delete queueing.requests[name];
        (req as WaitingRequest).onSocket(null, new QueueTimeout(`no pooled connection became free within ${limit} ms`));
      }, limit);
      const settle = (): void => clearTimeout(timer);
      req.once('socket', settle);
      req.once('close', settle);
      return;
    }
  };
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
