// The configuration model and its one option table: every surface (YAML, XML, properties, env, fluent)
// sets options through `setOption`, so types, allowed values and error messages are the same everywhere.
import { Errors, svcError } from '../errors.js';
import { setOwn } from '../objects.js';
import { BACKEND_DEFAULTS, type BackendOptions } from '../routes/backend/options.js';
import type { RouteDefinition } from '../routes/steps.js';
import { MAX_DURATION_MS, parseDuration, parseSize } from './units.js';

export type OptionType =
  | { kind: 'string' }
  | { kind: 'path' }
  | { kind: 'boolean' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'duration' }
  | { kind: 'size' };

const str = { kind: 'string' } as const;
const path = { kind: 'path' } as const;
const bool = { kind: 'boolean' } as const;
const duration = { kind: 'duration' } as const;
const enumOf = <const V extends string>(...values: V[]) => ({ kind: 'enum', values }) as const satisfies OptionType;

export const OPTION_TABLE = {
  rest: {
    contextPath: path,
    clientRequestValidation: bool,
    clientResponseValidation: bool,
    bindingMode: enumOf('off', 'auto', 'json', 'xml', 'json_xml'),
    bindingPackageScan: str,
    apiContextPath: path,
    hostNameResolver: enumOf('localIp', 'none'),
    component: str,
  },
  openApi: {
    specification: str,
    missingOperation: enumOf('fail', 'ignore', 'mock'),
    apiContextPath: path,
    mockIncludePattern: str,
    mockDynamic: bool,
  },
  server: {
    host: str,
    port: { kind: 'int', min: 0, max: 65535 },
    maxBodySize: { kind: 'size' },
    maxItemSize: { kind: 'size' },
    headersTimeout: duration,
    requestTimeout: duration,
    keepAliveTimeout: duration,
    shutdownTimeout: duration,
    workers: { kind: 'int', min: 1, max: 64 },
  },
  /** Defaults for every `to: http(s)://` backend (svc.backend.*); see lib/routes/backend/. */
  backend: {
    maxConnections: { kind: 'int', min: 1, max: 65535 },
    idleTimeout: duration,
    timeout: duration,
    connectTimeout: duration,
    maxResponseSize: { kind: 'size' },
    trustedProxies: str,
    queueTimeout: duration,
    exposeOrigin: bool,
    retries: { kind: 'int', min: 0, max: 10 },
    retryDelay: duration,
    retryMaxDelay: duration,
    retryBudgetPercent: { kind: 'int', min: 0, max: 1000 },
    retryBudgetMinPerSecond: { kind: 'int', min: 0, max: 100000 },
    maxRetryBodySize: { kind: 'size' },
    requestTimeout: duration,
  },
  // Operations (lib/observe/): health, metrics, request logs.
  observe: {
    health: bool,
    healthPath: path,
    metrics: bool,
    metricsPath: path,
    port: { kind: 'int', min: 0, max: 65535 },
    host: str,
    drainDelay: duration,
    logFormat: enumOf('text', 'json'),
    accessLog: bool,
  },
} as const satisfies Record<string, Record<string, OptionType>>;

export type Section = keyof typeof OPTION_TABLE;

/**
 * Camel's restConfiguration also carries the listen port and host (`restConfiguration: { port: 9123 }`):
 * there they set svc.server.port and svc.server.host, the same options as `server: { port }`.
 */
export const REST_SERVER_OPTIONS = ['port', 'host'] as const;

/** The value an option takes in code (fluent API, createFacade): durations and sizes also as text (`10s`, `1MiB`). */
type InputOf<T extends OptionType> = T extends { kind: 'boolean' }
  ? boolean
  : T extends { kind: 'enum'; values: readonly (infer V)[] }
    ? V
    : T extends { kind: 'int' }
      ? number
      : T extends { kind: 'duration' } | { kind: 'size' }
        ? number | string
        : string;

/** The options of one section as code sets them, typed to the leaves: a misspelt option is a compile error. */
export type SectionInput<S extends Section> = { -readonly [K in keyof (typeof OPTION_TABLE)[S]]?: (typeof OPTION_TABLE)[S][K] extends OptionType ? InputOf<(typeof OPTION_TABLE)[S][K]> : never };

export interface RestOptions {
  contextPath?: string;
  clientRequestValidation?: boolean;
  clientResponseValidation?: boolean;
  bindingMode?: 'off' | 'auto' | 'json' | 'xml' | 'json_xml';
  bindingPackageScan?: string;
  apiContextPath?: string;
  hostNameResolver?: 'localIp' | 'none';
  component?: string;
}

export interface OpenApiOptions {
  specification?: string;
  missingOperation?: 'fail' | 'ignore' | 'mock';
  apiContextPath?: string;
  mockIncludePattern?: string;
  /** Synthesized mock answers are generated per request (as with `Prefer: dynamic=true`). */
  mockDynamic?: boolean;
}

export interface ServerOptions {
  host: string;
  port: number;
  maxBodySize: number;
  /** One item of a sequential request body (JSON Lines, SSE, ...): larger ones get a 413. */
  maxItemSize: number;
  headersTimeout: number;
  requestTimeout: number;
  keepAliveTimeout: number;
  shutdownTimeout: number;
  workers: number;
}

export const SERVER_DEFAULTS: ServerOptions = {
  host: '0.0.0.0',
  port: 8080,
  maxBodySize: 1024 * 1024,
  maxItemSize: 256 * 1024,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  keepAliveTimeout: 5_000,
  shutdownTimeout: 10_000,
  workers: 1,
};

export interface ObserveOptions {
  health: boolean;
  healthPath: string;
  metrics: boolean;
  metricsPath: string;
  /** A separate management port for health and metrics; unset: served on the main port. */
  port: number | undefined;
  /** Management listen address; unset: `svc.server.host`. */
  host: string | undefined;
  /** How long a graceful stop answers ready with 503 before the listener closes. */
  drainDelay: number;
  logFormat: 'text' | 'json';
  accessLog: boolean;
}

export const OBSERVE_DEFAULTS: ObserveOptions = {
  health: true,
  healthPath: '/observe/health',
  metrics: true,
  metricsPath: '/observe/metrics',
  port: undefined,
  host: undefined,
  drainDelay: 0,
  logFormat: 'text',
  accessLog: false,
};

export interface FacadeConfig {
  rest: RestOptions;
  openApi: OpenApiOptions;
  server: Partial<ServerOptions>;
  backend: Partial<BackendOptions>;
  observe: Partial<ObserveOptions>;
  /** `svc.component.rest-openapi.base-path`. */
  componentBasePath?: string;
  /** Rest configuration `endpointProperty` entries (e.g. `oauthProfile`). */
  endpointProperties: Record<string, string>;
  /** `svc.oauth.<profile>.<key>`. */
  oauth: Record<string, Record<string, string>>;
  routes: RouteDefinition[];
  /** Directory the specification (and mock folder, binding scan) is resolved from. */
  baseDir: string;
  /** `--dev`: `missingOperation` defaults to `mock`. */
  dev: boolean;
  /** Classes for body binding passed by embedders (SPEC §9). */
  bindingClasses: Function[];
}

/**
 * The keys of OAuth profile `name`; undefined when none is set. Profile names match in any case (environment
 * variables spell them in upper case), so `oauth` holds them lower-cased.
 */
export function findOAuthProfile(config: FacadeConfig, name: string): Record<string, string> | undefined {
  const stored = name.toLowerCase();
  return Object.hasOwn(config.oauth, stored) ? config.oauth[stored] : undefined;
}

/** The keys of OAuth profile `name` to set, the profile created empty when new (see findOAuthProfile). */
export function oauthProfileKeys(config: FacadeConfig, name: string): Record<string, string> {
  let keys = findOAuthProfile(config, name);
  if (keys === undefined) setOwn(config.oauth, name.toLowerCase(), (keys = {}));
  return keys;
}

export function emptyConfig(baseDir: string = process.cwd()): FacadeConfig {
  return { rest: {}, openApi: {}, server: {}, backend: {}, observe: {}, endpointProperties: {}, oauth: {}, routes: [], baseDir, dev: false, bindingClasses: [] };
}

/** Finds the canonical option name for camelCase, kebab-case or SNAKE_CASE spellings; undefined if unknown. */
export function canonicalOption(section: Section, name: string): string | undefined {
  const wanted = name.replace(/[-_]/g, '').toLowerCase();
  return Object.keys(OPTION_TABLE[section]).find((k) => k.toLowerCase() === wanted);
}

export function allowedOptions(section: Section): string {
  return Object.keys(OPTION_TABLE[section]).join(', ');
}

/** Validates, coerces and stores one option. `source` names the file (or surface) for error messages. */
export function setOption(config: FacadeConfig, section: Section, name: string, value: unknown, source: string): void {
  const key = canonicalOption(section, name);
  if (!key) throw svcError(Errors.CONFIG_UNKNOWN, source, qualified(section, name), allowedOptions(section));
  const type = (OPTION_TABLE[section] as Record<string, OptionType>)[key]!;
  const coerced = coerce(type, value);
  if (coerced === undefined) throw svcError(Errors.CONFIG_INVALID, source, qualified(section, key), JSON.stringify(value) ?? String(value), describeOptionType(type));
  (config[section] as Record<string, unknown>)[key] = coerced;
}

/** Sets every option of an object (a YAML/XML element or a plain object) in one section. */
export function setOptions(config: FacadeConfig, section: Section, values: Readonly<Record<string, unknown>>, source: string): void {
  for (const [name, value] of Object.entries(values)) setOption(config, section, name, value, source);
}

function qualified(section: Section, name: string): string {
  return section === 'rest' ? name : `${section}.${name}`;
}

export function describeOptionType(type: OptionType): string {
  switch (type.kind) {
    case 'enum':
      return type.values.join(', ');
    case 'boolean':
      return 'true, false';
    case 'int':
      return `an integer from ${type.min} to ${type.max}`;
    case 'duration':
      return `milliseconds, or a number with ms, s or m (e.g. 10s), at most ${MAX_DURATION_MS} ms`;
    case 'size':
      return 'bytes, or a number with KB, KiB, MB or MiB';
    case 'path':
      return 'a path starting with /';
    default:
      return 'a string';
  }
}

function coerce(type: OptionType, value: unknown): unknown {
  switch (type.kind) {
    case 'string':
      return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
    case 'path':
      return typeof value === 'string' && (value === '' || value.startsWith('/')) ? value : undefined;
    case 'boolean':
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return undefined;
    case 'enum': {
      // Camel spells enum values in any case (`JSON`, `Mock`); we accept that and store ours.
      const match = type.values.find((v) => v.toLowerCase() === String(value).toLowerCase());
      return typeof value === 'string' ? match : undefined;
    }
    case 'int': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
      return Number.isInteger(n) && n >= type.min && n <= type.max ? n : undefined;
    }
    case 'duration':
      return parseDuration(value);
    case 'size':
      return parseSize(value);
  }
}

export function resolvedServerOptions(config: FacadeConfig): ServerOptions {
  const options = { ...SERVER_DEFAULTS, ...config.server };
  // node:http refuses a headers timeout longer than the request timeout (0 disables the latter): the
  // default follows a shorter request timeout; an explicit conflicting value is an error.
  if (options.requestTimeout > 0 && options.headersTimeout > options.requestTimeout) {
    if (config.server.headersTimeout === undefined) return { ...options, headersTimeout: options.requestTimeout };
    throw svcError(Errors.CONFIG_INVALID, 'server options', 'server.headersTimeout', options.headersTimeout, `at most server.requestTimeout (${options.requestTimeout} ms)`);
  }
  return options;
}

export function resolvedBackendOptions(config: FacadeConfig): BackendOptions {
  return { ...BACKEND_DEFAULTS, ...config.backend };
}
