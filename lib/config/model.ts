// The configuration model and its one option table: every surface (YAML, XML, properties, env, fluent)
// sets options through `setOption`, so types, allowed values and error messages are the same everywhere.
import { Errors, svcError } from '../util/errors.js';
import { setOwn } from '../util/objects.js';
import { BACKEND_DEFAULTS, type BackendOptions } from './backend-options.js';
import type { RouteDefinition } from './route-definitions.js';
import type { SecurityHandler } from './security-handler.js';
import { TLS_DEFAULTS, type TlsListenerOptions, type TlsOptions } from '../http/tls-options.js';
import { CORS_HEADER_KEYS, type CorsOptions } from '../http/cors-options.js';
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

/** A listener's TLS (lib/http/tls-options.ts); TLS 1.0 and 1.1 are not offered at all. */
const TLS_LISTENER = {
  certFile: str,
  keyFile: str,
  caFile: str,
  clientAuth: enumOf('none', 'request', 'require'),
  minVersion: enumOf('TLSv1.2', 'TLSv1.3'),
} as const;

export const OPTION_TABLE = {
  rest: {
    contextPath: path,
    clientRequestValidation: bool,
    clientResponseValidation: bool,
    clientSecurityValidation: bool,
    bindingMode: enumOf('off', 'auto', 'json', 'xml', 'json_xml'),
    bindingPackageScan: str,
    apiContextPath: path,
    hostNameResolver: enumOf('localIp', 'none'),
    component: str,
    /** Camel's switch for cross-origin answers (docs/cors.md); the policy is svc.cors.* and corsHeaders. */
    enableCORS: bool,
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
    /** HTTP/2 beside HTTP/1.1: ALPN h2 with TLS, prior knowledge on cleartext (lib/http/http2.ts). */
    http2: bool,
    /** Answers compressed with br or gzip when the client accepts it (docs/cors.md). */
    compression: bool,
    compressionThreshold: { kind: 'size' },
  },
  /** Cross-origin answers (lib/http/cors.ts), when restConfiguration enableCORS is on. */
  cors: {
    allowOrigins: str,
    allowCredentials: bool,
    maxAge: { kind: 'int', min: 0, max: 86400 * 365 },
    exposeHeaders: str,
  },
  /** svc.server.tls.* (a mapping `tls:` under `server`): HTTPS and mutual TLS on the main port. */
  tls: { ...TLS_LISTENER, forwardClientCert: bool },
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
    redirectOrigins: str,
    retries: { kind: 'int', min: 0, max: 10 },
    retryDelay: duration,
    retryMaxDelay: duration,
    retryBudgetPercent: { kind: 'int', min: 0, max: 1000 },
    retryBudgetMinPerSecond: { kind: 'int', min: 0, max: 100000 },
    maxRetryBodySize: { kind: 'size' },
    requestTimeout: duration,
    http2: bool,
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
  // The contract's security requirements (lib/security/requirements.ts), with clientSecurityValidation: true.
  security: {
    apiKeys: str,
    basicUsers: str,
    principalHeader: str,
  },
  /** svc.observe.tls.*: the management port's own certificate; unset, it is plaintext. */
  observeTls: TLS_LISTENER,
} as const satisfies Record<string, Record<string, OptionType>>;

export type Section = keyof typeof OPTION_TABLE;

/**
 * Sections set as a mapping inside another (`server: { tls: {...} }`, `svc.server.tls.certFile`): the outer
 * section, the key, and how the options are named in messages and docs.
 */
export const NESTED_SECTIONS = {
  tls: { parent: 'server', key: 'tls' },
  observeTls: { parent: 'observe', key: 'tls' },
} as const satisfies Partial<Record<Section, { parent: Section; key: string }>>;

/** The section a `key` inside `parent` stands for (`server` + `tls` → `tls`); undefined when it is an option. */
export function nestedSection(parent: Section, key: string): Section | undefined {
  const wanted = key.toLowerCase();
  return (Object.keys(NESTED_SECTIONS) as (keyof typeof NESTED_SECTIONS)[]).find((s) => NESTED_SECTIONS[s].parent === parent && NESTED_SECTIONS[s].key === wanted);
}

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
  /** Enforce each operation's `security` (docs/security.md#contract-security). */
  clientSecurityValidation?: boolean;
  bindingMode?: 'off' | 'auto' | 'json' | 'xml' | 'json_xml';
  bindingPackageScan?: string;
  apiContextPath?: string;
  hostNameResolver?: 'localIp' | 'none';
  component?: string;
  enableCORS?: boolean;
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
  /** Default: on (the TLS port offers h2 by ALPN; the cleartext one serves prior-knowledge HTTP/2). */
  http2: boolean;
  /** Compress answers (br, gzip) for clients that accept it. */
  compression: boolean;
  /** Smaller answers are sent as they are: compressing them saves less than it costs. */
  compressionThreshold: number;
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
  http2: true,
  compression: true,
  compressionThreshold: 1024,
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

/** `svc.security.*`: what checks the contract's security schemes beyond presence, and where the principal goes. */
export interface SecurityOptions {
  /** A file of API keys, one per line (`key`, `principal: key`, either as `sha256:<hex>`). */
  apiKeys?: string;
  /** An htpasswd file (bcrypt `$2y$`/`$2b$`, `{SHA}`) for `http` `basic` schemes. */
  basicUsers?: string;
  /** The request header that tells `to:` backends the principal; the client's own copy is dropped. */
  principalHeader?: string;
}

export interface FacadeConfig {
  rest: RestOptions;
  openApi: OpenApiOptions;
  server: Partial<ServerOptions>;
  backend: Partial<BackendOptions>;
  observe: Partial<ObserveOptions>;
  security: SecurityOptions;
  /** Embedders' checks of security schemes by name (createFacade `securityHandlers`). */
  securityHandlers: Record<string, SecurityHandler>;
  tls: Partial<TlsOptions>;
  observeTls: Partial<TlsListenerOptions>;
  cors: Partial<CorsOptions>;
  /** Camel's restConfiguration `corsHeaders`: Access-Control-* field → value, overriding what svc.cors.* gives. */
  corsHeaders: Record<string, string>;
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
  /** Classes for body binding passed by embedders (docs/binding.md). */
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
  return { rest: {}, openApi: {}, server: {}, backend: {}, observe: {}, security: {}, securityHandlers: {}, tls: {}, observeTls: {}, cors: {}, corsHeaders: {}, endpointProperties: {}, oauth: {}, routes: [], baseDir, dev: false, bindingClasses: [] };
}

/** One `corsHeaders` entry; the key is an Access-Control-* field (any case), else the option is unknown. */
export function setCorsHeader(config: FacadeConfig, key: unknown, value: unknown, source: string): void {
  const field = CORS_HEADER_KEYS.find((k) => typeof key === 'string' && k.toLowerCase() === key.toLowerCase());
  if (field === undefined) throw svcError(Errors.CONFIG_UNKNOWN, source, `corsHeaders ${String(key)}`, CORS_HEADER_KEYS.join(', '));
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') throw svcError(Errors.CONFIG_INVALID, source, `corsHeaders ${field}`, JSON.stringify(value) ?? String(value), 'a string');
  config.corsHeaders[field] = String(value);
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
  const nested = nestedSection(section, name);
  if (nested !== undefined) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw svcError(Errors.CONFIG_INVALID, source, qualified(nested, ''), JSON.stringify(value) ?? String(value), `a mapping of ${allowedOptions(nested)}`);
    return setOptions(config, nested, value as Record<string, unknown>, source);
  }
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
  if (section === 'rest') return name;
  const prefix = section in NESTED_SECTIONS ? `${NESTED_SECTIONS[section as keyof typeof NESTED_SECTIONS].parent}.${NESTED_SECTIONS[section as keyof typeof NESTED_SECTIONS].key}` : section;
  return name === '' ? prefix : `${prefix}.${name}`;
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

export function resolvedTlsOptions(config: FacadeConfig): TlsOptions {
  return { ...TLS_DEFAULTS, ...config.tls };
}

export function resolvedBackendOptions(config: FacadeConfig): BackendOptions {
  return { ...BACKEND_DEFAULTS, ...config.backend };
}
