// Cross-origin answers (docs/cors.md): preflights answered from the compiled router, so every path the contract
// declares is granted exactly the methods it declares, and the Access-Control-* fields of the one policy on
// every answer to an allowed origin, errors and the published contract included. Off (enableCORS unset), the
// dispatcher never calls in here.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FacadeConfig } from '../config/model.js';
import type { Contract } from '../contract/load.js';
import type { Operation } from '../contract/operations.js';
import { Errors, svcError } from '../util/errors.js';
import type { Logger } from '../util/log.js';
import { withRequestId } from '../message/request-id.js';
import { CORS_DEFAULTS, type CorsOptions } from './cors-options.js';
import { sendError } from './problem.js';
import { withVary } from './vary.js';
import type { PathEntry } from './router.js';

/** What the dispatcher asks of the policy for a request that carries an Origin. */
export interface CorsPolicy {
  /** Answers a preflight to a path of the contract: 204 with what it grants, or 403. */
  preflight(req: IncomingMessage, res: ServerResponse, origin: string, method: string, entry: PathEntry<unknown>): 204 | 403;
  /**
   * Marks the response so that whatever answers it carries the policy's fields when the origin is allowed, and
   * no other Access-Control-* field in any case (a backend's `*` must not grant what the policy refuses).
   */
  mark(req: IncomingMessage, res: ServerResponse, origin: string | undefined, entry: PathEntry<unknown> | undefined): void;
}

/** A preflight: OPTIONS with Access-Control-Request-Method (an OPTIONS without it is routed as any request). */
export function preflightMethod(req: IncomingMessage): string | undefined {
  return req.method === 'OPTIONS' ? req.headers['access-control-request-method'] : undefined;
}

/** The fields every request names or every page reads, whatever the operation. */
const ALWAYS_ALLOWED = ['X-Request-Id', 'traceparent', 'tracestate'];
const ALWAYS_EXPOSED = ['X-Request-Id'];
/** Fetch's CORS-safelisted request body types: a body in one of them needs no Content-Type grant. */
const SAFELISTED_BODY = new Set(['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain']);
/** Response fields a page reads without being told (Fetch's CORS-safelisted response header names). */
const SAFELISTED_RESPONSE = new Set(['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma']);
const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers';
const ORIGIN = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#\s,]+$/;

/** The options in effect: svc.cors.* under Camel's corsHeaders, which override them field by field. */
interface Effective {
  origins: ReadonlySet<string> | '*';
  credentials: boolean;
  maxAge: string;
  expose: string | undefined;
  methods: string | undefined;
  headers: string | undefined;
}

function effectiveOptions(config: FacadeConfig, source: string): Effective {
  const options: CorsOptions = { ...CORS_DEFAULTS, ...config.cors };
  const fixed = config.corsHeaders;
  const originList = fixed['Access-Control-Allow-Origin'] ?? options.allowOrigins;
  const credentials = fixed['Access-Control-Allow-Credentials'] !== undefined ? fixed['Access-Control-Allow-Credentials'].trim().toLowerCase() === 'true' : options.allowCredentials;
  const names = originList.split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const name of names) if (name !== '*' && name !== 'null' && !ORIGIN.test(name)) throw svcError(Errors.CORS_ORIGIN_INVALID, source, JSON.stringify(name));
  const any = names.length === 0 || names.includes('*');
  if (any && credentials) throw svcError(Errors.CORS_CREDENTIALS_ANY_ORIGIN, source);
  return {
    origins: any ? '*' : new Set(names),
    credentials,
    maxAge: fixed['Access-Control-Max-Age'] ?? String(options.maxAge),
    expose: fixed['Access-Control-Expose-Headers'] ?? options.exposeHeaders,
    methods: fixed['Access-Control-Allow-Methods'],
    headers: fixed['Access-Control-Allow-Headers'],
  };
}

/** The fields of one method of one path: what a preflight grants, and what its answers expose. */
interface MethodFields {
  allowHeaders: string;
  exposeHeaders: string;
}

/**
 * The policy, or undefined when restConfiguration enableCORS is off (svc.cors.* and corsHeaders set without it
 * are said to do nothing). `operationOf` tells which operation a router target serves (none for the published
 * contract and the health and metrics endpoints).
 */
export function compileCors(config: FacadeConfig, contract: Contract, operationOf: (target: unknown) => Operation | undefined, logger: Logger): CorsPolicy | undefined {
  const source = 'cors options';
  if (config.rest.enableCORS !== true) {
    if (Object.keys(config.cors).length > 0 || Object.keys(config.corsHeaders).length > 0) logger.warn('svc.cors.* and corsHeaders are set but restConfiguration enableCORS is not true: no cross-origin fields are sent');
    return undefined;
  }
  const policy = effectiveOptions(config, source);
  const facadeChecksTokens = config.endpointProperties.oauthProfile !== undefined;
  const byEntry = new WeakMap<object, Map<string, MethodFields>>();
  const methodLists = new WeakMap<object, string>();
  const fallback: MethodFields = { allowHeaders: policy.headers ?? ALWAYS_ALLOWED.join(', '), exposeHeaders: policy.expose ?? ALWAYS_EXPOSED.join(', ') };

  /** Paths are few and fixed: each method's fields are worked out on its first request and kept. */
  const fieldsOf = (entry: PathEntry<unknown>, method: string): MethodFields => {
    let methods = byEntry.get(entry);
    if (methods === undefined) byEntry.set(entry, (methods = new Map()));
    let fields = methods.get(method);
    if (fields === undefined) {
      const candidates = entry.byMethod[method] ?? (method === 'HEAD' ? entry.byMethod.GET : undefined) ?? [];
      const operations = candidates.map((c) => operationOf(c.target)).filter((op): op is Operation => op !== undefined);
      fields = {
        allowHeaders: policy.headers ?? joinNames([...ALWAYS_ALLOWED, ...(facadeChecksTokens ? ['Authorization'] : []), ...operations.flatMap((op) => requestHeaderNames(op, contract))]),
        exposeHeaders: policy.expose ?? joinNames([...ALWAYS_EXPOSED, ...operations.flatMap(responseHeaderNames)]),
      };
      methods.set(method, fields);
    }
    return fields;
  };

  /** The methods the path declares (HEAD only when declared itself: it comes with GET anyway). */
  const methodListOf = (entry: PathEntry<unknown>): string => {
    let list = methodLists.get(entry);
    if (list === undefined) {
      list = entry.allow.split(', ').filter((m) => m !== 'HEAD' || entry.byMethod.HEAD !== undefined).join(', ');
      methodLists.set(entry, list);
    }
    return list;
  };

  const allowOriginFor = (origin: string): string | undefined => {
    if (policy.origins === '*') return '*';
    return policy.origins.has(origin) ? origin : undefined;
  };

  return {
    preflight(_req, res, origin, requested, entry) {
      const allowOrigin = allowOriginFor(origin);
      if (allowOrigin === undefined) return refuse(res, svcError(Errors.CORS_ORIGIN_REFUSED, JSON.stringify(origin)));
      const declared = entry.byMethod[requested] !== undefined || (requested === 'HEAD' && entry.byMethod.GET !== undefined);
      if (!declared) return refuse(res, svcError(Errors.CORS_METHOD_REFUSED, JSON.stringify(requested), requested, methodListOf(entry)));
      const headers: Record<string, string> = {
        'access-control-allow-origin': allowOrigin,
        'access-control-allow-methods': policy.methods ?? methodListOf(entry),
        'access-control-allow-headers': fieldsOf(entry, requested).allowHeaders,
        'access-control-max-age': policy.maxAge,
        vary: PREFLIGHT_VARY,
      };
      if (policy.credentials) headers['access-control-allow-credentials'] = 'true';
      res.writeHead(204, withRequestId(res, headers));
      res.end();
      return 204;
    },
    mark(req, res, origin, entry) {
      const allowOrigin = origin === undefined ? undefined : allowOriginFor(origin);
      const exposeHeaders = allowOrigin === undefined ? undefined : entry === undefined ? fallback.exposeHeaders : fieldsOf(entry, req.method ?? 'GET').exposeHeaders;
      markCrossOrigin(res, { allowOrigin, vary: policy.origins !== '*', exposeHeaders, credentials: policy.credentials, writeHead: res.writeHead });
    },
  };
}

function refuse(res: ServerResponse, err: ReturnType<typeof svcError>): 403 {
  // No Access-Control-Allow-* field: the browser keeps the call from being made.
  sendError(res, err, { vary: PREFLIGHT_VARY });
  return 403;
}

/** Names, each once whatever its case, in the order first met. */
function joinNames(names: readonly string[]): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const name of names) {
    const key = name.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(name);
  }
  return out.join(', ');
}

/** The request fields a page calling this operation may set: header parameters, Content-Type, credentials. */
function requestHeaderNames(op: Operation, contract: Contract): string[] {
  const names = op.parameters.filter((p) => p.in === 'header').map((p) => p.name);
  if (op.consumes.some((type) => !SAFELISTED_BODY.has(type.split(';')[0]!.trim().toLowerCase()))) names.push('Content-Type');
  names.push(...securityHeaderNames(op, contract));
  return names;
}

/** The header names the operation's security schemes read (Authorization, an apiKey's header). */
function securityHeaderNames(op: Operation, contract: Contract): string[] {
  const requirements = op.source.value.security ?? contract.doc.security;
  if (!Array.isArray(requirements)) return [];
  const schemes = contract.doc.components?.securitySchemes ?? {};
  const names: string[] = [];
  for (const requirement of requirements) {
    if (requirement === null || typeof requirement !== 'object') continue;
    for (const schemeName of Object.keys(requirement)) {
      if (!Object.hasOwn(schemes, schemeName)) continue;
      let scheme: Record<string, unknown> | undefined;
      try {
        scheme = contract.refs.deref<Record<string, unknown>>(schemes[schemeName], contract.uri).value;
      } catch {
        continue; // a broken reference is reported where security is enforced, not here
      }
      if (scheme === null || typeof scheme !== 'object') continue;
      if (scheme.type === 'http' || scheme.type === 'oauth2' || scheme.type === 'openIdConnect') names.push('Authorization');
      else if (scheme.type === 'apiKey' && scheme.in === 'header' && typeof scheme.name === 'string') names.push(scheme.name);
    }
  }
  return names;
}

/** The response fields the operation declares that a page could not read unless told. */
function responseHeaderNames(op: Operation): string[] {
  const names: string[] = [];
  for (const response of Object.values(op.responses)) {
    const headers = response.value?.headers;
    if (headers === null || typeof headers !== 'object') continue;
    for (const name of Object.keys(headers)) if (!SAFELISTED_RESPONSE.has(name.toLowerCase())) names.push(name);
  }
  return names;
}

/** The fields one answer gets: none but Vary when its request named no allowed origin. */
interface CrossOriginFields {
  allowOrigin: string | undefined;
  /** The answer depends on Origin (a list of origins, not `*`). */
  vary: boolean;
  exposeHeaders: string | undefined;
  credentials: boolean;
  /** The response's own writeHead, which this one calls with the fields in place. */
  writeHead: ServerResponse['writeHead'];
}

const CROSS_ORIGIN = Symbol('svc.crossOrigin');
type CrossOriginResponse = ServerResponse & { [CROSS_ORIGIN]: CrossOriginFields };

/**
 * Every writer of the facade ends in writeHead (problems, routes, forwarded answers, the spec endpoint), and
 * node's implicit header does too: this response's own writeHead puts the policy's fields in, so no answer
 * can miss them, and takes out any other Access-Control-* field (a backend's, a route's): one policy.
 */
function markCrossOrigin(res: ServerResponse, fields: CrossOriginFields): void {
  (res as CrossOriginResponse)[CROSS_ORIGIN] = fields;
  res.writeHead = writeHeadCrossOrigin as ServerResponse['writeHead'];
}

function writeHeadCrossOrigin(this: CrossOriginResponse, status: number, reason?: unknown, given?: unknown): ServerResponse {
  const fields = this[CROSS_ORIGIN];
  const headers = typeof reason === 'string' ? given : reason;
  let vary: unknown = this.getHeader('vary');
  for (const name of this.getHeaderNames()) if (name.startsWith('access-control-') || name === 'vary') this.removeHeader(name);
  const out: Record<string, unknown> = {};
  if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
    for (const [name, value] of Object.entries(headers)) {
      const key = name.toLowerCase();
      if (key.startsWith('access-control-')) continue;
      if (key === 'vary') vary = value;
      else out[name] = value;
    }
  }
  if (fields.allowOrigin !== undefined) {
    out['access-control-allow-origin'] = fields.allowOrigin;
    if (fields.credentials) out['access-control-allow-credentials'] = 'true';
    out['access-control-expose-headers'] = fields.exposeHeaders;
  }
  const varies = fields.vary ? withVary(vary, 'Origin') : vary;
  if (varies !== undefined) out.vary = varies;
  const writeHead = fields.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  return typeof reason === 'string' ? writeHead.call(this, status, reason, out) : writeHead.call(this, status, out);
}
