// Route definitions (what the YAML DSL and the fluent API produce) compiled into step functions, once.
import type { LogFields, Logger } from '../util/log.js';
import { REQUEST_ID_HEADER } from '../message/request-id.js';
import { deepFreeze } from '../util/objects.js';
import { compileBackendStep } from './backend/step.js';
import type { BackendContext } from './backend/context.js';
import type { DirectBus, Route } from './bus.js';
import { HeaderNames, PropertyNames, type Exchange } from '../message/exchange.js';
import { Balancer, loadBalanceStep } from './load-balance.js';
import { IDEMPOTENCY_KEY_HEADER, maySendAgain } from './backend/retry-safety.js';
import { CircuitBreaker, circuitBreakerStep, resilience4jConfiguration } from './circuit-breaker.js';
import { asText, compileSimple, type Evaluator } from './simple.js';
import { wholeBody } from '../message/streamed-body.js';
import type { Expression, RouteDefinition, StepDefinition } from '../config/route-definitions.js';

export type { Expression, RouteDefinition, StepDefinition } from '../config/route-definitions.js';

type Step = (ex: Exchange) => unknown;

/** An expression compiled once, at startup. @internal */
export function compileExpression(expression: Expression): Evaluator {
  if (typeof expression === 'function') return expression;
  if ('simple' in expression) return compileSimple(String(expression.simple));
  if ('json' in expression) {
    const value = deepFreeze(expression.json);
    return () => value;
  }
  const value = expression.constant;
  return () => value;
}

/** What compiling a route's steps needs besides the steps. */
interface StepContext {
  bus: DirectBus;
  logger: Logger;
  backends: BackendContext;
  routeName: string;
  /** Set by the route's last step when it forwards the client's body to a backend that will not replay it. */
  forwardsBody: boolean;
}

/** A route's steps compiled once, at startup. @internal */
export function compileRoute(def: RouteDefinition, bus: DirectBus, logger: Logger, backends: BackendContext): Route {
  const name = def.from.replace(/^direct:/, '');
  const ctx: StepContext = { bus, logger, backends, routeName: name, forwardsBody: false };
  const steps = compileSteps(def.steps, ctx, true);
  const streamsRequestBody = ctx.forwardsBody && bodyUntouchedBefore(def.steps, def.steps.length - 1);
  return { name, source: def.source, run: (ex) => runSteps(steps, ex, 0), streamsRequestBody };
}

/**
 * A list of steps compiled in order; `last`: the list ends its route, so its last step's answer may stay a
 * stream. A step that reads the body as a value gets it whole.
 */
function compileSteps(defs: readonly StepDefinition[], ctx: StepContext, last: boolean): Step[] {
  const end = defs.length - 1;
  return defs.map((s, i) => {
    const step = compileStep(s, ctx, last && i === end);
    return collectsBody(s) ? afterWholeBody(step) : step;
  });
}

/** Runs steps in order, staying synchronous until a step returns a promise. */
function runSteps(steps: readonly Step[], ex: Exchange, from: number): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    const result = steps[i]!(ex);
    // The last step's promise is the route's own (its value is never read): no promise more per request.
    if (result instanceof Promise) return i === steps.length - 1 ? (result as Promise<void>) : result.then(() => runSteps(steps, ex, i + 1));
  }
}

/** `last`: no later step of this route reads the body, so a backend's answer may stay a stream. */
function compileStep(step: StepDefinition, ctx: StepContext, last: boolean): Step {
  const { logger, routeName } = ctx;
  switch (step.kind) {
    case 'process':
      return step.fn;
    case 'setBody': {
      const value = compileExpression(step.expression);
      return (ex) => {
        ex.message.body = value(ex);
      };
    }
    case 'setHeader': {
      const value = compileExpression(step.expression);
      // Lower-cased once: Headers lower-cases every name it is given, a mixed-case one into a new string each time.
      const name = step.name.toLowerCase();
      return (ex) => ex.message.headers.set(name, value(ex));
    }
    case 'removeHeader': {
      const name = step.name;
      return (ex) => ex.message.headers.delete(name);
    }
    case 'setProperty': {
      const value = compileExpression(step.expression);
      const name = step.name;
      return (ex) => {
        ex.properties[name] = value(ex);
      };
    }
    case 'log': {
      const message = compileSimple(step.message);
      const prefix = `[${step.loggerName ?? routeName}] `;
      return (ex) => logger.info(prefix + asText(message(ex)), requestFields(ex));
    }
    case 'to':
      return compileTo(step.uri, step.parameters, ctx, last);
    case 'circuitBreaker':
      return compileCircuitBreaker(step, ctx, last);
    case 'loadBalance':
      return compileLoadBalance(step, ctx, last);
  }
}

/**
 * The context the steps inside a breaker or a balancer are compiled in: the client's body is read whole for
 * them (a fallback or a failover may need it again), so a `to:` among them never makes the route stream it.
 */
function innerContext(ctx: StepContext): StepContext {
  return { ...ctx, forwardsBody: false };
}

/**
 * The breaker's steps and fallback compiled as sub-routes. When the breaker is its route's last step, the last
 * of its steps may stream a backend's answer: the breaker judges it by its status (docs/sidecar.md).
 */
function compileCircuitBreaker(step: Extract<StepDefinition, { kind: 'circuitBreaker' }>, ctx: StepContext, last: boolean): Step {
  const where = `circuitBreaker in ${ctx.routeName}`;
  const breaker = new CircuitBreaker(resilience4jConfiguration(step.configuration, where));
  const inner = innerContext(ctx);
  const compile = (steps: readonly StepDefinition[]): ((ex: Exchange) => void | Promise<void>) => {
    const compiled = compileSteps(steps, inner, last);
    return (ex) => runSteps(compiled, ex, 0);
  };
  const fallback = step.onFallback === undefined ? undefined : compile(step.onFallback);
  const { backends } = ctx;
  backends.breakers.push({ route: ctx.routeName, breaker });
  return circuitBreakerStep(breaker, compile(step.steps), fallback, (ex, status) => backends.retrySafety(ex.properties[PropertyNames.OPERATION_ID])?.declares(status) === true);
}

/** Each endpoint a `to: http(s)://` step of its own; their answers stream when the balancer is its route's last step (judged by status). */
function compileLoadBalance(step: Extract<StepDefinition, { kind: 'loadBalance' }>, ctx: StepContext, last: boolean): Step {
  const where = `loadBalance in ${ctx.routeName}`;
  if (step.steps.length < 2 || step.steps.some((s) => s.kind !== 'to' || !/^https?:\/\//i.test(s.uri))) throw new Error(`${where}: needs two or more to: http(s):// steps, and nothing else`);
  const { strategy } = step;
  if (strategy.kind === 'weighted' && strategy.ratios.length !== step.steps.length) throw new Error(`${where}: distributionRatio has ${strategy.ratios.length} values for ${step.steps.length} endpoints`);
  const inner = innerContext(ctx);
  const balancer = new Balancer(step.steps.map((s) => afterWholeBody(compileStep(s, inner, last))), strategy);
  const { backends } = ctx;
  backends.balancers.push({ route: ctx.routeName, balancer });
  const safety = (ex: Exchange) => backends.retrySafety(ex.properties[PropertyNames.OPERATION_ID]);
  const failedAnswer = (ex: Exchange): boolean => {
    const status = Number(ex.message.headers.get(HeaderNames.RESPONSE_CODE));
    return status >= 500 && status <= 599 && safety(ex)?.declares(status) !== true;
  };
  const maySend = (ex: Exchange): boolean => maySendAgain(String(ex.message.headers.get(HeaderNames.METHOD) ?? 'GET').toUpperCase(), safety(ex), ex.message.headers.get(IDEMPOTENCY_KEY_HEADER));
  return loadBalanceStep(balancer, failedAnswer, maySend);
}

function compileTo(uri: string, parameters: Record<string, unknown> | undefined, ctx: StepContext, last: boolean): Step {
  const { bus, logger } = ctx;
  if (parameters !== undefined && !/^https?:\/\//i.test(uri)) throw new Error(`to ${uri}: parameters apply to http:// and https:// endpoints only`);
  if (uri.startsWith('direct:')) {
    const name = uri.slice('direct:'.length);
    if (last) return (ex) => bus.call(name, ex);
    // The called route may end by streaming a backend's answer; the steps after this one read it whole.
    return (ex) => {
      const pending = bus.call(name, ex);
      return pending instanceof Promise ? pending.then(() => wholeBody(ex)) : wholeBody(ex);
    };
  }
  if (uri.startsWith('log:')) {
    const prefix = `[${uri.slice(4).split('?')[0]}] `;
    return (ex) => logger.info(prefix + asText(ex.message.body), requestFields(ex));
  }
  if (/^https?:\/\//i.test(uri)) {
    const backend = compileBackendStep(uri, parameters, ctx.backends, last);
    if (last) ctx.forwardsBody = !backend.replaysBody;
    return backend.run;
  }
  throw new Error(`unsupported endpoint ${uri} (allowed: direct:, log:, http://, https://)`);
}

/** Log lines of a request carry its id (X-Request-Id, given or made by the facade). */
function requestFields(ex: Exchange): LogFields | undefined {
  const id = ex.message.headers.get(REQUEST_ID_HEADER);
  return typeof id === 'string' ? { requestId: id } : undefined;
}

// Which steps read the message body: a route that forwards the client's body to a backend untouched can
// stream it instead of reading it first. Decided once per route at startup.

/** `${body}`, `${body.x}`, `${bodyAs(...)}`: a simple template that reads the body. */
const READS_BODY = /\$\{\s*(?:in\.)?body/;

/** True when no step before the last reads or replaces the body (unknown code, `process` or a function expression, counts as reading it). */
function bodyUntouchedBefore(steps: readonly StepDefinition[], last: number): boolean {
  for (let i = 0; i < last; i++) {
    const step = steps[i]!;
    switch (step.kind) {
      case 'setHeader':
      case 'setProperty':
        if (readsBody(step.expression)) return false;
        break;
      case 'removeHeader':
        break;
      case 'log':
        if (READS_BODY.test(step.message)) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/**
 * Steps of the DSL that read the body as a value (a simple template with `${body}`, a log of it, a call to a
 * backend) see a body still arriving item by item (a sequential request) as the array of its items; code
 * (`process`, function expressions) gets the async iterable itself.
 */
function collectsBody(step: StepDefinition): boolean {
  switch (step.kind) {
    case 'setBody':
    case 'setHeader':
    case 'setProperty':
      return typeof step.expression !== 'function' && readsBody(step.expression);
    case 'log':
      return READS_BODY.test(step.message);
    case 'to':
      return /^(?:log:|https?:\/\/)/i.test(step.uri);
    default:
      return false;
  }
}

function afterWholeBody(step: Step): Step {
  return (ex) => {
    const reading = wholeBody(ex);
    return reading === undefined ? step(ex) : reading.then(() => step(ex));
  };
}

function readsBody(expression: Expression): boolean {
  if (typeof expression === 'function') return true;
  return 'simple' in expression && READS_BODY.test(String(expression.simple));
}
