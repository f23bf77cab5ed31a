// The serve command: `svc-facade [--port N] [--host H] [--dev] [--watch] FILE...`, and the server that
// `svc-facade mock` starts: configuration read, facade built, workers supervised, signals handled.
import { Server as TlsServer } from 'node:tls';
import cluster from 'node:cluster';
import { resolve } from 'node:path';
import type { AddressInfo } from 'node:net';
import { loadConfigFiles } from '../config/load.js';
import { setOption, type FacadeConfig } from '../config/model.js';
import { Errors, svcError } from '../util/errors.js';
import { buildFacade } from '../facade/facade.js';
import { createLogger, silentLogger } from '../util/log.js';
import { collectStartupGarbage, holdYoungGeneration } from './startup-garbage.js';
import { superviseWorkers } from './workers.js';
import { writeHealthcheckFile } from '../observe/healthcheck-file.js';
import { mockConfig, type MockArgs } from './mock.js';
import { walkArgs } from './args.js';

export const USAGE = `Usage: svc-facade [options] FILE...
       svc-facade mock [--port N] [--host H] [--dynamic] [--watch] CONTRACT
       svc-facade validate CONTRACT...
       svc-facade types CONTRACT-OR-CONFIG [-o FILE]

Serves the OpenAPI contract named in the configuration FILEs, routing each operation to direct:<operationId>.
FILE types: .yaml/.yml (YAML DSL), .xml (XML DSL), .properties, .js/.mjs/.ts (a RouteBuilder module).

Options:
  --port N      listen on port N (0: any free port; default svc.server.port or 8080)
  --host H      listen on host H (default svc.server.host or 0.0.0.0)
  --dev         development profile: missingOperation defaults to mock
  --watch       reload when the contract, a file it $refs, a configuration file, a route module or a
                mock file changes (same port, no request dropped; see docs/watch.md)
  --help        print this help
  --version     print the version
`;

export interface CliArgs {
  files: string[];
  port?: string;
  host?: string;
  dev: boolean;
  watch: boolean;
}

export function parseArgs(argv: readonly string[]): CliArgs | 'help' | 'version' {
  const args: CliArgs = { files: [], dev: false, watch: false };
  const stop = walkArgs(argv, (flag, value): 'help' | 'version' | undefined => {
    if (flag === '--help' || flag === '-h') return 'help';
    if (flag === '--version' || flag === '-v') return 'version';
    if (flag === '--port') args.port = value();
    else if (flag === '--host') args.host = value();
    else if (flag === '--dev') args.dev = true;
    else if (flag === '--watch') args.watch = true;
    else if (flag.startsWith('-')) throw svcError(Errors.CLI_USAGE, `unknown option ${flag}; allowed: --port, --host, --dev, --watch, --help, --version`);
    else args.files.push(flag);
    return undefined;
  });
  if (stop !== undefined) return stop;
  if (args.files.length === 0) throw svcError(Errors.CLI_USAGE, 'no configuration file given (try --help)');
  return args;
}

/** Serves what the parsed command line names (configuration files, or the mock's contract) until a signal. */
export async function serve(parsed: CliArgs | MockArgs): Promise<void> {
  const releaseYoungGeneration = holdYoungGeneration();
  try {
    await start(parsed, releaseYoungGeneration);
  } finally {
    releaseYoungGeneration();
  }
}

async function start(parsed: CliArgs | MockArgs, releaseYoungGeneration: () => void): Promise<void> {
  // Read again, route modules imported anew, on every reload of watch mode.
  const readConfig = async (fresh: boolean): Promise<FacadeConfig> => {
    const config = 'contract' in parsed ? mockConfig(parsed) : await loadConfigFiles(parsed.files, process.env, { fresh });
    if (parsed.port !== undefined) setOption(config, 'server', 'port', parsed.port, '--port');
    if (parsed.host !== undefined) setOption(config, 'server', 'host', parsed.host, '--host');
    if (parsed.dev) config.dev = true;
    return config;
  };
  const config = await readConfig(false);
  // One format for every line: with svc.observe.logFormat=json the listing is JSON lines too.
  const logger = createLogger(config.observe.logFormat);
  // Watch mode is one process: each worker reloading on its own would serve different versions at once.
  if (parsed.watch && (config.server.workers ?? 1) > 1) {
    logger.warn(`--watch runs one process: svc.server.workers=${config.server.workers} is ignored`);
    config.server.workers = 1;
  }
  const workers = config.server.workers ?? 1;
  if (workers > 1 && cluster.isPrimary) {
    // Fail fast and once: the contract and routes are checked here, before any worker starts.
    await (await buildFacade(config, { logger: silentLogger })).stop();
    superviseWorkers(workers, logger);
    return;
  }
  const configFiles = 'contract' in parsed ? [] : parsed.files.map((file) => resolve(file));
  const quiet = cluster.isWorker && cluster.worker?.id !== 1;
  // A reload builds as a start does: the young generation held at its size, one compacting collection after.
  const aroundReload = (): (() => void) => {
    const release = holdYoungGeneration();
    return () => {
      release();
      collectStartupGarbage();
    };
  };
  const facade = await buildFacade(config, { logger, reloadConfig: () => readConfig(true), configFiles, aroundReload });
  if (!quiet) for (const line of facade.startupReport) logger.info(line);
  const address = await facade.listen();
  // Before the listening line (serve() releases it too when the start fails or returns early).
  releaseYoungGeneration();
  // One line saying why the process is going away: an orchestrator's SIGTERM is otherwise invisible in the log.
  // A signal repeated while stopping changes nothing (no default action cutting the drain short).
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info(`stopping: ${signal}`);
    facade.stop().then(() => process.exit(0));
  };
  // Before the line that says it is ready: a supervisor may signal as soon as it reads it.
  process.on('SIGTERM', stop).on('SIGINT', stop);
  if (!quiet && facade.managementAddress) logger.info(`health and metrics on ${url(facade.managementAddress, config.observeTls.certFile !== undefined)}`);
  const origin = url(address, facade.server instanceof TlsServer);
  if (!quiet) logger.info(`listening on ${origin}`);
  // The mock has no configuration to read the base path from: say where its operations are.
  if (!quiet && 'contract' in parsed) logger.info(`mock: ${facade.operations.length} operation(s) served under ${origin}${facade.basePath.replace(/\/$/, '')}`);
  // For the container image's HEALTHCHECK (dist/healthcheck.js): where health is served, as configured.
  if (!quiet && process.env.SVC_HEALTHCHECK_FILE) writeHealthcheckFile(process.env.SVC_HEALTHCHECK_FILE, config, address, facade.managementAddress);
  if (parsed.watch) {
    facade.watch();
    logger.info('watching the contract, the files it references, the configuration, route modules and mock files');
  }
  collectStartupGarbage();
}

// An IPv6 address goes in brackets, so the printed line is a usable URL (RFC 3986 §3.2.2).
function url(address: AddressInfo, secure: boolean): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `${secure ? 'https' : 'http'}://${host}:${address.port}`;
}

