// Public API of svc-facade for embedders.
import { resolve } from 'node:path';
import { loadConfigFiles, toRouteBuilder } from './config/load.js';
import { emptyConfig, setOption, setOptions, type FacadeConfig, type OpenApiOptions, type SectionInput } from './config/model.js';
import { applyEnvironment } from './config/env.js';
import { applyProperty } from './config/properties.js';
import { applyRestConfiguration } from './config/yaml-dsl.js';
import { buildFacade, type Facade } from './facade.js';
import type { Logger } from './log.js';
import type { Exchange } from './routes/exchange.js';
import type { StepDefinition } from './routes/steps.js';
import { RouteBuilder } from './config/fluent.js';

export { RouteBuilder, constant, simple, json } from './config/fluent.js';
export type { Facade, ServedOperation, Disposition, OperationChanges } from './facade.js';
export { Exchange, Headers, HeaderNames, PropertyNames } from './routes/exchange.js';
export type { Message } from './routes/exchange.js';
export type { Expression, StepDefinition, RouteDefinition } from './routes/steps.js';
export type { FacadeConfig, ServerOptions, RestOptions, OpenApiOptions, ObserveOptions } from './config/model.js';
export type { CorsOptions } from './http/cors-options.js';
export type { ServerDefinition, BackendDefinition, ObserveDefinition, CorsDefinition, RestConfigurationDefinition, OpenApiDefinition } from './config/fluent.js';

/** `restConfiguration` in code: the rest options, Camel's port and host (svc.server.*), endpoint properties. */
export type RestConfigurationInput = SectionInput<'rest'> & {
  port?: number;
  host?: string;
  endpointProperty?: { key: string; value: string } | readonly { key: string; value: string }[];
  /** Camel's corsHeaders: Access-Control-* fields that override what `cors` gives (docs/cors.md). */
  corsHeaders?: { key: string; value: string } | readonly { key: string; value: string }[];
};
/** `server` (svc.server.*), `backend` (svc.backend.*), `observe` (svc.observe.*) in code, typed to the leaves. */
export type ServerInput = SectionInput<'server'>;
export type BackendInput = SectionInput<'backend'>;
export type ObserveInput = SectionInput<'observe'>;
/** `cors` (svc.cors.*) in code: who may call from a browser page, when restConfiguration enableCORS is on. */
export type CorsInput = SectionInput<'cors'>;
export { Errors, SvcError } from './errors.js';
export type { ErrorDef, Violation, ProblemBody } from './errors.js';
export type { Operation, Parameter } from './contract/operations.js';
export type { Logger, LogFields, LogFormat } from './log.js';
export { consoleLogger, createLogger, silentLogger } from './log.js';
export { negotiateMediaType } from './http/negotiation.js';
export { registerConsumerComponent } from './security/components.js';
export type { ConsumerComponent, ConsumerComponentFactory, ConsumerComponentOptions } from './security/components.js';
export type { TokenValidationResult, JwtClaims } from './security/bearer.js';
export type { Authenticate } from './pipeline/stages.js';
export { defineRoutes } from './routes/typed.js';
export type { Reply, OperationShape, TypedExchange, ExchangeView, BodyVariants, TypedRoute, TypedRoutes, ReplyInit, HeaderValue, Answer, SuccessBody, ResponseFor, BodyForStatus, HeadersForStatus, StatusOf, RequestBodyOf, RouteFunction } from './routes/typed.js';
export { generateTypes } from './types/generate.js';
export type { TypesSource } from './types/generate.js';

/** A plain configuration object for embedders. */
export interface FacadeObjectConfig extends OpenApiOptions {
  restConfiguration?: RestConfigurationInput;
  /** The listener: port, host, timeouts, body limits, workers (`svc.server.*`). */
  server?: ServerInput;
  /** Defaults for `to: http(s)://` backends (`svc.backend.*`). */
  backend?: BackendInput;
  /** Health, metrics and log options (`svc.observe.*`). */
  observe?: ObserveInput;
  /** Cross-origin answers (`svc.cors.*`); on with `restConfiguration: { enableCORS: true }`. */
  cors?: CorsInput;
  /** `svc.component.rest-openapi.base-path`. */
  basePath?: string;
  /** Routes by operation id (or `direct:<name>`): a function run as a `process` step, or a list of steps. */
  routes?: Record<string, ((ex: Exchange) => unknown) | StepDefinition[]>;
  bindingClasses?: Function[];
  /** Directory the specification and mock folder are resolved from (default: the working directory). */
  baseDir?: string;
  /** Application properties (`svc.*` keys set options). */
  properties?: Record<string, string>;
}

export type FacadeInput = string | readonly string[] | RouteBuilder | (new () => RouteBuilder) | FacadeObjectConfig;

export interface CreateFacadeOptions {
  logger?: Logger;
  /** `--dev`: `missingOperation` defaults to `mock`. */
  dev?: boolean;
  /** Environment used for overrides (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Builds a facade from config files, a route builder, or a plain config object (SPEC §1). */
export async function createFacade(input: FacadeInput, options: CreateFacadeOptions = {}): Promise<Facade> {
  // facade.reload() reads the input again: files re-read, route modules imported anew.
  const readConfig = async (fresh: boolean): Promise<FacadeConfig> => {
    const config = await configFrom(input, options.env ?? process.env, fresh);
    if (options.dev) config.dev = true;
    return config;
  };
  const configFiles = typeof input === 'string' ? [resolve(input)] : Array.isArray(input) ? (input as string[]).map((file) => resolve(file)) : [];
  return buildFacade(await readConfig(false), { logger: options.logger, reloadConfig: () => readConfig(true), configFiles });
}

async function configFrom(input: FacadeInput, env: NodeJS.ProcessEnv, fresh = false): Promise<FacadeConfig> {
  if (typeof input === 'string') return loadConfigFiles([input], env, { fresh });
  if (Array.isArray(input)) return loadConfigFiles(input as string[], env, { fresh });
  const builder = toRouteBuilder(input);
  if (builder) {
    const config = emptyConfig();
    await builder.applyTo(config);
    applyEnvironment(config, env);
    return config;
  }
  return configFromObject(input as FacadeObjectConfig, env);
}

function configFromObject(input: FacadeObjectConfig, env: NodeJS.ProcessEnv): FacadeConfig {
  const source = 'createFacade()';
  const config = emptyConfig(input.baseDir ?? process.cwd());
  const { restConfiguration, server, backend, observe, cors, basePath, routes, bindingClasses, baseDir: _baseDir, properties, ...openApi } = input;
  for (const [k, v] of Object.entries(openApi)) if (v !== undefined) setOption(config, 'openApi', k, v, source);
  if (restConfiguration) applyRestConfiguration(config, restConfiguration, source);
  if (server) setOptions(config, 'server', server, source);
  if (backend) setOptions(config, 'backend', backend, source);
  if (observe) setOptions(config, 'observe', observe, source);
  if (cors) setOptions(config, 'cors', cors, source);
  if (basePath !== undefined) config.componentBasePath = basePath;
  for (const [name, route] of Object.entries(routes ?? {})) {
    const from = name.startsWith('direct:') ? name : `direct:${name}`;
    config.routes.push({ from, source, steps: typeof route === 'function' ? [{ kind: 'process', fn: route }] : route });
  }
  config.bindingClasses.push(...(bindingClasses ?? []));
  for (const [k, v] of Object.entries(properties ?? {})) if (k.startsWith('svc.')) applyProperty(config, k, v, source);
  applyEnvironment(config, env);
  return config;
}
