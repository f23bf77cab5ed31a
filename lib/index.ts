// Public API of svc-facade for embedders.
import { resolve } from 'node:path';
import { loadConfigFiles, toRouteBuilder } from './config/load.js';
import { emptyConfig, type FacadeConfig } from './config/model.js';
import { applyEnvironment } from './config/env.js';
import { buildFacade, type Facade } from './facade/facade.js';
import type { Logger } from './util/log.js';
import { RouteBuilder } from './config/fluent.js';
import { configFromObject, type FacadeObjectConfig } from './config/object.js';

export { RouteBuilder, constant, simple, json } from './config/fluent.js';
export type { FacadeObjectConfig, RestConfigurationInput, ServerInput, BackendInput, ObserveInput, SecurityInput, CorsInput } from './config/object.js';
export type { SecurityHandler } from './config/security-handler.js';
export type { Facade, ServedOperation, Disposition, OperationChanges } from './facade/facade.js';
export { Exchange, Headers, HeaderNames, PropertyNames } from './message/exchange.js';
export type { Message } from './message/exchange.js';
export type { ClientCertificate } from './http/client-certificate.js';
export type { Expression, StepDefinition, RouteDefinition } from './config/route-definitions.js';
export type { FacadeConfig, ServerOptions, RestOptions, OpenApiOptions, ObserveOptions, SecurityOptions } from './config/model.js';
export type { ServerDefinition, BackendDefinition, ObserveDefinition, SecurityDefinition, CorsDefinition, RestConfigurationDefinition, OpenApiDefinition } from './config/fluent.js';

export { Errors, SvcError } from './util/errors.js';
export type { ErrorDef, Violation, ProblemBody } from './util/errors.js';
export type { CorsOptions } from './http/cors-options.js';
export type { Operation, Parameter } from './contract/operations.js';
export type { Logger, LogFields, LogFormat } from './util/log.js';
export { consoleLogger, createLogger, silentLogger } from './util/log.js';
export { negotiateMediaType } from './http/negotiation.js';
export { registerConsumerComponent } from './security/components.js';
export type { ConsumerComponent, ConsumerComponentFactory, ConsumerComponentOptions } from './security/components.js';
export type { TokenValidationResult, JwtClaims } from './security/bearer.js';
export type { Authenticate } from './message/stages.js';
export { defineRoutes } from './routes/typed-api.js';
export type { Reply, OperationShape, TypedExchange, ExchangeView, BodyVariants, TypedRoute, TypedRoutes, ReplyInit, HeaderValue, Answer, SuccessBody, ResponseFor, BodyForStatus, HeadersForStatus, StatusOf, RequestBodyOf, RouteFunction } from './routes/typed-api.js';
export { generateTypes } from './types/generate.js';
export type { TypesSource } from './types/generate.js';

export type FacadeInput = string | readonly string[] | RouteBuilder | (new () => RouteBuilder) | FacadeObjectConfig;

export interface CreateFacadeOptions {
  logger?: Logger;
  /** `--dev`: `missingOperation` defaults to `mock`. */
  dev?: boolean;
  /** Environment used for overrides (default: process.env). */
  env?: NodeJS.ProcessEnv;
}

/** Builds a facade from config files, a route builder, or a plain config object (docs/configuration.md). */
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
