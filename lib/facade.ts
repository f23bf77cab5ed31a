// The facade: config → contract → operations → routes → router → one request listener.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bindingFeature } from './binding/binding.js';
import { type FacadeConfig, resolvedBackendOptions, resolvedServerOptions, type ServerOptions } from './config/model.js';
import { joinPaths, resolveBasePath } from './contract/base-path.js';
import { loadContract, type Contract } from './contract/load.js';
import { isReceivable, unreceivableWarning } from './contract/methods.js';
import { compileOperations, type Operation } from './contract/operations.js';
import { exampleObjectProblems } from './contract/example-objects.js';
import { Errors, SvcError, svcError } from './errors.js';
import { compileStaticProblem } from './http/problem.js';
import { pickCandidate, Router } from './http/router.js';
import { closeGracefully, createHttpServer, listen } from './http/server.js';
import { registerSpecEndpoints } from './http/spec-endpoint.js';
import { createLogger, type Logger } from './log.js';
import { mockFeature } from './mock/mock.js';
import { createBackendContext, type BackendContext } from './routes/backend/context.js';
import { retrySafetyTable } from './routes/backend/retry-safety.js';
import { DirectBus } from './routes/bus.js';
import type { Exchange } from './routes/exchange.js';
import { compileRoute } from './routes/steps.js';
import { checkOrphanRoutes } from './routes/orphans.js';
import { bindTypedRoutes } from './routes/typed.js';
import { compileOperationRuntime, echoBody } from './pipeline/runtime.js';
import { Observation, type Endpoints } from './observe/observation.js';
import { backendFamilies } from './observe/backend-metrics.js';
import { assignRequestId } from './observe/request-id.js';
import { startManagementServer } from './observe/management.js';
import { consumerStages } from './security/components.js';
import { sequenceFeature } from './streams/feature.js';
import { describeChanges, operationChanges, type OperationChanges } from './watch/changes.js';
import { besideFiles } from './config/load.js';
import { mockFolders } from './mock/files.js';
import { SourceWatcher, type WatchedSources } from './watch/watcher.js';
import type { Disposition, Feature, FeatureContext, OperationRuntime, OperationStages } from './pipeline/stages.js';

export type { Disposition } from './pipeline/stages.js';
export type { OperationChanges } from './watch/changes.js';

export interface ServedOperation {
  operation: Operation;
  /** Full path served: base path + operation path. */
  path: string;
  endpoint: string;
  disposition: Disposition;
}

export interface Facade {
  /** A `node:http` request listener. */
  handler(req: IncomingMessage, res: ServerResponse): void;
  /** Express/Connect style: calls next() for paths outside the contract. */
  middleware(req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): void;
  listen(port?: number, host?: string): Promise<AddressInfo>;
  start(): Promise<AddressInfo>;
  stop(): Promise<void>;
  readonly operations: readonly ServedOperation[];
  readonly basePath: string;
  readonly contract: Contract;
  readonly server: Server | undefined;
  readonly serverOptions: ServerOptions;
  /** Where health and metrics are served when `svc.observe.port` is set (after listen()). */
  readonly managementAddress: AddressInfo | undefined;
  /** Startup lines: one per operation, plus notes on skipped webhooks/callbacks and ignored operations. */
  readonly startupReport: readonly string[];
  /**
   * Builds the facade again from its sources (configuration files, route modules, contract, mock folder) and
   * swaps it in: requests under way finish on the version they started on, new ones get the new one, the
   * server and its port stay. Rejects, and keeps the current version serving, when the new one cannot be
   * built. Calls are serialized. See docs/watch.md.
   */
  reload(): Promise<OperationChanges>;
  /** Reloads on every change of a source file (debounced), logging what changed; stop() ends it. */
  watch(): void;
}

export interface BuildOptions {
  logger?: Logger;
  /** The configuration for reload(): read again from its sources. Default: the same configuration object. */
  reloadConfig?: () => Promise<FacadeConfig>;
  /** Configuration files and route modules, watched by watch() besides the contract and mock folder. */
  configFiles?: readonly string[];
}

export async function buildFacade(config: FacadeConfig, options: BuildOptions = {}): Promise<Facade> {
  const logger = options.logger ?? createLogger(config.observe.logFormat);
  const version = await buildVersion(config, logger);
  return assembleFacade(version, {
    logger,
    reloadConfig: options.reloadConfig ?? (async () => config),
    configFiles: options.configFiles ?? [],
  });
}

/** One build of the facade: what a request is served by, and what must be disposed when it is retired. */
interface FacadeVersion {
  config: FacadeConfig;
  router: Router<OperationRuntime>;
  contract: Contract;
  basePath: string;
  operations: ServedOperation[];
  report: string[];
  serverOptions: ServerOptions;
  backends: BackendContext;
  observation: Observation;
  endpoints: Endpoints;
}

async function buildVersion(config: FacadeConfig, logger: Logger): Promise<FacadeVersion> {
  const specification = config.openApi.specification;
  if (!specification) throw svcError(Errors.SPEC_MISSING);
  const consumer = await consumerStages(config, logger);
  const contract = await loadContract(specification, config.baseDir);
  const basePath = resolveBasePath(contract.doc, { componentBasePath: config.componentBasePath, contextPath: config.rest.contextPath });
  const table = compileOperations(contract);
  for (const problem of exampleObjectProblems(contract.doc)) logger.warn(`contract: example ${problem}`);

  const bus = new DirectBus();
  const serverOptions = resolvedServerOptions(config);
  const backends = createBackendContext(resolvedBackendOptions(config), serverOptions.maxBodySize, config.baseDir, logger, retrySafetyTable(table.operations));
  bindTypedRoutes(config, table.operations, contract);
  for (const def of config.routes) {
    try {
      bus.register(compileRoute(def, bus, logger, backends));
    } catch (err) {
      if (err instanceof SvcError) throw err;
      throw svcError(Errors.STEP_INVALID, `${def.source} (${def.from})`, (err as Error).message);
    }
  }
  // A `to: direct:x` with no consumer would fail every request that reaches it; say so at startup instead.
  for (const def of config.routes) {
    for (const step of def.steps) {
      if (step.kind === 'to' && step.uri.startsWith('direct:') && !bus.has(step.uri.slice('direct:'.length))) {
        throw svcError(Errors.UNKNOWN_DIRECT_TARGET, `${def.source} (${def.from})`, step.uri);
      }
    }
  }

  // Before the unmapped operations: a route under a mistyped name is the usual cause of one.
  checkOrphanRoutes(config.routes, table.operations.map((op) => op.id));

  const missingOperation = config.openApi.missingOperation ?? (config.dev ? 'mock' : 'fail');
  const missing = table.operations.filter((op) => !bus.has(op.id)).map((op) => op.id);
  if (missing.length > 0 && missingOperation === 'fail') {
    throw svcError(Errors.UNMAPPED_OPERATIONS, missing.length, [...missing].sort().map((id) => `\n\tdirect:${id}`).join(''));
  }

  const router = new Router<OperationRuntime>();
  const operations: ServedOperation[] = [];
  const report: string[] = [];
  const ctx: FeatureContext = { config, contract, basePath, logger, serverOptions };
  const observation = new Observation(config, logger);
  observation.metrics?.families.push((out, withWorker) => backendFamilies(out, backends, withWorker));
  // Validation (ajv for two dialects) is imported only when it is on: that is a tenth of a second of startup.
  const validating = config.rest.clientRequestValidation === true || config.rest.clientResponseValidation === true;
  const features: Feature[] = [
    ...(validating ? [(await import('./validation/validator.js')).validationFeature] : []),
    await bindingFeature(ctx),
    mockFeature,
    sequenceFeature,
  ];
  for (const op of table.operations) {
    const path = joinPaths(basePath, op.template);
    const route = bus.get(op.id);
    const disposition: Disposition = route ? 'route' : missingOperation === 'mock' ? 'mock' : 'ignored';
    let stages: OperationStages = { ...consumer, invoke: route ? (ex: Exchange) => route.run(ex) : echoBody, streamsRequestBody: route?.streamsRequestBody === true };
    for (const feature of features) stages = { ...stages, ...feature(op, disposition, ctx) };
    const observed = observation.instrument(op, disposition, stages);
    router.add(op.method, path, compileOperationRuntime(op, observed.stages, ctx, observed.observer), op.queryDiscriminator);
    operations.push({ operation: op, path, endpoint: `direct:${op.id}`, disposition });
    report.push(`${op.method} ${joinPaths(basePath, op.path)} -> direct:${op.id} [${disposition}]`);
    if (!isReceivable(op.method)) logger.warn(unreceivableWarning(op.method, path, op.id));
  }
  if (table.skipped.webhooks > 0) report.push(`skipped ${table.skipped.webhooks} webhook(s): webhooks are not served`);
  if (table.skipped.callbacks > 0) report.push(`skipped ${table.skipped.callbacks} callback(s): callbacks are not served`);
  if (missing.length > 0 && missingOperation === 'ignore') logger.warn(`missingOperation=ignore: ${missing.length} operation(s) have no route and echo the request: ${missing.map((id) => `direct:${id}`).join(', ')}`);

  registerSpecEndpoints(router, ctx);
  const endpoints = observation.endpoints(operations.length, operations.filter((o) => o.disposition === 'route').length);
  if (observation.options.port === undefined) observation.mount(router, endpoints);

  return { config, router, contract, basePath, operations, report, serverOptions, backends, observation, endpoints };
}

const notFound = compileStaticProblem(Errors.NOT_FOUND);
const methodNotAllowed = compileStaticProblem(Errors.METHOD_NOT_ALLOWED);

const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/**
 * The request target in origin form. An absolute-form target (`http://host/path?q`, RFC 9112 §3.2.2) loses
 * its scheme and authority, so the path headers and mock lookups see the same path the router matched.
 */
function originForm(target: string): string {
  if (target.charCodeAt(0) === 0x2f) return target;
  const rest = target.replace(ABSOLUTE_FORM, '');
  if (rest === target) return target;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * A version as served: its dispatcher, and the requests under way on it, so that a version a reload replaced
 * is disposed (backend pools closed, event-loop monitor stopped) only after its last request finished.
 */
class ServedVersion {
  private inflight = 0;
  private retired = false;
  private disposed = false;
  private readonly settle = (): void => {
    if (--this.inflight === 0 && this.retired) this.dispose();
  };
  readonly dispatch: (req: IncomingMessage, res: ServerResponse, next: ((err?: unknown) => void) | undefined) => void;

  constructor(readonly version: FacadeVersion) {
    const { router, observation } = version;
    this.dispatch = (req, res, next) => {
      const url = originForm(req.url ?? '/');
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const query = q === -1 ? '' : url.slice(q + 1);
      const match = router.find(path);
      if (match === undefined) {
        if (next) return next();
        assignRequestId(req, res);
        notFound(res);
        observation.unmatched(req, res, 404);
        return;
      }
      assignRequestId(req, res);
      let candidates = match.entry.byMethod[req.method ?? 'GET'];
      if (candidates === undefined && req.method === 'HEAD') candidates = match.entry.byMethod.GET;
      if (candidates === undefined) {
        methodNotAllowed(res, { allow: match.entry.allow });
        observation.unmatched(req, res, 405);
        return;
      }
      const chosen = pickCandidate(candidates, query);
      this.inflight++;
      // `on`, not `once` (no wrapper per request): a response closes once.
      res.on('close', this.settle);
      chosen.target.serve(req, res, match.params, chosen.paramNames, path, query);
    };
  }

  /** Replaced: disposed as soon as no request is under way on it. */
  retire(): void {
    this.retired = true;
    if (this.inflight === 0) this.dispose();
  }

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.version.observation.stop();
    this.version.backends.close();
  }
}

function assembleFacade(first: FacadeVersion, sources: { logger: Logger; reloadConfig: () => Promise<FacadeConfig>; configFiles: readonly string[] }): Facade {
  let current = new ServedVersion(first);
  let server: Server | undefined;
  let management: Server | undefined;
  let watcher: SourceWatcher | undefined;
  let reloading: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const { logger } = sources;

  const rebuild = async (): Promise<OperationChanges> => {
    const next = await buildVersion(await sources.reloadConfig(), logger);
    // Stopped while it was built: never served, so disposed at once.
    if (stopped) {
      new ServedVersion(next).retire();
      return { added: [], removed: [], changed: [] };
    }
    const previous = current;
    // Fixed at the first listen(): a changed port, host or management port would need a new socket.
    for (const note of restartOnlyChanges(previous.version, next)) logger.warn(`reload: ${note} changed; it takes effect on restart`);
    current = new ServedVersion(next);
    previous.retire();
    return operationChanges(previous.version, next);
  };

  const facade: Facade = {
    handler: (req, res) => current.dispatch(req, res, undefined),
    middleware: (req, res, next) => current.dispatch(req, res, next),
    async listen(port = current.version.serverOptions.port, host = current.version.serverOptions.host) {
      server ??= createHttpServer(facade.handler, current.version.serverOptions);
      const address = await listen(server, port, host);
      const { port: managementPort, host: managementHost = host } = current.version.observation.options;
      if (managementPort !== undefined) management ??= await startManagementServer(() => current.version.endpoints, managementPort, managementHost, current.version.serverOptions);
      return address;
    },
    start() {
      return facade.listen();
    },
    async stop() {
      stopped = true;
      watcher?.close();
      watcher = undefined;
      const { observation, serverOptions } = current.version;
      // Not ready from now on; the listener stays open for the drain delay so a load balancer sees it first.
      observation.drain();
      const delay = observation.options.drainDelay;
      if (server?.listening && delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
      if (server) await closeGracefully(server, serverOptions.shutdownTimeout);
      if (management) await closeGracefully(management, serverOptions.shutdownTimeout);
      current.retire();
    },
    reload() {
      const run = reloading.then(rebuild);
      reloading = run.catch(() => undefined);
      return run;
    },
    watch() {
      if (watcher) return;
      const reloadAndReport = (): void => {
        facade.reload().then(
          (changes) => {
            for (const line of describeChanges(changes)) logger.info(`reload: ${line}`);
            watcher?.update(watchedSources(current.version, sources.configFiles));
          },
          (err: unknown) => {
            logger.error(`reload failed, still serving the previous version: ${oneLine(err)}`);
            watcher?.widen();
          },
        );
      };
      watcher = new SourceWatcher(watchedSources(current.version, sources.configFiles), reloadAndReport);
    },
    get operations() {
      return current.version.operations;
    },
    get basePath() {
      return current.version.basePath;
    },
    get contract() {
      return current.version.contract;
    },
    get server() {
      return server;
    },
    get serverOptions() {
      return current.version.serverOptions;
    },
    get managementAddress() {
      return management?.address() as AddressInfo | undefined;
    },
    get startupReport() {
      return current.version.report;
    },
  };
  return facade;
}

/** Options a reload cannot apply to a server that is already listening. */
function restartOnlyChanges(before: FacadeVersion, after: FacadeVersion): string[] {
  const notes: string[] = [];
  const a = before.serverOptions;
  const b = after.serverOptions;
  if (a.port !== b.port) notes.push('svc.server.port');
  if (a.host !== b.host) notes.push('svc.server.host');
  if (a.requestTimeout !== b.requestTimeout || a.headersTimeout !== b.headersTimeout || a.keepAliveTimeout !== b.keepAliveTimeout) notes.push('a server timeout');
  if (before.observation.options.port !== after.observation.options.port || before.observation.options.host !== after.observation.options.host) notes.push('svc.observe.port/host');
  return notes;
}

/** The files and folders a version was built from. */
function watchedSources(version: FacadeVersion, configFiles: readonly string[]): WatchedSources {
  return {
    files: [...configFiles, ...besideFiles(configFiles), ...version.contract.refs.localFiles()],
    folders: mockFolders(version.config),
  };
}

/** An error's message on one line (a list in it joined by spaces): a reload failure is one line, never a stack. */
function oneLine(err: unknown): string {
  return ((err as Error)?.message ?? String(err)).trim().replace(/\s*\n\s*/g, ' ');
}
