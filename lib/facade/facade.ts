// The facade as served: its listener, the management server, stop with a drain, reload and watch. Each build
// is a version (lib/facade/version.ts) served through its dispatcher (lib/facade/dispatch.ts).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FacadeConfig, ServerOptions } from '../config/model.js';
import type { Contract } from '../contract/load.js';
import { closeGracefully, listen } from '../http/server.js';
import { createListener } from '../http/listener.js';
import { certificateMetrics, type CertificateReloader } from '../http/cert-reload.js';
import { createLogger, type Logger } from '../util/log.js';
import { startManagementServer } from '../observe/management.js';
import { describeChanges, operationChanges, type OperationChanges } from '../watch/changes.js';
import { besideFiles } from '../config/load.js';
import { mockFolders } from '../mock/files.js';
import { SourceWatcher, type WatchedSources } from '../watch/watcher.js';
import { buildVersion, type FacadeVersion } from './version.js';
import type { ServedOperation } from '../message/stages.js';
import { ServedVersion } from './dispatch.js';

export type { Disposition } from '../message/stages.js';
export type { OperationChanges } from '../watch/changes.js';

export type { ServedOperation } from '../message/stages.js';

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
  /**
   * Called as a reload starts building; what it returns is called once the reload has ended (built and
   * swapped in, or failed). The CLI keeps memory as small as at its start with it (lib/cli/startup-garbage.ts).
   * @internal
   */
  aroundReload?: () => () => void;
}

export async function buildFacade(config: FacadeConfig, options: BuildOptions = {}): Promise<Facade> {
  const logger = options.logger ?? createLogger(config.observe.logFormat);
  const version = await buildVersion(config, logger);
  return assembleFacade(version, {
    logger,
    reloadConfig: options.reloadConfig ?? (async () => config),
    configFiles: options.configFiles ?? [],
    aroundReload: options.aroundReload,
  });
}

function assembleFacade(first: FacadeVersion, sources: { logger: Logger; reloadConfig: () => Promise<FacadeConfig>; configFiles: readonly string[]; aroundReload: (() => () => void) | undefined }): Facade {
  let current = new ServedVersion(first);
  let server: Server | undefined;
  /** The certificate watchers of the TLS listeners; their metrics are on every version's /observe/metrics. */
  const reloaders: CertificateReloader[] = [];
  const withListenerMetrics = (version: FacadeVersion): FacadeVersion => {
    version.observation.metrics?.addListenerFamilies((out) => certificateMetrics(out, reloaders));
    return version;
  };
  withListenerMetrics(first);
  let management: Server | undefined;
  let watcher: SourceWatcher | undefined;
  let reloading: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const { logger } = sources;

  const rebuild = async (): Promise<OperationChanges> => {
    const ended = sources.aroundReload?.();
    try {
      return await buildAndSwap();
    } finally {
      ended?.();
    }
  };

  const buildAndSwap = async (): Promise<OperationChanges> => {
    const next = await buildVersion(await sources.reloadConfig(), logger);
    // Stopped while it was built: never served, so disposed at once.
    if (stopped) {
      new ServedVersion(next).retire();
      return { added: [], removed: [], changed: [] };
    }
    const previous = current;
    // Fixed at the first listen(): a changed port, host or management port would need a new socket.
    for (const note of restartOnlyChanges(previous.version, next)) logger.warn(`reload: ${note} changed; it takes effect on restart`);
    current = new ServedVersion(withListenerMetrics(next));
    previous.retire();
    return operationChanges(previous.version, next);
  };

  const facade: Facade = {
    handler: (req, res) => current.dispatch(req, res, undefined),
    middleware: (req, res, next) => current.dispatch(req, res, next),
    async listen(port = current.version.serverOptions.port, host = current.version.serverOptions.host) {
      const { config, serverOptions } = current.version;
      if (server === undefined) {
        const main = createListener(facade.handler, serverOptions, { tls: config.tls, baseDir: config.baseDir, where: 'svc.server.tls', label: 'server', http2: serverOptions.http2 }, logger);
        server = main.server;
        if (main.reloader) reloaders.push(main.reloader.start());
      }
      const address = await listen(server, port, host);
      const { port: managementPort, host: managementHost = host } = current.version.observation.options;
      if (managementPort !== undefined && management === undefined) {
        const spec = { tls: config.observeTls, baseDir: config.baseDir, where: 'svc.observe.tls', label: 'management', http2: false };
        const started = await startManagementServer(() => current.version.endpoints, managementPort, managementHost, serverOptions, spec, logger);
        management = started.server;
        if (started.reloader) reloaders.push(started.reloader.start());
      }
      return address;
    },
    start() {
      return facade.listen();
    },
    async stop() {
      stopped = true;
      watcher?.close();
      watcher = undefined;
      for (const reloader of reloaders) reloader.stop();
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
  // Certificate files are watched (lib/http/cert-reload.ts); which files, and the TLS settings, are the listener's.
  if (JSON.stringify(before.config.tls) !== JSON.stringify(after.config.tls) || a.http2 !== b.http2) notes.push('svc.server.tls or svc.server.http2');
  if (JSON.stringify(before.config.observeTls) !== JSON.stringify(after.config.observeTls)) notes.push('svc.observe.tls');
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
