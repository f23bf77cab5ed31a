// The exchange headers a request gives a route (docs/routes.md): the request's header fields, then its path
// parameters, query parameters (and their contract defaults), the request id and trace context, and the SvcHttp* names. Kept as the request's
// parts and filled in only when a route first reads its headers (Headers.lazy).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isBrowserOnlyField } from '../http/browser-fields.js';
import { isForwardingField } from '../http/forwarding-fields.js';
import { percentDecoded } from '../http/percent.js';
import { parseQuery, type Pairs } from '../http/query.js';
import { PARAM_KEYS } from '../http/router.js';
import { REQUEST_ID_HEADER, requestIdOf, TAGGED_NAMES, tagExchange } from '../message/request-id.js';
import { HeaderNames, isInternalName, NEEDS_FILL, type Headers, type LazyRequestHeaders } from '../message/exchange.js';
import { Unreadable } from '../parameters/parameters.js';
import type { PosingQueryNames } from '../parameters/query-names.js';
import type { OperationQuerystring } from '../parameters/querystring.js';
import type { ParameterValues, RequestFacts } from '../message/stages.js';

/** Cookie parameters are no exchange headers (the Cookie field carries them), so they are not typed there. */
const TYPED_LOCATIONS = ['path', 'query', 'header'] as const;
const METHOD = HeaderNames.METHOD.toLowerCase();
const PATH = HeaderNames.PATH.toLowerCase();
const URI = HeaderNames.URI.toLowerCase();
const QUERY = HeaderNames.QUERY.toLowerCase();
const REQUEST_NAMES = [METHOD, PATH, URI, QUERY];

export class RequestHeaders implements LazyRequestHeaders {
  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly params: Record<string, string | undefined>,
    private readonly names: readonly string[],
    /** The pairs validation parsed, if it ran; otherwise parsed here when the headers are first read. */
    private readonly queryPairs: Pairs | undefined,
    private readonly queryDefaults: readonly (readonly [string, unknown])[],
    private readonly path: string,
    private readonly prefixLength: number,
    private readonly query: string,
    /** An `in: querystring` parameter (OpenAPI 3.2) takes the whole query: one header, no pairs. */
    private readonly querystring?: OperationQuerystring,
    /** Its value, when validation has read it already. */
    private readonly querystringValue?: unknown,
    /** Names posing as a declared parameter (`Status`, `status[]`): validation refuses them; without it they are dropped here. */
    private readonly posing?: PosingQueryNames,
    /** What validation read (undefined without it): the parameters it typed. */
    private readonly facts?: RequestFacts,
  ) {}

  get incoming(): Readonly<Record<string, unknown>> {
    return this.req.headers;
  }

  fill(headers: Headers): void {
    const { names, params } = this;
    for (let i = 0; i < names.length; i++) if (!isRequestField(names[i]!)) headers.setIncoming(names[i]!, params[PARAM_KEYS[i]!]);
    if (this.querystring !== undefined) this.fillQuerystring(headers, this.querystring);
    else for (const [k, v] of this.queryPairs ?? parseQuery(this.query)) {
      // A path parameter keeps the value the router matched (and validation checked): the query cannot
      // replace it, in any letter case (header names are case-insensitive).
      if (isInternalName(k) || isPathParameter(names, k) || isRequestField(k) || this.posing?.posingAs(k) !== undefined) continue;
      const prev = headers.get(k);
      headers.setIncoming(k, prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]);
    }
    const typed = this.facts?.parameters;
    if (typed !== undefined) this.fillTyped(headers, typeof typed === 'function' ? typed(this.facts!) : typed);
    for (const [name, value] of this.queryDefaults) if (!headers.has(name)) headers.setIncoming(name, value);
    // After the query: a query parameter cannot replace the request id or the trace context.
    tagExchange(this.req, this.res, headers);
    for (const name of REQUEST_NAMES) headers.setIncoming(name, this.peek(name));
  }

  peek(key: string): unknown {
    if (key === PATH) return this.path.slice(this.prefixLength);
    if (key === METHOD) return this.req.method;
    if (key === URI) return this.path;
    if (key === QUERY) return this.query;
    // The fill ends by setting the response's request id (tagExchange), so it is known without one (log steps read it).
    if (key === REQUEST_ID_HEADER) {
      const id = requestIdOf(this.res);
      if (id !== undefined) return id;
    }
    // A request field keeps the client's value unless the fill sets it: the request id and trace context,
    // or a query parameter's contract default when the field is absent.
    if (!REQUEST_FIELDS.has(key) || TAGGED_NAMES.has(key) || hasDefault(this.queryDefaults, key)) return NEEDS_FILL;
    return Object.hasOwn(this.req.headers, key) ? this.req.headers[key] : undefined;
  }

  /**
   * Path, query and header parameters validation typed (integers, booleans, arrays, objects) as those
   * values; text stays as received. Forwarding still sends the text (Headers.setTyped). Under the same
   * guards as the text: no internal name, request field, or query name posing as a path parameter.
   */
  private fillTyped(headers: Headers, values: ParameterValues): void {
    for (const where of TYPED_LOCATIONS) {
      for (const [name, value] of Object.entries(values[where])) {
        if (typeof value === 'string' || value === undefined || isInternalName(name) || isRequestField(name)) continue;
        if (where === 'query' && (isPathParameter(this.names, name) || this.querystring?.name === name)) continue;
        headers.setTyped(name, value);
      }
    }
  }

  private fillQuerystring(headers: Headers, { name, read }: OperationQuerystring): void {
    if (isInternalName(name) || isPathParameter(this.names, name) || isRequestField(name)) return;
    const value = this.querystringValue ?? read(this.query);
    // Unreadable as its media type (only possible without validation): the route gets the decoded text.
    if (value instanceof Unreadable) headers.setIncoming(name, percentDecoded(this.query) ?? this.query);
    else if (value !== undefined) headers.setIncoming(name, value);
  }
}

/**
 * Header fields that say who the client is or what the request carries. A path or query parameter of that
 * name must not pose as the field: `?authorization=Bearer%20x` would otherwise reach a `to: http` backend as
 * credentials the facade never checked, and `?traceparent=` as a trace context it never validated.
 */
const REQUEST_FIELDS: ReadonlySet<string> = new Set([
  'authorization', 'proxy-authorization', 'cookie', 'host', 'content-type', 'content-length', 'content-encoding',
  'transfer-encoding', 'connection', 'te', 'upgrade', 'expect', 'traceparent', 'tracestate', 'x-request-id',
  'forwarded', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host', 'via',
]);

/**
 * Also the whole forwarding family (X-Real-IP, X-Original-URL, X-HTTP-Method-Override...): `?x-real-ip=` is no
 * header; nor are the fields only a browser sets (Origin, Referer, Sec-*, X-Requested-With: browser-fields.ts).
 */
function isRequestField(name: string): boolean {
  const key = name.toLowerCase();
  return REQUEST_FIELDS.has(key) || isForwardingField(key) || isBrowserOnlyField(key);
}

function hasDefault(defaults: readonly (readonly [string, unknown])[], key: string): boolean {
  for (const [name] of defaults) if (name.toLowerCase() === key) return true;
  return false;
}

function isPathParameter(names: readonly string[], name: string): boolean {
  for (const n of names) if (n.length === name.length && n.toLowerCase() === name.toLowerCase()) return true;
  return false;
}
