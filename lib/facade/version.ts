// One build of a facade: configuration -> contract -> operations -> routes -> router, each operation's stages
// compiled from the features it uses. A reload builds a new version; lib/facade/facade.ts swaps it in.
import { bindingFeature } from '../binding/binding.js';
import { type FacadeConfig, resolvedBackendOptions, resolvedServerOptions, resolvedTlsOptions, type ServerOptions } from '../config/model.js';
import { joinPaths, resolveBasePath } from '../contract/base-path.js';
import { loadContract, type Contract } from '../contract/load.js';
import { isReceivable, unreceivableWarning } from '../contract/methods.js';
import { compileOperations, type Operation } from '../contract/operations.js';
import { exampleObjectProblems } from '../contract/example-objects.js';
import { Errors, SvcError, svcError } from '../util/errors.js';
import { Router } from '../http/router.js';
import { compileCompression } from '../http/compression.js';
import { compileCors, type CorsPolicy } from '../http/cors.js';
import { publishesOriginal, registerSpecEndpoints } from '../publish/spec-endpoint.js';
import type { Logger } from '../util/log.js';
import { mockFeature } from '../mock/mock.js';
import { createBackendContext, type BackendContext } from '../routes/backend/context.js';
import { retrySafetyTable } from '../routes/backend/retry-safety.js';
import { DirectBus } from '../routes/bus.js';
import type { Exchange } from '../message/exchange.js';
import { compileRoute } from '../routes/steps.js';
import { checkOrphanRoutes } from '../routes/orphans.js';
import { bindTypedRoutes } from '../routes/typed.js';
import { compileOperationRuntime, echoBody } from './runtime.js';
import { Observation, type Endpoints } from '../observe/observation.js';
import { backendFamilies } from '../routes/backend/metrics.js';
import { consumerStages } from '../security/components.js';
import { principalHeaderName } from '../security/principal-header.js';
import { compileContractSecurity, securedOperationCount, unenforcedSecurityWarning } from '../security/contract-security.js';
import { sequenceFeature } from '../sequences/feature.js';
import type { Disposition, Feature, FeatureContext, OperationRuntime, OperationStages, ServedOperation } from '../message/stages.js';

/** One build of the facade: what a request is served by, and what must be disposed when it is retired. */
export interface FacadeVersion {
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
  /** Cross-origin answers; undefined when enableCORS is off. */
  cors: CorsPolicy | undefined;
  /** Marks a response whose request sends Accept-Encoding; undefined when svc.server.compression is off. */
  compress: ReturnType<typeof compileCompression>;
}

export async function buildVersion(config: FacadeConfig, logger: Logger): Promise<FacadeVersion> {
  const specification = config.openApi.specification;
  if (!specification) throw svcError(Errors.SPEC_MISSING);
  const consumer = await consumerStages(config, logger);
  // The file's own bytes are kept only to be served as they are (openApi.apiContextPath).
  const contract = await loadContract(specification, config.baseDir, { keepBytes: publishesOriginal(config) });
  const basePath = resolveBasePath(contract.doc, { componentBasePath: config.componentBasePath, contextPath: config.rest.contextPath });
  const table = compileOperations(contract);
  for (const problem of exampleObjectProblems(contract.doc)) logger.warn(`contract: example ${problem}`);

  const bus = new DirectBus();
  const serverOptions = resolvedServerOptions(config);
  const backends = createBackendContext(resolvedBackendOptions(config), {
    maxBodySize: serverOptions.maxBodySize,
    baseDir: config.baseDir,
    principalHeader: principalHeaderName(config.security.principalHeader),
    logger,
    forwardClientCert: resolvedTlsOptions(config).forwardClientCert,
    retrySafety: retrySafetyTable(table.operations),
  });
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

  // The contract's security (docs/security.md#contract-security) replaces the blanket oauthProfile check,
  // whose token verification it uses for bearer, oauth2 and openIdConnect schemes.
  const security = config.rest.clientSecurityValidation === true ? compileContractSecurity(config, contract, consumer.authenticate) : undefined;
  const router = new Router<OperationRuntime>();
  const operations: ServedOperation[] = [];
  const report: string[] = [];
  const runtimes = new Map<unknown, Operation>();
  const ctx: FeatureContext = { config, contract, basePath, logger, serverOptions };
  const observation = new Observation(config, logger);
  observation.metrics?.families.push((out, withWorker) => backendFamilies(out, backends, withWorker));
  // Validation (ajv for two dialects) is imported only when it is on: that is a tenth of a second of startup.
  const validating = config.rest.clientRequestValidation === true || config.rest.clientResponseValidation === true;
  const features: Feature[] = [
    ...(validating ? [(await import('../validation/validator.js')).validationFeature] : []),
    await bindingFeature(ctx),
    mockFeature,
    sequenceFeature,
  ];
  for (const op of table.operations) {
    const path = joinPaths(basePath, op.template);
    const route = bus.get(op.id);
    const disposition: Disposition = route ? 'route' : missingOperation === 'mock' ? 'mock' : 'ignored';
    const admission = security === undefined ? consumer : { authenticate: security.stageFor(op) };
    let stages: OperationStages = { ...admission, invoke: route ? (ex: Exchange) => route.run(ex) : echoBody, streamsRequestBody: route?.streamsRequestBody === true };
    for (const feature of features) stages = { ...stages, ...feature(op, disposition, ctx) };
    const observed = observation.instrument(op, disposition, stages);
    const runtime = compileOperationRuntime(op, observed.stages, ctx, observed.observer);
    runtimes.set(runtime, op);
    router.add(op.method, path, runtime, op.queryDiscriminator);
    operations.push({ operation: op, path, endpoint: `direct:${op.id}`, disposition });
    report.push(`${op.method} ${joinPaths(basePath, op.path)} -> direct:${op.id} [${disposition}]`);
    if (!isReceivable(op.method)) logger.warn(unreceivableWarning(op.method, path, op.id));
  }
  if (security !== undefined && operations.some((o) => o.disposition !== 'mock')) {
    const unverified = security.presenceOnly();
    if (unverified.length > 0) logger.warn(`clientSecurityValidation: ${unverified.map((s) => `${s.name} (${s.description})`).join(', ')} checked for presence and form only; verify them with svc.security.apiKeys, svc.security.basicUsers, an oauthProfile or securityHandlers (docs/security.md#contract-security)`);
  }
  if (table.skipped.webhooks > 0) report.push(`skipped ${table.skipped.webhooks} webhook(s): webhooks are not served`);
  if (table.skipped.callbacks > 0) report.push(`skipped ${table.skipped.callbacks} callback(s): callbacks are not served`);
  if (missing.length > 0 && missingOperation === 'ignore') logger.warn(`missingOperation=ignore: ${missing.length} operation(s) have no route and echo the request: ${missing.map((id) => `direct:${id}`).join(', ')}`);
  // Last, once the facade is known to start: a failed start prints only its error.
  if (security === undefined) {
    const unenforced = securedOperationCount(table.operations, contract);
    if (unenforced > 0) logger.warn(unenforcedSecurityWarning(unenforced));
  }

  registerSpecEndpoints(router, ctx);
  const endpoints = observation.endpoints(operations.length, operations.filter((o) => o.disposition === 'route').length);
  if (observation.options.port === undefined) observation.mount(router, endpoints);

  const cors = compileCors(config, contract, (target) => runtimes.get(target), logger);
  return { config, router, contract, basePath, operations, report, serverOptions, backends, observation, endpoints, cors, compress: compileCompression(serverOptions) };
}

