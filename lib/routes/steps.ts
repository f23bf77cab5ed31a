// Route definitions (what the YAML DSL and the fluent API produce) compiled into step functions, once.
import type { LogFields, Logger } from '../log.js';
import { REQUEST_ID_HEADER } from '../observe/request-id.js';
import { forwardToBackend } from './backend.js';
import type { DirectBus, Route } from './bus.js';
import type { Exchange } from './exchange.js';
import { asText, compileSimple, type Evaluator } from './simple.js';

export type Expression = { constant: unknown } | { simple: string } | { json: unknown } | ((ex: Exchange) => unknown);

export type StepDefinition =
  | { kind: 'process'; fn: (ex: Exchange) => unknown }
  | { kind: 'setBody'; expression: Expression }
  | { kind: 'setHeader'; name: string; expression: Expression }
  | { kind: 'removeHeader'; name: string }
  | { kind: 'setProperty'; name: string; expression: Expression }
  | { kind: 'log'; message: string; loggerName?: string | undefined }
  | { kind: 'to'; uri: string };

export interface RouteDefinition {
  /** `direct:<name>`. */
  from: string;
  steps: StepDefinition[];
  /** The file (or `fluent`) the route came from, for messages. */
  source: string;
}

type Step = (ex: Exchange) => unknown;

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

export function compileRoute(def: RouteDefinition, bus: DirectBus, logger: Logger): Route {
  const name = def.from.replace(/^direct:/, '');
  const steps = def.steps.map((s) => compileStep(s, bus, logger, name));
  return { name, source: def.source, run: (ex) => runSteps(steps, ex, 0) };
}

/** Runs steps in order, staying synchronous until a step returns a promise. */
function runSteps(steps: readonly Step[], ex: Exchange, from: number): void | Promise<void> {
  for (let i = from; i < steps.length; i++) {
    const result = steps[i]!(ex);
    if (result instanceof Promise) return result.then(() => runSteps(steps, ex, i + 1));
  }
}

function compileStep(step: StepDefinition, bus: DirectBus, logger: Logger, routeName: string): Step {
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
      const name = step.name;
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
      return compileTo(step.uri, bus, logger);
  }
}

function compileTo(uri: string, bus: DirectBus, logger: Logger): Step {
  if (uri.startsWith('direct:')) {
    const name = uri.slice('direct:'.length);
    return (ex) => bus.call(name, ex);
  }
  if (uri.startsWith('log:')) {
    const prefix = `[${uri.slice(4).split('?')[0]}] `;
    return (ex) => logger.info(prefix + asText(ex.message.body), requestFields(ex));
  }
  if (/^https?:\/\//i.test(uri)) {
    // Said once at startup rather than by every request: a URL fetch cannot use.
    if (!URL.canParse(uri)) throw new Error(`to ${uri}: not a valid URL`);
    const url = new URL(uri);
    if (url.username !== '' || url.password !== '') throw new Error(`to ${url.protocol}//${url.host}${url.pathname}: credentials in the URL are not sent; set an Authorization header instead`);
    return (ex) => forwardToBackend(uri, ex);
  }
  throw new Error(`unsupported endpoint ${uri} (allowed: direct:, log:, http://, https://)`);
}

/** Log lines of a request carry its id (X-Request-Id, given or made by the facade). */
function requestFields(ex: Exchange): LogFields | undefined {
  const id = ex.message.headers.get(REQUEST_ID_HEADER);
  return typeof id === 'string' ? { requestId: id } : undefined;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
