// The plain configuration object of createFacade(): the same options as every other surface, typed to the
// leaves, turned into a FacadeConfig.
import { applyEnvironment } from './env.js';
import { emptyConfig, setOption, setOptions, type FacadeConfig, type OpenApiOptions, type SectionInput } from './model.js';
import { applyProperty } from './properties.js';
import type { StepDefinition } from './route-definitions.js';
import { applyRestConfiguration } from './yaml-dsl.js';
import type { Exchange } from '../message/exchange.js';
import { setOwn } from '../util/objects.js';
import type { SecurityHandler } from './security-handler.js';

/** `restConfiguration` in code: the rest options, Camel's port and host (svc.server.*), endpoint properties. */
export type RestConfigurationInput = SectionInput<'rest'> & {
  port?: number;
  host?: string;
  endpointProperty?: { key: string; value: string } | readonly { key: string; value: string }[];
  /** Camel's corsHeaders: Access-Control-* fields that override what `cors` gives (docs/cors.md). */
  corsHeaders?: { key: string; value: string } | readonly { key: string; value: string }[];
};
/** `server` (svc.server.*), `backend` (svc.backend.*), `observe` (svc.observe.*) in code, typed to the leaves. */
export type ServerInput = SectionInput<'server'> & { tls?: SectionInput<'tls'> };
export type BackendInput = SectionInput<'backend'>;
export type ObserveInput = SectionInput<'observe'> & { tls?: SectionInput<'observeTls'> };
/** `security` (svc.security.*) in code: the API key and htpasswd files, the principal header. */
export type SecurityInput = SectionInput<'security'>;
/** `cors` (svc.cors.*) in code: who may call from a browser page, when restConfiguration enableCORS is on. */
export type CorsInput = SectionInput<'cors'>;
/** A plain configuration object for embedders. */
export interface FacadeObjectConfig extends OpenApiOptions {
  restConfiguration?: RestConfigurationInput;
  /** The listener: port, host, timeouts, body limits, workers (`svc.server.*`). */
  server?: ServerInput;
  /** Defaults for `to: http(s)://` backends (`svc.backend.*`). */
  backend?: BackendInput;
  /** Health, metrics and log options (`svc.observe.*`). */
  observe?: ObserveInput;
  /** The files that verify the contract's API keys and Basic users, the principal header (`svc.security.*`). */
  security?: SecurityInput;
  /**
   * Checks of the contract's security schemes by name, replacing the built-in one (with
   * `clientSecurityValidation: true`): `true` or the principal's name to admit, `false` to refuse.
   */
  securityHandlers?: Record<string, SecurityHandler>;
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

export function configFromObject(input: FacadeObjectConfig, env: NodeJS.ProcessEnv): FacadeConfig {
  const source = 'createFacade()';
  const config = emptyConfig(input.baseDir ?? process.cwd());
  const { restConfiguration, server, backend, observe, security, securityHandlers, cors, basePath, routes, bindingClasses, baseDir: _baseDir, properties, ...openApi } = input;
  for (const [k, v] of Object.entries(openApi)) if (v !== undefined) setOption(config, 'openApi', k, v, source);
  if (restConfiguration) applyRestConfiguration(config, restConfiguration, source);
  if (server) setOptions(config, 'server', server, source);
  if (backend) setOptions(config, 'backend', backend, source);
  if (observe) setOptions(config, 'observe', observe, source);
  if (security) setOptions(config, 'security', security, source);
  if (cors) setOptions(config, 'cors', cors, source);
  for (const [name, handler] of Object.entries(securityHandlers ?? {})) setOwn(config.securityHandlers, name, handler);
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
