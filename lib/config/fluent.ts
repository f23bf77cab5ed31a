// The fluent API (docs/configuration.md): a class extending RouteBuilder whose configure() declares everything.
import { Errors, svcError } from '../util/errors.js';
import type { Exchange } from '../message/exchange.js';
import type { Expression, RouteDefinition, StepDefinition } from './route-definitions.js';
import { setOwn } from '../util/objects.js';
import type { SecurityHandler } from './security-handler.js';
import { oauthProfileKeys, setCorsHeader, setOption, type FacadeConfig, type ObserveOptions, type OpenApiOptions, type RestOptions, type Section, type SectionInput } from './model.js';
import { applyConsumerUri, applyOpenApi, balancerStrategy } from './yaml-dsl.js';

export const constant = (value: unknown): Expression => ({ constant: value });
export const simple = (template: string): Expression => ({ simple: template });
export const json = (value: unknown): Expression => ({ json: value });

type ExpressionLike = Expression | ((ex: Exchange) => unknown);

export class RestConfigurationDefinition {
  constructor(private readonly config: FacadeConfig, private readonly source: string) {}

  private set(name: keyof RestOptions, value: unknown): this {
    setOption(this.config, 'rest', name, value, this.source);
    return this;
  }

  contextPath(path: string): this { return this.set('contextPath', path); }
  clientRequestValidation(on: boolean): this { return this.set('clientRequestValidation', on); }
  clientResponseValidation(on: boolean): this { return this.set('clientResponseValidation', on); }
  /** Enforce each operation's `security` requirements (docs/security.md#contract-security). */
  clientSecurityValidation(on: boolean): this { return this.set('clientSecurityValidation', on); }
  bindingMode(mode: NonNullable<RestOptions['bindingMode']>): this { return this.set('bindingMode', mode); }
  bindingPackageScan(dir: string): this { return this.set('bindingPackageScan', dir); }
  apiContextPath(path: string): this { return this.set('apiContextPath', path); }
  hostNameResolver(mode: NonNullable<RestOptions['hostNameResolver']>): this { return this.set('hostNameResolver', mode); }
  component(name: string): this { return this.set('component', name); }
  /** Cross-origin answers (docs/cors.md); the policy is `this.cors()` and corsHeaders. */
  enableCORS(on: boolean): this { return this.set('enableCORS', on); }
  /** Camel's corsHeaders: overrides one Access-Control-* field (e.g. `Access-Control-Max-Age`, `600`). */
  corsHeaders(key: string, value: string): this {
    setCorsHeader(this.config, key, value, this.source);
    return this;
  }
  /** Camel's restConfiguration port and host: the same options as `this.server().port()` and `.host()`. */
  port(port: number): this {
    setOption(this.config, 'server', 'port', port, this.source);
    return this;
  }
  host(host: string): this {
    setOption(this.config, 'server', 'host', host, this.source);
    return this;
  }
  endpointProperty(key: string, value: string): this {
    this.config.endpointProperties[key] = value;
    return this;
  }
  /** The OAuth profile every operation enforces (endpoint property `oauthProfile`, docs/bearer-tokens.md). */
  oauthProfile(name: string): this { return this.endpointProperty('oauthProfile', name); }
  /** Classes for body binding, passed directly (docs/binding.md). */
  bindingClasses(...classes: Function[]): this {
    this.config.bindingClasses.push(...classes);
    return this;
  }
}

export class OpenApiDefinition {
  constructor(private readonly config: FacadeConfig, private readonly source: string) {}

  private set(name: keyof OpenApiOptions, value: unknown): this {
    applyOpenApi(this.config, { [name]: value }, this.source);
    return this;
  }

  specification(location: string): this { return this.set('specification', location); }
  missingOperation(mode: NonNullable<OpenApiOptions['missingOperation']>): this { return this.set('missingOperation', mode); }
  apiContextPath(path: string): this { return this.set('apiContextPath', path); }
  mockIncludePattern(pattern: string): this { return this.set('mockIncludePattern', pattern); }
  mockDynamic(enabled = true): this { return this.set('mockDynamic', enabled); }
}

/** One section of options set through the option table, as every surface sets them. */
abstract class OptionsDefinition<S extends Section> {
  constructor(protected readonly config: FacadeConfig, private readonly source: string, private readonly section: S) {}

  protected set(name: keyof SectionInput<S> & string, value: unknown): this {
    setOption(this.config, this.section, name, value, this.source);
    return this;
  }

  /** A section set inside this one (`svc.server.tls.*`): the same path as `tls:` under `server:` in YAML. */
  protected setNested(key: string, values: object): this {
    setOption(this.config, this.section, key, values, this.source);
    return this;
  }

  /** Several options at once, typed to the leaves: `this.server().options({ port: 9123, workers: 2 })`. */
  options(values: SectionInput<S>): this {
    for (const [name, value] of Object.entries(values)) if (value !== undefined) this.set(name as keyof SectionInput<S> & string, value);
    return this;
  }
}

/** `this.server()`: the listener (`svc.server.*`). Durations and sizes take numbers (ms, bytes) or text (`10s`, `1MiB`). */
export class ServerDefinition extends OptionsDefinition<'server'> {
  host(host: string): this { return this.set('host', host); }
  port(port: number): this { return this.set('port', port); }
  maxBodySize(size: number | string): this { return this.set('maxBodySize', size); }
  maxItemSize(size: number | string): this { return this.set('maxItemSize', size); }
  headersTimeout(duration: number | string): this { return this.set('headersTimeout', duration); }
  requestTimeout(duration: number | string): this { return this.set('requestTimeout', duration); }
  keepAliveTimeout(duration: number | string): this { return this.set('keepAliveTimeout', duration); }
  shutdownTimeout(duration: number | string): this { return this.set('shutdownTimeout', duration); }
  workers(count: number): this { return this.set('workers', count); }
  http2(on: boolean): this { return this.set('http2', on); }
  /** HTTPS and mutual TLS (`svc.server.tls.*`): `this.server().tls({ certFile, keyFile, clientAuth: 'require', caFile })`. */
  tls(options: SectionInput<'tls'>): this { return this.setNested('tls', options); }
  compression(on: boolean): this { return this.set('compression', on); }
  compressionThreshold(size: number | string): this { return this.set('compressionThreshold', size); }
}

/** `this.cors()`: who may call from a browser page (`svc.cors.*`), when restConfiguration enableCORS is on. */
export class CorsDefinition extends OptionsDefinition<'cors'> {
  /** Exact origins (`https://app.example`), or `*`. */
  allowOrigins(...origins: string[]): this { return this.set('allowOrigins', origins.join(',')); }
  allowCredentials(on: boolean): this { return this.set('allowCredentials', on); }
  /** Seconds a browser may keep a preflight's answer. */
  maxAge(seconds: number): this { return this.set('maxAge', seconds); }
  exposeHeaders(...names: string[]): this { return this.set('exposeHeaders', names.join(',')); }
}

/** `this.backend()`: defaults for every `to: http(s)://` backend (`svc.backend.*`). */
export class BackendDefinition extends OptionsDefinition<'backend'> {
  maxConnections(count: number): this { return this.set('maxConnections', count); }
  idleTimeout(duration: number | string): this { return this.set('idleTimeout', duration); }
  timeout(duration: number | string): this { return this.set('timeout', duration); }
  connectTimeout(duration: number | string): this { return this.set('connectTimeout', duration); }
  maxResponseSize(size: number | string): this { return this.set('maxResponseSize', size); }
  /** Addresses and CIDR ranges whose X-Forwarded-* and Forwarded values are kept. */
  trustedProxies(...proxies: string[]): this { return this.set('trustedProxies', proxies.join(',')); }
  queueTimeout(duration: number | string): this { return this.set('queueTimeout', duration); }
  exposeOrigin(on: boolean): this { return this.set('exposeOrigin', on); }
  /** Origins besides a route's own that followRedirects may lead to. */
  redirectOrigins(...origins: string[]): this { return this.set('redirectOrigins', origins.join(',')); }
  /** Retries of a request the contract makes safe to send again (0: none). */
  retries(count: number): this { return this.set('retries', count); }
  retryDelay(duration: number | string): this { return this.set('retryDelay', duration); }
  retryMaxDelay(duration: number | string): this { return this.set('retryMaxDelay', duration); }
  retryBudgetPercent(percent: number): this { return this.set('retryBudgetPercent', percent); }
  retryBudgetMinPerSecond(count: number): this { return this.set('retryBudgetMinPerSecond', count); }
  maxRetryBodySize(size: number | string): this { return this.set('maxRetryBodySize', size); }
  /** The whole request across its retries (default: the timeout) → 504 when spent. */
  requestTimeout(duration: number | string): this { return this.set('requestTimeout', duration); }
  /** Offers h2 to https:// backends by ALPN. */
  http2(on: boolean): this { return this.set('http2', on); }
}

/** `this.observe()`: health, metrics and log options (`svc.observe.*`). */
export class ObserveDefinition extends OptionsDefinition<'observe'> {
  health(on: boolean): this { return this.set('health', on); }
  healthPath(path: string): this { return this.set('healthPath', path); }
  metrics(on: boolean): this { return this.set('metrics', on); }
  metricsPath(path: string): this { return this.set('metricsPath', path); }
  port(port: number): this { return this.set('port', port); }
  host(host: string): this { return this.set('host', host); }
  drainDelay(duration: number | string): this { return this.set('drainDelay', duration); }
  logFormat(format: ObserveOptions['logFormat']): this { return this.set('logFormat', format); }
  accessLog(on: boolean): this { return this.set('accessLog', on); }
  /** The management port's own certificate (`svc.observe.tls.*`); without it the port is plaintext. */
  tls(options: SectionInput<'observeTls'>): this { return this.setNested('tls', options); }
}

/** `this.security()`: what checks the contract's security schemes, and the principal header (`svc.security.*`). */
export class SecurityDefinition extends OptionsDefinition<'security'> {
  /** A file of API keys (`key` or `principal: key` per line, either as `sha256:<hex>`). */
  apiKeys(file: string): this { return this.set('apiKeys', file); }
  /** An htpasswd file (bcrypt, `{SHA}`) for `http` `basic` schemes. */
  basicUsers(file: string): this { return this.set('basicUsers', file); }
  /** The header that tells `to:` backends the principal. */
  principalHeader(name: string): this { return this.set('principalHeader', name); }
  /** Checks the contract's security scheme `name` in code, as `createFacade({ securityHandlers })` does. */
  handler(name: string, handler: SecurityHandler): this {
    setOwn(this.config.securityHandlers, name, handler);
    return this;
  }
}

/** `svc.oauth.<profile>.*` (docs/bearer-tokens.md), one chainable method per key; lists take several arguments. */
export class OAuthProfileDefinition {
  private readonly keys: Record<string, string>;

  constructor(config: FacadeConfig, name: string) {
    this.keys = oauthProfileKeys(config, name);
  }

  private set(key: string, value: string | number | readonly string[]): this {
    this.keys[key] = Array.isArray(value) ? value.join(',') : String(value);
    return this;
  }

  issuer(issuer: string): this { return this.set('issuer', issuer); }
  jwksUri(uri: string): this { return this.set('jwks-uri', uri); }
  jwksFile(path: string): this { return this.set('jwks-file', path); }
  publicKeyFile(path: string): this { return this.set('public-key-file', path); }
  secret(secret: string): this { return this.set('secret', secret); }
  audience(...audiences: string[]): this { return this.set('audience', audiences); }
  algorithms(...algorithms: string[]): this { return this.set('algorithms', algorithms); }
  clockTolerance(seconds: number): this { return this.set('clock-tolerance', seconds); }
  requiredScopes(...scopes: string[]): this { return this.set('required-scopes', scopes); }
  jwksCooldown(seconds: number): this { return this.set('jwks-cooldown', seconds); }
  jwksMaxAge(seconds: number): this { return this.set('jwks-max-age', seconds); }
  /** false: accept tokens without `exp` (they never expire); refused by default. */
  requireExp(required: boolean): this { return this.set('require-exp', String(required)); }
}

export class RouteDefinitionBuilder {
  /** Where steps go: the route's, or those of an open circuitBreaker (or its onFallback) until end(). */
  private readonly targets: StepDefinition[][];

  constructor(private readonly route: RouteDefinition) {
    this.targets = [route.steps];
  }

  private get steps(): StepDefinition[] {
    return this.targets[this.targets.length - 1]!;
  }

  /**
   * Camel's circuitBreaker EIP: the steps that follow (to end(), or to onFallback()) run while the breaker
   * is closed; `configuration` takes Camel's resilience4jConfiguration keys (failureRateThreshold, ...).
   */
  circuitBreaker(configuration?: Record<string, string | number | boolean>): this {
    const step: Extract<StepDefinition, { kind: 'circuitBreaker' }> = { kind: 'circuitBreaker', configuration, steps: [] };
    this.steps.push(step);
    this.targets.push(step.steps);
    return this;
  }

  /** The steps that follow (to end()) answer when the breaker is open or its steps failed. */
  onFallback(): this {
    // The open breaker is the last step of the list around it, and its steps are where steps go now.
    const breaker = this.targets[this.targets.length - 2]?.at(-1);
    if (breaker?.kind !== 'circuitBreaker' || breaker.steps !== this.steps) throw svcError(Errors.CONFIG_FILE, this.route.source, 'onFallback() belongs after circuitBreaker() and its steps');
    breaker.onFallback = [];
    this.targets[this.targets.length - 1] = breaker.onFallback;
    return this;
  }

  /**
   * Camel's loadBalance EIP over the `to(http...)` steps that follow, to end(): roundRobin unless a strategy
   * method follows (`.loadBalance().failover(2).to(a).to(b).end()`).
   */
  loadBalance(): this {
    const step: Extract<StepDefinition, { kind: 'loadBalance' }> = { kind: 'loadBalance', strategy: { kind: 'roundRobin' }, steps: [] };
    this.steps.push(step);
    this.targets.push(step.steps);
    return this;
  }
  roundRobin(): this { return this.strategy('roundRobin', {}); }
  random(): this { return this.strategy('random', {}); }
  /** -1 (the default): every other endpoint once. */
  failover(maximumFailoverAttempts = -1): this { return this.strategy('failover', { maximumFailoverAttempts }); }
  /** One integer per endpoint, in order: `weighted('4,2,1')`. */
  weighted(distributionRatio: string): this { return this.strategy('weighted', { distributionRatio }); }

  private strategy(kind: string, options: Record<string, unknown>): this {
    const step = this.targets[this.targets.length - 2]?.at(-1);
    if (step?.kind !== 'loadBalance' || step.steps !== this.steps) throw svcError(Errors.CONFIG_FILE, this.route.source, `${kind}() belongs right after loadBalance()`);
    step.strategy = balancerStrategy(kind, options, this.route.source);
    return this;
  }

  /** Ends the circuitBreaker (or its onFallback) or the loadBalance. */
  end(): this {
    if (this.targets.length === 1) throw svcError(Errors.CONFIG_FILE, this.route.source, 'end() without an open circuitBreaker()');
    this.targets.pop();
    return this;
  }

  process(fn: (ex: Exchange) => unknown): this {
    this.steps.push({ kind: 'process', fn });
    return this;
  }
  setBody(expression: ExpressionLike): this {
    this.steps.push({ kind: 'setBody', expression });
    return this;
  }
  setHeader(name: string, expression: ExpressionLike): this {
    this.steps.push({ kind: 'setHeader', name, expression });
    return this;
  }
  removeHeader(name: string): this {
    this.steps.push({ kind: 'removeHeader', name });
    return this;
  }
  setProperty(name: string, expression: ExpressionLike): this {
    this.steps.push({ kind: 'setProperty', name, expression });
    return this;
  }
  log(message: string): this {
    this.steps.push({ kind: 'log', message });
    return this;
  }
  /** `parameters`: endpoint options (for http(s): timeout, connectTimeout, ...), as in the URI query. */
  to(uri: string, parameters?: Record<string, string | number | boolean>): this {
    this.steps.push(parameters === undefined ? { kind: 'to', uri } : { kind: 'to', uri, parameters });
    return this;
  }
}

export abstract class RouteBuilder {
  private target: { config: FacadeConfig; source: string } | undefined;

  abstract configure(): void | Promise<void>;

  /** Runs configure() against a config; called by the facade, not by users. */
  async applyTo(config: FacadeConfig, source = 'fluent'): Promise<void> {
    this.target = { config, source };
    try {
      await this.configure();
    } finally {
      this.target = undefined;
    }
  }

  private get current(): { config: FacadeConfig; source: string } {
    if (!this.target) throw svcError(Errors.CONFIG_FILE, 'fluent', 'RouteBuilder methods can only be called from configure()');
    return this.target;
  }

  restConfiguration(): RestConfigurationDefinition {
    return new RestConfigurationDefinition(this.current.config, this.current.source);
  }

  rest(): { openApi(): OpenApiDefinition } {
    const { config, source } = this.current;
    return { openApi: () => new OpenApiDefinition(config, source) };
  }

  server(): ServerDefinition {
    return new ServerDefinition(this.current.config, this.current.source, 'server');
  }

  backend(): BackendDefinition {
    return new BackendDefinition(this.current.config, this.current.source, 'backend');
  }

  observe(): ObserveDefinition {
    return new ObserveDefinition(this.current.config, this.current.source, 'observe');
  }

  security(): SecurityDefinition {
    return new SecurityDefinition(this.current.config, this.current.source, 'security');
  }

  cors(): CorsDefinition {
    return new CorsDefinition(this.current.config, this.current.source, 'cors');
  }

  /** Defines OAuth profile `name`, as `svc.oauth.<name>.*` properties would. */
  oauth(name: string): OAuthProfileDefinition {
    return new OAuthProfileDefinition(this.current.config, name);
  }

  /** `from('direct:getPetById')` starts a route; `from('rest-openapi:spec?...')` configures the consumer. */
  from(uri: string): RouteDefinitionBuilder {
    const { config, source } = this.current;
    const route: RouteDefinition = { from: uri, steps: [], source };
    if (uri.startsWith('rest-openapi:')) applyConsumerUri(config, uri, source);
    else if (/^direct:.+/.test(uri)) config.routes.push(route);
    else throw svcError(Errors.CONFIG_INVALID, source, 'from', JSON.stringify(uri), 'direct:<operationId> or rest-openapi:<specification>');
    return new RouteDefinitionBuilder(route);
  }
}
