// Typed routes, the part a route's author writes against (docs/typescript.md): `defineRoutes<Operations>({
// getPetById: async (ex) => ... })` with the types `svc-facade types` generates. The compiler checks that
// every operation has a route, what the route reads (parameters by location, the request body) and what it
// answers (per status). These are types only, but for `Reply` (what `ex.reply()` makes) and `defineRoutes`,
// which marks each route with its operation id; typed.ts binds them at startup, typed-runtime.ts runs them.
import { Errors, svcError } from '../util/errors.js';
import type { Exchange } from '../message/exchange.js';

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

const TYPED = Symbol('svc-facade typed route');

/** A typed route as the runtime runs it: the compiler checked its types against the contract's. */
export type UntypedRoute = (view: unknown) => unknown;

/** What `defineRoutes` marks a route function with: its operation and the route as written. */
export interface TypedMark {
  operationId: string;
  route: UntypedRoute;
}

interface Marked {
  [TYPED]: TypedMark;
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
    const unbound = markTyped(() => {
      throw svcError(Errors.TYPED_ROUTE_ELSEWHERE, operationId, 'a function called outside the facade');
    }, { operationId, route });
    Object.defineProperty(out, operationId, { value: unbound, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

/** The mark `defineRoutes` gave a route function; undefined for any other function or value. */
export function typedMarkOf(fn: unknown): TypedMark | undefined {
  return typeof fn === 'function' ? (fn as Partial<Marked>)[TYPED] : undefined;
}

/** `fn` marked as the typed route `mark` (a bound route keeps it: a configuration built again binds it anew). */
export function markTyped(fn: RouteFunction, mark: TypedMark): RouteFunction {
  (fn as RouteFunction & Partial<Marked>)[TYPED] = mark;
  return fn;
}
