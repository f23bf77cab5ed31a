// Typed routes at run time (docs/typescript.md): a route `defineRoutes` marked runs with a view of its
// request whose values are what the generated types say. The view reads what the pipeline already read for
// the request (the exchange's facts: path parameters the router matched, the query pairs parsed once, the
// parameters validation typed), so a typed route neither matches the path nor parses the query again. Its
// answer (a plain body, or `ex.reply()`) becomes the exchange's status, headers and body.
import { parameterDefault } from '../contract/defaults.js';
import type { Contract } from '../contract/load.js';
import type { Operation } from '../contract/operations.js';
import { responsesByCode, successStatus } from '../contract/responses.js';
import { Errors, svcError } from '../util/errors.js';
import { findDeclaredMediaType, isJsonMediaType } from '../http/negotiation.js';
import { bodyText } from '../http/body.js';
import { HeaderNames, PropertyNames, type Exchange } from '../message/exchange.js';
import type { ParameterValues, RequestFacts } from '../message/request-facts.js';
import { compileParameterValues } from '../parameters/parameters.js';
import { Reply, type ReplyInit, type RouteFunction, type UntypedRoute } from './typed-api.js';

const RESPONSE_CODE = HeaderNames.RESPONSE_CODE;
const OPERATION_ID = PropertyNames.OPERATION_ID;

/** What a route of one operation needs to build its view, compiled once. */
interface ViewContext {
  op: Operation;
  /** Types the parameters from the request's facts, for a request validation knew valid from their text alone. */
  read: (facts: RequestFacts) => ParameterValues;
  queryDefaults: readonly (readonly [string, unknown])[];
}

/** The route function that runs `route` as operation `op`'s route. */
export function compileTypedRoute(route: UntypedRoute, op: Operation, contract: Contract): RouteFunction {
  const ctx: ViewContext = {
    op,
    read: compileParameterValues(op, contract.refs),
    queryDefaults: op.parameters.filter((p) => p.in === 'query').flatMap((p) => {
      const value = parameterDefault(p, contract);
      return value === undefined ? [] : [[p.name, value] as const];
    }),
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

  /**
   * The parameters validation typed for this request (copied, so what the route does to them stays its own),
   * else typed here from the facts it read (validation knew them valid from their text alone, and typed only
   * what the exchange headers need); absent query parameters with a schema default get it. An exchange
   * without its operation's facts (made by hand, or a request to another operation passed on with `to:`) was
   * not checked against this operation: its types would not hold, so the route does not run with it.
   */
  private parameters(): ParameterValues {
    if (this.values !== undefined) return this.values;
    const { exchange, ctx } = this;
    const facts = exchange.facts;
    if (facts === undefined || exchange.properties[OPERATION_ID] !== ctx.op.id) throw svcError(Errors.TYPED_ROUTE_ELSEWHERE, ctx.op.id, 'the route of an exchange its operation did not receive');
    const typed = facts.parameters;
    const values = typeof typed === 'object' ? { path: { ...typed.path }, query: { ...typed.query }, header: { ...typed.header }, cookie: { ...typed.cookie } } : ctx.read(facts);
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
