// The facade: config → contract → operations → routes → router → one request listener.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bindingFeature } from './binding/binding.js';
import { type FacadeConfig, resolvedServerOptions, type ServerOptions } from './config/model.js';
import { joinPaths, resolveBasePath } from './contract/base-path.js';
import { compileQueryDefaults } from './contract/defaults.js';
import { loadContract, type Contract } from './contract/load.js';
import { compileOperations, type Operation } from './contract/operations.js';
import { Errors, SvcError, svcError, type ErrorDef } from './errors.js';
import { hasBody, readBody } from './http/body.js';
import { compileStaticProblem, sendError, sendProblem } from './http/problem.js';
import { writeExchange, type BodySerializer } from './http/respond.js';
import { PARAM_KEYS, pickCandidate, Router } from './http/router.js';
import { closeGracefully, createHttpServer, listen } from './http/server.js';
import { registerSpecEndpoints } from './http/spec-endpoint.js';
import { consoleLogger, type Logger } from './log.js';
import { mockFeature } from './mock/mock.js';
import { DirectBus } from './routes/bus.js';
import { Exchange, HeaderNames, Headers, isInternalName, PropertyNames } from './routes/exchange.js';
import { compileRoute } from './routes/steps.js';

export type Disposition = 'route' | 'mock' | 'ignored';

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
  /** Startup lines: one per operation, plus notes on skipped webhooks/callbacks and ignored operations. */
  readonly startupReport: readonly string[];
}

/** One operation's request handling, built once. */
export interface OperationRuntime {
  serve(req: IncomingMessage, res: ServerResponse, params: Record<string, string | undefined>, paramNames: readonly string[], path: string, query: string): void;
}

/** What the request said, for stages that look at it before the exchange exists. */
export interface RequestFacts {
  req: IncomingMessage;
  /** The request path as received (before decoding), without the query. */
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  /** Path parameters by their contract names, percent-decoded once. */
  pathParams: Record<string, string | undefined>;
  /** The request body bytes, if any. */
  raw: Buffer | undefined;
  /** The parsed body, set by the first stage that parses it (validation), so later stages need not parse again. */
  body?: unknown;
}

/**
 * One operation's request pipeline, in order: check (validation; throws SvcError) → decode (sets the
 * exchange body from the raw bytes; binding) → invoke (route, mock or echo) → checkResponse → serialize.
 */
export interface OperationStages {
  check?: (facts: RequestFacts) => void;
  decode?: (facts: RequestFacts, ex: Exchange) => void;
  invoke: (ex: Exchange) => void | Promise<void>;
  checkResponse?: (ex: Exchange, facts: RequestFacts) => void;
  serialize?: BodySerializer;
}

/** Everything a feature may use when compiling its stages for an operation, once at startup. */
export interface FeatureContext {
  config: FacadeConfig;
  contract: Contract;
  basePath: string;
  logger: Logger;
  serverOptions: ServerOptions;
}

/**
 * A feature (validation, binding, mock) compiles its stages for one operation at startup; it returns only
 * the stages it provides, which replace the defaults.
 */
export type Feature = (op: Operation, disposition: Disposition, ctx: FeatureContext) => Partial<OperationStages> | undefined;

export interface BuildOptions {
  logger?: Logger;
}

export async function buildFacade(config: FacadeConfig, options: BuildOptions = {}): Promise<Facade> {
  const logger = options.logger ?? consoleLogger;
  const specification = config.openApi.specification;
  if (!specification) throw svcError(Errors.SPEC_MISSING);
  checkConsumerComponent(config);
  const contract = await loadContract(specification, config.baseDir);
  const basePath = resolveBasePath(contract.doc, { componentBasePath: config.componentBasePath, contextPath: config.rest.contextPath });
  const table = compileOperations(contract);

  const bus = new DirectBus();
  for (const def of config.routes) {
    try {
      bus.register(compileRoute(def, bus, logger));
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

  const missingOperation = config.openApi.missingOperation ?? (config.dev ? 'mock' : 'fail');
  const missing = table.operations.filter((op) => !bus.has(op.id)).map((op) => op.id);
  if (missing.length > 0 && missingOperation === 'fail') {
    throw svcError(Errors.UNMAPPED_OPERATIONS, missing.length, [...missing].sort().map((id) => `\n\tdirect:${id}`).join(''));
  }

  const serverOptions = resolvedServerOptions(config);
  const router = new Router<OperationRuntime>();
  const operations: ServedOperation[] = [];
  const report: string[] = [];
  const ctx: FeatureContext = { config, contract, basePath, logger, serverOptions };
  // Validation (ajv for two dialects) is imported only when it is on: that is a tenth of a second of startup.
  const validating = config.rest.clientRequestValidation === true || config.rest.clientResponseValidation === true;
  const features: Feature[] = [
    ...(validating ? [(await import('./validation/validator.js')).validationFeature] : []),
    await bindingFeature(ctx),
    mockFeature,
  ];
  for (const op of table.operations) {
    const path = joinPaths(basePath, op.template);
    const route = bus.get(op.id);
    const disposition: Disposition = route ? 'route' : missingOperation === 'mock' ? 'mock' : 'ignored';
    let stages: OperationStages = { invoke: route ? (ex: Exchange) => route.run(ex) : echoBody };
    for (const feature of features) stages = { ...stages, ...feature(op, disposition, ctx) };
    router.add(op.method, path, compileOperationRuntime(op, stages, ctx), op.queryDiscriminator);
    operations.push({ operation: op, path, endpoint: `direct:${op.id}`, disposition });
    report.push(`${op.method} ${joinPaths(basePath, op.path)} -> direct:${op.id} [${disposition}]`);
  }
  if (table.skipped.webhooks > 0) report.push(`skipped ${table.skipped.webhooks} webhook(s): webhooks are not served`);
  if (table.skipped.callbacks > 0) report.push(`skipped ${table.skipped.callbacks} callback(s): callbacks are not served`);
  if (missing.length > 0 && missingOperation === 'ignore') logger.warn(`missingOperation=ignore: ${missing.length} operation(s) have no route and echo the request: ${missing.map((id) => `direct:${id}`).join(', ')}`);

  registerSpecEndpoints(router, ctx);

  return assembleFacade(router, { contract, basePath, operations, report, serverOptions });
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

function assembleFacade(
  router: Router<OperationRuntime>,
  parts: { contract: Contract; basePath: string; operations: ServedOperation[]; report: string[]; serverOptions: ServerOptions },
): Facade {
  const dispatch = (req: IncomingMessage, res: ServerResponse, next: ((err?: unknown) => void) | undefined): void => {
    const url = originForm(req.url ?? '/');
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const query = q === -1 ? '' : url.slice(q + 1);
    const match = router.find(path);
    if (match === undefined) {
      if (next) next();
      else notFound(res);
      return;
    }
    let candidates = match.entry.byMethod[req.method ?? 'GET'];
    if (candidates === undefined && req.method === 'HEAD') candidates = match.entry.byMethod.GET;
    if (candidates === undefined) {
      methodNotAllowed(res, { allow: match.entry.allow });
      return;
    }
    const chosen = pickCandidate(candidates, query);
    chosen.target.serve(req, res, match.params, chosen.paramNames, path, query);
  };
  let server: Server | undefined;
  const facade: Facade = {
    handler: (req, res) => dispatch(req, res, undefined),
    middleware: (req, res, next) => dispatch(req, res, next),
    async listen(port = parts.serverOptions.port, host = parts.serverOptions.host) {
      server ??= createHttpServer(facade.handler, parts.serverOptions);
      return listen(server, port, host);
    },
    start() {
      return facade.listen();
    },
    async stop() {
      if (server) await closeGracefully(server, parts.serverOptions.shutdownTimeout);
    },
    operations: parts.operations,
    basePath: parts.basePath,
    contract: parts.contract,
    get server() {
      return server;
    },
    serverOptions: parts.serverOptions,
    startupReport: parts.report,
  };
  return facade;
}

/** Operations that no route handles under `ignore`: the body comes back as it was sent (200, or 204 empty). */
function echoBody(ex: Exchange): void {
  const type = ex.message.headers.get('content-type');
  if (type !== undefined) ex.message.headers.set('content-type', type);
}

const TEXTUAL = /json|xml|text\/|x-www-form-urlencoded|yaml|javascript|graphql/i;
const METHOD = HeaderNames.METHOD.toLowerCase();
const PATH = HeaderNames.PATH.toLowerCase();
const URI = HeaderNames.URI.toLowerCase();
const QUERY = HeaderNames.QUERY.toLowerCase();

/** The raw body as the route sees it without binding: text for textual media types, bytes otherwise. */
export function rawBodyValue(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (raw === undefined) return undefined;
  return TEXTUAL.test(contentType ?? '') ? raw.toString('utf8') : raw;
}

function compileOperationRuntime(op: Operation, stages: OperationStages, ctx: FeatureContext): OperationRuntime {
  const { logger } = ctx;
  const maxBodySize = ctx.serverOptions.maxBodySize;
  const sharedProperties = { [PropertyNames.OPENAPI]: ctx.contract.doc, [PropertyNames.OPERATION_ID]: op.id };
  const prefixLength = ctx.basePath === '/' ? 0 : ctx.basePath.length;
  const queryDefaults = compileQueryDefaults(op, ctx.contract);
  const { check, decode, invoke, serialize, checkResponse } = stages;
  const needsFacts = check !== undefined || decode !== undefined || checkResponse !== undefined;

  const fail = (res: ServerResponse, thrown: unknown): void => {
    const err = asSvcError(thrown);
    if (err !== undefined && err.status < 500) {
      sendError(res, err, err.status === 413 ? { connection: 'close' } : undefined);
      return;
    }
    logger.error(`${op.method} ${op.path} (direct:${op.id}) failed: ${describeThrown(thrown)}`);
    if (err !== undefined && !STARTUP_CODES.has(err.code)) sendError(res, err);
    else sendProblem(res, 500, Errors.ROUTE_FAILED.message);
  };

  const respond = (res: ServerResponse, ex: Exchange, facts: RequestFacts | undefined): void => {
    try {
      if (checkResponse !== undefined) checkResponse(ex, facts!);
      writeExchange(res, ex, serialize);
    } catch (err) {
      fail(res, err);
    }
  };

  const run = (req: IncomingMessage, res: ServerResponse, params: Record<string, string | undefined>, names: readonly string[], path: string, query: string, raw: Buffer | undefined): void => {
    let ex: Exchange;
    let facts: RequestFacts | undefined;
    try {
      if (needsFacts) {
        const pathParams: Record<string, string | undefined> = {};
        for (let i = 0; i < names.length; i++) pathParams[names[i]!] = params[PARAM_KEYS[i]!];
        facts = { req, path, query, pathParams, raw };
        if (check !== undefined) check(facts);
      }
      const headers = Headers.fromRequest(req.headers);
      for (let i = 0; i < names.length; i++) headers.setIncoming(names[i]!, params[PARAM_KEYS[i]!]);
      if (query !== '') {
        for (const [k, v] of new URLSearchParams(query)) {
          // A path parameter keeps the value the router matched (and validation checked): the query cannot
          // replace it, in any letter case (header names are case-insensitive).
          if (isInternalName(k) || isPathParameter(names, k)) continue;
          const prev = headers.get(k);
          headers.setIncoming(k, prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v]);
        }
      }
      for (const [name, value] of queryDefaults) if (!headers.has(name)) headers.setIncoming(name, value);
      headers.setIncoming(METHOD, req.method);
      headers.setIncoming(PATH, path.slice(prefixLength));
      headers.setIncoming(URI, path);
      headers.setIncoming(QUERY, query);
      ex = new Exchange(headers, undefined, req, sharedProperties);
      if (decode !== undefined) decode(facts!, ex);
      else ex.message.body = rawBodyValue(raw, req.headers['content-type']);
      const pending = invoke(ex);
      if (pending instanceof Promise) {
        pending.then(
          () => respond(res, ex, facts),
          (err: unknown) => fail(res, err),
        );
        return;
      }
    } catch (err) {
      fail(res, err);
      return;
    }
    respond(res, ex, facts);
  };

  return {
    serve(req, res, params, names, path, query) {
      if (!hasBody(req)) return run(req, res, params, names, path, query, undefined);
      readBody(req, maxBodySize, (err, raw) => (err === undefined ? run(req, res, params, names, path, query, raw) : fail(res, err)));
    },
  };
}

/**
 * Catalogue entries about the contract or configuration (those with an exit code). One that surfaces at
 * request time (a `$ref` resolved lazily) is an internal error: logged, never told to clients, as it names
 * server files.
 */
const STARTUP_CODES: ReadonlySet<string> = new Set(Object.values(Errors).flatMap((d: ErrorDef) => (d.exitCode === undefined ? [] : [d.code])));

// A route may throw anything, even a Proxy whose traps throw: looking at it must not throw in turn.
function asSvcError(thrown: unknown): SvcError | undefined {
  try {
    return thrown instanceof SvcError ? thrown : undefined;
  } catch {
    return undefined;
  }
}

function describeThrown(thrown: unknown): string {
  try {
    return (thrown as Error)?.stack ?? String(thrown);
  } catch {
    return 'a thrown value that cannot be described';
  }
}

function isPathParameter(names: readonly string[], name: string): boolean {
  for (const n of names) if (n.length === name.length && n.toLowerCase() === name.toLowerCase()) return true;
  return false;
}

/** Startup check of SPEC §11: only platform-http is built in, and bearer-token validation is not in this build. */
function checkConsumerComponent(config: FacadeConfig): void {
  const component = config.rest.component ?? 'platform-http';
  if (component !== 'platform-http') throw svcError(Errors.UNKNOWN_COMPONENT, component);
  if (config.endpointProperties.oauthProfile !== undefined) {
    // Fail closed: accepting the option without enforcing it would leave every operation open.
    throw svcError(Errors.OAUTH_UNSUPPORTED, `${component}: bearer-token validation is not available in this build`);
  }
}
