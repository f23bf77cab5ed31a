// What the facade adds for operators (`svc.observe.*`): the per-operation request hook (metrics, access
// log), the health and metrics endpoints, and where they are served (the main port or a management port).
import { performance } from 'node:perf_hooks';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { OBSERVE_DEFAULTS, type FacadeConfig, type ObserveOptions } from '../config/model.js';
import type { Operation } from '../contract/operations.js';
import { bodyLengthOf } from '../http/body-length.js';
import { Errors, SvcError, svcError } from '../util/errors.js';
import type { Router } from '../http/router.js';
import type { Logger } from '../util/log.js';
import type { Disposition, OperationRuntime, OperationStages, RequestObserver } from '../message/stages.js';
import { compileAccessLog, type AccessLog } from './access-log.js';
import { CONTENT_TYPE } from '../util/exposition.js';
import { Health, send, type Probe } from './health.js';
import { FacadeMetrics, type OperationMetrics } from './metrics.js';

/**
 * When the request reached its operation (performance.now()), kept on the response for the close hook.
 * perf_hooks' own `performance`, not the global one: that is a lazy getter on globalThis, one more call a read.
 */
const STARTED = Symbol('svc.started');
type TimedResponse = ServerResponse & { [STARTED]: number };

type EndpointOption = 'healthPath' | 'metricsPath';
export type Endpoints = Map<string, { option: EndpointOption; probe: Probe }>;

/** The observe options in effect: the configured ones over the defaults. */
export function observeOptions(config: FacadeConfig): ObserveOptions {
  return { ...OBSERVE_DEFAULTS, ...config.observe };
}

export class Observation {
  readonly options: ObserveOptions;
  readonly metrics: FacadeMetrics | undefined;
  private readonly accessLog: AccessLog | undefined;
  private health: Health | undefined;
  /** Paths the configuration names (not defaults): a conflict with the contract is then an error. */
  private readonly chosen: Record<EndpointOption, boolean>;

  constructor(config: FacadeConfig, private readonly logger: Logger) {
    this.options = observeOptions(config);
    this.chosen = { healthPath: config.observe.healthPath !== undefined, metricsPath: config.observe.metricsPath !== undefined };
    this.metrics = this.options.metrics ? new FacadeMetrics() : undefined;
    this.accessLog = this.options.accessLog ? compileAccessLog(this.options.logFormat, logger) : undefined;
  }

  /**
   * One operation's hook and stages: validation rejections and mock answers are counted by wrapping those
   * stages; the rest when the response closes. Nothing at all when metrics and the access log are off.
   */
  instrument(op: Operation, disposition: Disposition, stages: OperationStages): { stages: OperationStages; observer: RequestObserver | undefined } {
    const { metrics, accessLog } = this;
    if (metrics === undefined && accessLog === undefined) return { stages, observer: undefined };
    const counts = metrics?.operation(op.id, op.method);
    return { stages: counts ? countedStages(stages, disposition, counts) : stages, observer: requestObserver(op.id, metrics, counts, accessLog) };
  }

  /** A 404 or 405 the dispatcher answered (no operation, so counted apart). */
  unmatched(req: IncomingMessage, res: ServerResponse, status: 404 | 405 | 204 | 403): void {
    // A CORS preflight (204, or 403 refused) is counted by no operation; the access log has it.
    if (this.metrics !== undefined) {
      if (status === 404) this.metrics.notFound++;
      else if (status === 405) this.metrics.methodNotAllowed++;
    }
    this.accessLog?.(req, res, undefined, 0, bodyLengthOf(res));
  }

  /** The endpoints by path (with the option that named it); the health body reports the operation and route counts. */
  endpoints(operations: number, routes: number): Endpoints {
    const out: Endpoints = new Map();
    const add = (option: EndpointOption, path: string, probe: Probe): void => {
      if (path === '' || path === '/') throw svcError(Errors.CONFIG_INVALID, 'observe options', `observe.${option}`, JSON.stringify(path), 'a path starting with / other than /');
      if (out.has(path)) throw svcError(Errors.OBSERVE_PATH_CONFLICT, option, path, 'another observe endpoint');
      out.set(path, { option, probe });
    };
    if (this.options.health) {
      this.health = new Health(operations, routes);
      const base = this.options.healthPath.replace(/\/+$/, '');
      if (base === '') throw svcError(Errors.CONFIG_INVALID, 'observe options', 'observe.healthPath', JSON.stringify(this.options.healthPath), 'a path starting with / other than /');
      for (const [suffix, probe] of Object.entries(this.health.probes())) add('healthPath', `${base}${suffix}`, probe);
    }
    const { metrics } = this;
    if (metrics !== undefined) add('metricsPath', this.options.metricsPath.replace(/\/+$/, ''), (req, res) => send(req, res, 200, metrics.render(), CONTENT_TYPE));
    return out;
  }

  /**
   * Serves the endpoints on the main port, never in place of a contract path (or the published contract):
   * a configured path that a contract path would also match fails startup; a default one (a contract with
   * `/{a}/{b}` matches `/observe/metrics`) is left out with a warning, with all the paths of its option.
   */
  mount(router: Router<OperationRuntime>, endpoints: Endpoints): void {
    const conflicts = new Map<EndpointOption, string>();
    for (const [path, { option }] of endpoints) if (!conflicts.has(option) && router.find(path) !== undefined) conflicts.set(option, path);
    for (const [option, path] of conflicts) {
      const err = svcError(Errors.OBSERVE_PATH_CONFLICT, option, path, 'a path of the contract');
      if (this.chosen[option]) throw err;
      this.logger.warn(`${option === 'healthPath' ? 'health' : 'metrics'} not served: ${err.message}`);
    }
    for (const [path, { option, probe }] of endpoints) if (!conflicts.has(option)) router.add('GET', path, { serve: probe });
  }

  /** A graceful stop has begun: ready answers 503 from now on. */
  drain(): void {
    this.health?.drain();
  }

  stop(): void {
    this.metrics?.stop();
  }
}

function countedStages(stages: OperationStages, disposition: Disposition, counts: OperationMetrics): OperationStages {
  const { check, invoke, checkResponse } = stages;
  const out = { ...stages };
  if (check !== undefined) {
    out.check = (facts) => {
      try {
        check(facts);
      } catch (err) {
        if (isUncompilable(err)) counts.uncompilable++;
        else counts.rejections++;
        throw err;
      }
    };
  }
  if (checkResponse !== undefined) {
    out.checkResponse = (ex, facts) => {
      try {
        checkResponse(ex, facts);
      } catch (err) {
        if (isUncompilable(err)) counts.uncompilable++;
        throw err;
      }
    };
  }
  if (disposition === 'mock') {
    out.invoke = (ex) => {
      counts.mockAnswers++;
      return invoke(ex);
    };
  }
  return out;
}

/** A refusal because a schema could not be compiled (a 500, not a client's invalid request). */
function isUncompilable(err: unknown): boolean {
  return err instanceof SvcError && err.code === Errors.SCHEMA_UNCOMPILABLE.code;
}

/**
 * The runtime calls begin() and end() around each answer (no event listener per request): the start time
 * rides on the response, everything else was made here once.
 */
function requestObserver(operationId: string, metrics: FacadeMetrics | undefined, counts: OperationMetrics | undefined, accessLog: AccessLog | undefined): RequestObserver {
  return {
    begin(_req, res) {
      if (metrics !== undefined) metrics.inFlight++;
      (res as TimedResponse)[STARTED] = performance.now();
    },
    received(bytes) {
      if (counts !== undefined) counts.requestBytes += bytes;
    },
    end(res) {
      const seconds = (performance.now() - (res as TimedResponse)[STARTED]) / 1000;
      // A destroyed response went nowhere: its client left before the answer.
      const delivered = !res.destroyed;
      const bytes = delivered && res.req.method !== 'HEAD' ? bodyLengthOf(res) : 0;
      if (metrics !== undefined) {
        metrics.inFlight--;
        if (delivered) counts!.answered(res.statusCode, seconds, bytes);
        else metrics.aborted++;
      }
      accessLog?.(res.req, res, operationId, seconds, bytes);
    },
  };
}
