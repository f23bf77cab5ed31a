// Typed routes: `defineRoutes<Operations>({ getPetById: async (ex) => ... })` with the types `svc-facade
// types` generates. The compiler checks that every operation has a route, what the route reads (parameters
// by location, the request body) and what it answers (per status); the facade binds each route to its
// operation at startup and gives it a view of the request whose values are what the types say.
import type { IncomingMessage } from 'node:http';
import { parameterDefault } from '../contract/defaults.js';
import type { Contract } from '../contract/load.js';
import type { Operation } from '../contract/operations.js';
import { responsesByCode, successStatus } from '../contract/responses.js';
import type { FacadeConfig } from '../config/model.js';
import { Errors, svcError } from '../util/errors.js';
import { findDeclaredMediaType, isJsonMediaType } from '../http/negotiation.js';
import { bodyText } from '../http/body.js';
import { percentDecoded } from '../http/percent.js';
import { parseQuery } from '../http/query.js';
import type { RequestFacts } from '../message/stages.js';
import { compileParameterValues } from '../parameters/parameters.js';
import { operationQuerystring } from '../parameters/querystring.js';
import { HeaderNames, type Exchange } from '../message/exchange.js';

// ---------------------------------------------------------------------------------------------------------
// Types (what the generated `Operations` interface holds for each operation)

/** One operation as `svc-facade types` describes it. */
export interface OperationShape {
  parameters: { path: unknown; query: unknown; header: unknown; cookie: unknown };
  requestBody: { required: boolean; content: unknown };
  responses: unknown;
}

type ValueOf<T> = T[keyof T];
/** The body of a content map: the union over its media types, undefined when it has none. */
type ContentBody<C> = keyof C extends never ? undefined : ValueOf<C>;
type ResponseBody<R> = R extends { content: infer C } ? ContentBody<C> : undefined;
type Responses<Op extends OperationShape> = Op['responses'];

/** The request body a route receives: per the declared media types; possibly absent unless required. */
export type RequestBodyOf<Op extends OperationShape> = Op['requestBody']['required'] extends true
  ? ContentBody<Op['requestBody']['content']>
  : ContentBody<Op['requestBody']['content']> | undefined;

/** The statuses a route may answer with: each declared code, any code at all when a range or `default` is declared. */
export type StatusOf<Op extends OperationShape> = { [K in keyof Responses<Op>]: K extends number ? K : number }[keyof Responses<Op>];

/** The response declared for a status: the exact code, else its `NXX` range, else `default` (as the facade picks it). */
export type ResponseFor<Op extends OperationShape, S extends number> = S extends keyof Responses<Op>
  ? Responses<Op>[S]
  : `${S}` extends `${infer D}${string}`
    ? `${D}XX` extends keyof Responses<Op>
      ? Responses<Op>[`${D}XX`]
      : 'default' extends keyof Responses<Op>
        ? Responses<Op>['default']
        : never
    : never;

/** The body declared for a status. */
export type BodyForStatus<Op extends OperationShape, S extends number> = ResponseBody<ResponseFor<Op, S>>;

/** The header fields declared for a status, by their contract names. */
export type HeadersForStatus<Op extends OperationShape, S extends number> = ResponseFor<Op, S> extends { headers: infer H } ? H : {};

type SuccessKey<Op extends OperationShape> = { [K in keyof Responses<Op>]: `${K & (string | number)}` extends `2${string}` ? K : never }[keyof Responses<Op>];

/** What a route may return without a status: a body of a declared 2xx response (else of `default`). */
export type SuccessBody<Op extends OperationShape> = [SuccessKey<Op>] extends [never]
  ? 'default' extends keyof Responses<Op>
    ? ResponseBody<Responses<Op>['default']>
    : undefined
  : ResponseBody<Responses<Op>[SuccessKey<Op>]>;

/** A route's answer: a success body, or `ex.reply(status, body)`; nothing at all only where no body is declared. */
export type Answer<Op extends OperationShape> = SuccessBody<Op> | Reply | (undefined extends SuccessBody<Op> ? void : never);

/** A header field value as the response writer sends it. */
export type HeaderValue = string | number | readonly string[];

/** How `ex.reply()` answers besides status and body; `H`: the header fields the contract declares for the status. */
export interface ReplyInit<H = {}> {
  /** The response's Content-Type (default: by binding, or by the body's kind). */
  contentType?: string;
  /** Response header fields: the declared ones must have their declared types; others are free. */
  headers?: Readonly<Partial<H> & Record<string, HeaderValue>>;
}

/** An answer with a status, made by `ex.reply()`. */
export class Reply {
  /** Makes the type nominal: a look-alike object is no Reply (it would be sent as a body). */
  private declare readonly made: true;

  /** @internal */
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly init: ReplyInit<unknown> | undefined,
  ) {}
}

/** The parts of a typed route's view that do not depend on the request's media type. */
export interface ExchangeView<Op extends OperationShape> {
  /** Path parameters, typed (an `integer` is a number). */
  readonly params: Op['parameters']['path'];
  /** Query parameters (and an `in: querystring` parameter), typed; absent ones with a schema default have it. */
  readonly query: Op['parameters']['query'];
  /** Header parameters by their contract names, typed. */
  readonly headers: Op['parameters']['header'];
  /** Cookie parameters, typed. */
  readonly cookies: Op['parameters']['cookie'];
  /** The exchange itself: every header, the properties (token, operation id), the HTTP request. */
  readonly exchange: Exchange;
  /** An answer with a status; its body must be the one the contract declares for that status. */
  reply<S extends StatusOf<Op>>(status: S, body: BodyForStatus<Op, S>, init?: ReplyInit<HeadersForStatus<Op, S>>): Reply;
}

/**
 * The request body with the declared media type it came as: testing `ex.mediaType` narrows `ex.body` to
 * that media type's body (parsed for JSON media types, a class instance under bindingMode with classes).
 * Without a body (allowed unless it is required) both are undefined.
 */
export type BodyVariants<Op extends OperationShape> = keyof Op['requestBody']['content'] extends never
  ? { readonly mediaType: undefined; readonly body: undefined }
  :
      | { [M in keyof Op['requestBody']['content']]: { readonly mediaType: M; readonly body: Op['requestBody']['content'][M] } }[keyof Op['requestBody']['content']]
      | (Op['requestBody']['required'] extends true ? never : { readonly mediaType: undefined; readonly body: undefined });

/** What a typed route receives: the request as the contract types it, and the exchange underneath. */
export type TypedExchange<Op extends OperationShape> = ExchangeView<Op> & BodyVariants<Op>;

export type TypedRoute<Op extends OperationShape> = (ex: TypedExchange<Op>) => Answer<Op> | Promise<Answer<Op>>;

/** One route for every operation of `Ops` (the generated `Operations`), keyed by operation id. */
export type TypedRoutes<Ops extends { [K in keyof Ops]: OperationShape }> = { [K in keyof Ops]: TypedRoute<Ops[K]> };

/** A route function as `createFacade({ routes })` takes it. */
export type RouteFunction = (ex: Exchange) => unknown;

// ---------------------------------------------------------------------------------------------------------
// Runtime

const TYPED = Symbol('svc-facade typed route');

/** A typed route as the runtime runs it: the compiler checked its types against the contract's. */
type UntypedRoute = (ex: RouteExchange) => unknown;

interface Marked {
  [TYPED]: { operationId: string; route: UntypedRoute };
}

/**
 * Routes keyed by operation id for `createFacade({ routes })`, checked by the compiler against the generated
 * `Operations`: a missing operation, a wrong parameter type or an answer the contract does not declare is
 * a compile error. Each runs only as its own operation's route (checked again at startup).
 */
export function defineRoutes<Ops extends { [K in keyof Ops]: OperationShape }>(routes: TypedRoutes<Ops>): Record<string, RouteFunction> {
  const out: Record<string, RouteFunction> = {};
  for (const [operationId, route] of Object.entries(routes as unknown as Record<string, UntypedRoute>)) {
    // Before the facade binds it (or outside a facade) it refuses to run: it knows no operation yet.
    const unbound: RouteFunction & Partial<Marked> = () => {
      throw svcError(Errors.TYPED_ROUTE_ELSEWHERE, operationId, 'a function called outside the facade');
    };
    unbound[TYPED] = { operationId, route };
    Object.defineProperty(out, operationId, { value: unbound, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function typedOf(fn: unknown): Marked[typeof TYPED] | undefined {
  return typeof fn === 'function' ? (fn as Partial<Marked>)[TYPED] : undefined;
}

/**
 * Startup: every typed route is bound to its operation (found by the route's own name), or startup fails:
 * a typed route under another name, for an operation the contract lacks, or without request validation
 * (the types hold only for requests checked against the contract).
 */
export function bindTypedRoutes(config: FacadeConfig, operations: readonly Operation[], contract: Contract): void {
  const byId = new Map(operations.map((op) => [op.id, op]));
  const typed: string[] = [];
  for (const def of config.routes) {
    const name = def.from.replace(/^direct:/, '');
    def.steps = def.steps.map((step) => {
      const marked = step.kind === 'process' ? typedOf(step.fn) : undefined;
      if (marked === undefined) return step;
      if (marked.operationId !== name || def.steps.length !== 1) throw svcError(Errors.TYPED_ROUTE_ELSEWHERE, marked.operationId, `a step of ${def.from} (${def.source})`);
      const op = byId.get(name);
      if (op === undefined) throw svcError(Errors.TYPED_ROUTE_NO_OPERATION, def.from, name);
      typed.push(name);
      // Marked still: a configuration built into a facade again (workers) binds it anew.
      const bound: RouteFunction & Partial<Marked> = compileTypedRoute(marked.route, op, contract);
      bound[TYPED] = marked;
      return { kind: 'process', fn: bound };
    });
  }
  if (typed.length > 0 && config.rest.clientRequestValidation !== true) throw svcError(Errors.TYPED_ROUTES_NEED_VALIDATION, typed.sort().join(', '));
}

const RESPONSE_CODE = HeaderNames.RESPONSE_CODE;
const QUERY = HeaderNames.QUERY;
const PATH = HeaderNames.PATH;

/** Parameter values by location, as validation reads and types them. */
type ParameterValues = ReturnType<ReturnType<typeof compileParameterValues>>;

/** What a route of one operation needs to build its view, compiled once. */
interface ViewContext {
  op: Operation;
  read: (facts: RequestFacts) => ParameterValues;
  pathParams: (path: string) => Record<string, string | undefined>;
  queryDefaults: readonly (readonly [string, unknown])[];
  querystring: ReturnType<typeof operationQuerystring>;
}

function compileTypedRoute(route: UntypedRoute, op: Operation, contract: Contract): RouteFunction {
  const ctx: ViewContext = {
    op,
    read: compileParameterValues(op, contract.refs),
    pathParams: compilePathParameters(op.template),
    queryDefaults: op.parameters.filter((p) => p.in === 'query').flatMap((p) => {
      const value = parameterDefault(p, contract);
      return value === undefined ? [] : [[p.name, value] as const];
    }),
    querystring: operationQuerystring(op, contract.refs),
  };
  // A plain answer gets the operation's success status when it is not the facade's own default (200).
  const success = successStatus(responsesByCode(op, () => true));
  const plainStatus = success === undefined || success === '200' ? undefined : Number(success);
  const answer = (ex: Exchange, result: unknown): void => {
    if (result instanceof Reply) {
      const headers = ex.message.headers;
      headers.set(RESPONSE_CODE, result.status);
      if (result.init?.contentType !== undefined) headers.set('content-type', result.init.contentType);
      for (const [name, value] of Object.entries(result.init?.headers ?? {})) headers.set(name, value);
      ex.message.body = result.body;
      return;
    }
    if (plainStatus !== undefined) ex.message.headers.set(RESPONSE_CODE, plainStatus);
    // Always replaced: a route that answers nothing must not send the request's body back.
    ex.message.body = result;
  };
  return (ex) => {
    const result = route(new RouteExchange(ex, ctx));
    return result instanceof Promise ? result.then((r) => answer(ex, r)) : answer(ex, result);
  };
}

/** The typed view of one request's exchange; every part is read on first use. */
class RouteExchange {
  private values: ParameterValues | undefined;
  private parsed: { body: unknown } | undefined;

  constructor(
    readonly exchange: Exchange,
    private readonly ctx: ViewContext,
  ) {}

  get params(): unknown {
    return this.parameters().path;
  }

  get query(): unknown {
    return this.parameters().query;
  }

  get headers(): unknown {
    return this.parameters().header;
  }

  get cookies(): unknown {
    return this.parameters().cookie;
  }

  get body(): unknown {
    this.parsed ??= { body: this.decodedBody() };
    return this.parsed.body;
  }

  /** The declared media type the request's Content-Type matched; undefined without a body. */
  get mediaType(): string | undefined {
    const body = this.exchange.message.body;
    if (body === undefined || body === '' || (Buffer.isBuffer(body) && body.length === 0)) return undefined;
    const contentType = this.exchange.request?.headers['content-type'];
    return contentType === undefined ? this.ctx.op.consumes[0] : findDeclaredMediaType(this.ctx.op.consumes, contentType);
  }

  reply(status: number, body: unknown, init?: ReplyInit<unknown>): Reply {
    return new Reply(status, body, init);
  }

  private parameters(): ParameterValues {
    if (this.values !== undefined) return this.values;
    const { exchange, ctx } = this;
    const headers = exchange.message.headers;
    const query = String(headers.get(QUERY) ?? '');
    const pathParams = ctx.pathParams(String(headers.get(PATH) ?? ''));
    const facts: RequestFacts = { req: exchange.request ?? NO_REQUEST, path: '', query, queryPairs: parseQuery(query), pathParams, raw: undefined, querystring: ctx.querystring?.read(query) };
    const values = ctx.read(facts);
    for (const [name, value] of ctx.queryDefaults) if (!Object.hasOwn(values.query, name)) values.query[name] = value;
    return (this.values = values);
  }

  /** JSON arrives as text when binding is off: parsed here (validation has checked it), as the types say. */
  private decodedBody(): unknown {
    const body = this.exchange.message.body;
    if (typeof body !== 'string' && !Buffer.isBuffer(body)) return body;
    const declared = this.mediaType;
    if (declared === undefined || !isJsonMediaType(declared)) return body;
    try {
      return JSON.parse(typeof body === 'string' ? body : bodyText(body));
    } catch {
      // Validation parsed it already; only a body it let through some other way (no Content-Type) gets here.
      throw svcError(Errors.INVALID_JSON);
    }
  }
}

/**
 * The path parameters' text from the request path (after the base path, as SvcHttpPath gives it), matched
 * against the operation's template as the router did: a parameter stops at `/`, a trailing `/` is
 * ignored, each value is percent-decoded once (an undecodable one stays as sent). Read from the path, not
 * from the exchange's headers, which may hold values already typed and must not all be filled for this.
 */
function compilePathParameters(template: string): (path: string) => Record<string, string | undefined> {
  const names: string[] = [];
  const source = template
    .split(/(\{[^}]*\})/)
    .map((part) => {
      if (!part.startsWith('{')) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(part.slice(1, -1));
      return '([^/]*)';
    })
    .join('');
  const pattern = new RegExp(`^${source.replace(/\/$/, '')}/?$`);
  return (path) => {
    const values: Record<string, string | undefined> = {};
    const match = pattern.exec(path);
    for (let i = 0; i < names.length; i++) {
      const text = match?.[i + 1];
      values[names[i]!] = text === undefined ? undefined : (percentDecoded(text) ?? text);
    }
    return values;
  };
}

/** For an exchange made by hand: a request with no header fields. */
const NO_REQUEST = { headers: {} } as IncomingMessage;
