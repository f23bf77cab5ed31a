// The YAML DSL (Camel's YAML DSL shape, docs/configuration.md): a list of restConfiguration, rest, route and from items.
import { dirname } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parseYamlFast } from '../contract/yaml-fast.js';
import { Errors, svcError } from '../util/errors.js';
import type { Expression, RouteDefinition, StepDefinition } from './route-definitions.js';
import { allowedOptions, canonicalOption, REST_SERVER_OPTIONS, setCorsHeader, setOption, setOptions, type FacadeConfig } from './model.js';
import { resolvePlaceholders, type PropertyLookup } from './placeholders.js';

// The DSL's shape: these constants are also what lib/config/json-schema.ts describes.
/** Top-level items; server, backend, observe, security and cors take the svc.server.*, svc.backend.*, svc.observe.*, svc.security.*, svc.cors.* options. */
export const TOP_LEVEL = ['restConfiguration', 'rest', 'route', 'from', 'server', 'backend', 'observe', 'security', 'cors'] as const;
export const STEPS = ['setBody', 'setHeader', 'removeHeader', 'setProperty', 'log', 'to', 'circuitBreaker', 'loadBalance'] as const;
export const EXPRESSIONS = ['constant', 'simple', 'json'] as const;
/** Keys Camel allows on any route or step (kept for compatibility; they change nothing here). */
export const COMMON_KEYS = ['id', 'description'] as const;
/** restConfiguration keys besides the rest options and REST_SERVER_OPTIONS: `{key, value}` lists. */
export const ENDPOINT_PROPERTY_KEYS = ['endpointProperty', 'endpointProperties'] as const;
/** Camel's restConfiguration `corsHeaders`: a `{key, value}` list of Access-Control-* fields (docs/cors.md). */
export const CORS_HEADERS_KEY = 'corsHeaders';
/** The keys each step's mapping may have: a misspelt one fails startup instead of being ignored. */
export const STEP_KEYS: Record<(typeof STEPS)[number], readonly string[]> = {
  setBody: [...EXPRESSIONS, 'expression'],
  setHeader: ['name', ...EXPRESSIONS, 'expression'],
  setProperty: ['name', ...EXPRESSIONS, 'expression'],
  removeHeader: ['name'],
  log: ['message', 'logName'],
  to: ['uri', 'parameters'],
  circuitBreaker: ['resilience4jConfiguration', 'steps', 'onFallback'],
  loadBalance: ['roundRobin', 'random', 'failover', 'weighted', 'steps'],
};

type Obj = Record<string, unknown>;

export function applyYamlDsl(config: FacadeConfig, text: string, file: string, lookup: PropertyLookup): void {
  let parsed: unknown;
  try {
    // js-yaml first, as for contracts (same core schema, a fraction of the time of a start); `yaml` keeps
    // anchors, directives and every error message.
    parsed = parseYamlFast(text)?.doc ?? parseYaml(text, { maxAliasCount: 100 });
  } catch (err) {
    throw svcError(Errors.CONFIG_FILE, file, `not valid YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  if (parsed === null || parsed === undefined) return;
  const items = Array.isArray(parsed) ? parsed : [parsed];
  for (const raw of resolvePlaceholders(items, lookup, file)) {
    if (!isObj(raw)) throw svcError(Errors.CONFIG_FILE, file, `each top-level item must be one of ${TOP_LEVEL.join(', ')}`);
    for (const [key, value] of Object.entries(raw)) applyItem(config, key, value, file);
  }
}

function applyItem(config: FacadeConfig, key: string, value: unknown, file: string): void {
  switch (key) {
    case 'restConfiguration':
      return applyRestConfiguration(config, expectObj(value, file, key), file);
    case 'rest':
      return applyRest(config, expectObj(value, file, key), file);
    case 'route': {
      const route = onlyKeys(expectObj(value, file, key), ['from', ...COMMON_KEYS], file, 'route');
      return applyFrom(config, expectObj(route.from, file, 'route.from'), file);
    }
    case 'from':
      return applyFrom(config, expectObj(value, file, key), file);
    case 'server':
    case 'backend':
    case 'observe':
    case 'security':
    case 'cors':
      return setOptions(config, key, expectObj(value, file, key), file);
    default:
      throw svcError(Errors.CONFIG_UNKNOWN, file, key, TOP_LEVEL.join(', '));
  }
}

export function applyRestConfiguration(config: FacadeConfig, rc: Obj, file: string): void {
  for (const [key, value] of Object.entries(rc)) {
    if (key === CORS_HEADERS_KEY) {
      for (const entry of Array.isArray(value) ? value : [value]) {
        if (!isObj(entry) || typeof entry.key !== 'string' || entry.value === undefined) {
          throw svcError(Errors.CONFIG_INVALID, file, CORS_HEADERS_KEY, JSON.stringify(entry), 'a list of {key, value}');
        }
        setCorsHeader(config, entry.key, entry.value, file);
      }
    } else if ((ENDPOINT_PROPERTY_KEYS as readonly string[]).includes(key)) {
      for (const entry of Array.isArray(value) ? value : [value]) {
        if (!isObj(entry) || typeof entry.key !== 'string' || entry.value === undefined) {
          throw svcError(Errors.CONFIG_INVALID, file, 'endpointProperty', JSON.stringify(entry), 'a list of {key, value}');
        }
        config.endpointProperties[entry.key] = String(entry.value);
      }
    } else if ((REST_SERVER_OPTIONS as readonly string[]).includes(key)) {
      setOption(config, 'server', key, value, file);
    } else if (canonicalOption('rest', key) === undefined) {
      throw svcError(Errors.CONFIG_UNKNOWN, file, key, `${allowedOptions('rest')}, ${REST_SERVER_OPTIONS.join(', ')}, endpointProperty, ${CORS_HEADERS_KEY}`);
    } else {
      setOption(config, 'rest', key, value, file);
    }
  }
}

function applyRest(config: FacadeConfig, rest: Obj, file: string): void {
  for (const [key, value] of Object.entries(rest)) {
    if (key !== 'openApi') throw svcError(Errors.CONFIG_UNKNOWN, file, `rest.${key}`, 'openApi');
    applyOpenApi(config, expectObj(value, file, 'rest.openApi'), file);
  }
}

export function applyOpenApi(config: FacadeConfig, openApi: Obj, file: string): void {
  for (const [key, value] of Object.entries(openApi)) setOption(config, 'openApi', key, value, file);
  if (openApi.specification !== undefined) config.baseDir = dirname(file);
}

function applyFrom(config: FacadeConfig, from: Obj, file: string): void {
  onlyKeys(from, ['uri', 'steps', ...COMMON_KEYS], file, 'from');
  const uri = from.uri;
  if (typeof uri !== 'string') throw svcError(Errors.CONFIG_INVALID, file, 'from.uri', JSON.stringify(uri), 'direct:<operationId> or rest-openapi:<specification>');
  if (uri.startsWith('rest-openapi:')) return applyConsumerUri(config, uri, file);
  if (!uri.startsWith('direct:') || uri.length === 'direct:'.length) {
    throw svcError(Errors.CONFIG_INVALID, file, 'from.uri', uri, 'direct:<operationId> or rest-openapi:<specification>');
  }
  const steps = from.steps ?? [];
  if (!Array.isArray(steps)) throw svcError(Errors.STEP_INVALID, file, `${uri}: steps must be a list`);
  config.routes.push(routeDefinition(uri, steps, file));
}

export function routeDefinition(uri: string, steps: unknown[], file: string): RouteDefinition {
  return { from: uri, source: file, steps: steps.map((s) => parseStep(s, `${file} (${uri})`)) };
}

/** `rest-openapi:<spec>?consumerComponentName=x&oauthProfile=y` (docs/bearer-tokens.md). */
export function applyConsumerUri(config: FacadeConfig, uri: string, file: string): void {
  const rest = uri.slice('rest-openapi:'.length);
  const q = rest.indexOf('?');
  const spec = q === -1 ? rest : rest.slice(0, q);
  if (spec.includes('#')) throw svcError(Errors.CONFIG_INVALID, file, 'from.uri', uri, 'a rest-openapi URI without #operationId (the consumer serves the whole contract)');
  if (spec) applyOpenApi(config, { specification: spec }, file);
  for (const [key, value] of new URLSearchParams(q === -1 ? '' : rest.slice(q + 1))) {
    if (key === 'consumerComponentName') setOption(config, 'rest', 'component', value, file);
    else if (key === 'oauthProfile') config.endpointProperties.oauthProfile = value;
    else if (key === 'missingOperation' || key === 'apiContextPath' || key === 'mockIncludePattern' || key === 'mockDynamic') setOption(config, 'openApi', key, value, file);
    else throw svcError(Errors.CONFIG_UNKNOWN, file, `${key} (in ${uri})`, 'consumerComponentName, oauthProfile, missingOperation, apiContextPath, mockIncludePattern, mockDynamic');
  }
}

function parseStep(raw: unknown, where: string): StepDefinition {
  if (!isObj(raw) || Object.keys(raw).length !== 1) throw svcError(Errors.STEP_INVALID, where, `each step is an object with one of ${STEPS.join(', ')}`);
  const [kind, value] = Object.entries(raw)[0]!;
  const keys = Object.hasOwn(STEP_KEYS, kind) ? STEP_KEYS[kind as keyof typeof STEP_KEYS] : undefined;
  if (keys && isObj(value)) onlyKeys(value, [...keys, ...COMMON_KEYS], where, kind);
  switch (kind) {
    case 'setBody':
      return { kind, expression: parseExpression(value, where, kind) };
    case 'setHeader':
    case 'setProperty':
      return { kind, name: expectName(value, where, kind), expression: parseExpression(value, where, kind) };
    case 'removeHeader':
      return { kind, name: typeof value === 'string' ? value : expectName(value, where, kind) };
    case 'log': {
      if (typeof value === 'string') return { kind, message: value };
      const obj = expectObj(value, where, kind);
      if (typeof obj.message !== 'string') throw svcError(Errors.STEP_INVALID, where, 'log needs a message');
      return { kind, message: obj.message, loggerName: typeof obj.logName === 'string' ? obj.logName : undefined };
    }
    case 'to': {
      const uri = typeof value === 'string' ? value : isObj(value) ? value.uri : undefined;
      if (typeof uri !== 'string' || !/^(direct:.+|log:.+|https?:\/\/.+)$/i.test(uri)) {
        throw svcError(Errors.STEP_INVALID, where, `to needs a uri: direct:<name>, log:<name>, http:// or https:// (got ${JSON.stringify(uri)})`);
      }
      const parameters = isObj(value) ? value.parameters : undefined;
      if (parameters === undefined) return { kind, uri };
      // Camel's YAML DSL: endpoint options as a mapping instead of in the URI query.
      if (!isObj(parameters)) throw svcError(Errors.STEP_INVALID, where, 'to.parameters must be a mapping of endpoint options');
      return { kind, uri, parameters };
    }
    case 'circuitBreaker':
      return parseCircuitBreaker(expectObj(value, where, kind), where);
    case 'loadBalance':
      return parseLoadBalance(expectObj(value, where, kind), where);
    default:
      throw svcError(Errors.STEP_INVALID, where, `unknown step ${kind}; allowed: ${STEPS.join(', ')} (use the fluent API for process)`);
  }
}

/** Camel's `circuitBreaker: { resilience4jConfiguration: {...}, steps: [...], onFallback: { steps: [...] } }`. */
function parseCircuitBreaker(value: Obj, where: string): StepDefinition {
  const steps = value.steps;
  if (!Array.isArray(steps) || steps.length === 0) throw svcError(Errors.STEP_INVALID, where, 'circuitBreaker needs steps (a list)');
  const configuration = value.resilience4jConfiguration;
  if (configuration !== undefined && !isObj(configuration)) throw svcError(Errors.STEP_INVALID, where, 'circuitBreaker.resilience4jConfiguration must be a mapping');
  const fallback = value.onFallback;
  if (fallback !== undefined && (!isObj(fallback) || !Array.isArray(fallback.steps))) throw svcError(Errors.STEP_INVALID, where, 'circuitBreaker.onFallback must be a mapping with steps (a list)');
  if (isObj(fallback)) onlyKeys(fallback, ['steps', ...COMMON_KEYS], where, 'onFallback');
  return {
    kind: 'circuitBreaker',
    configuration,
    steps: steps.map((s) => parseStep(s, where)),
    ...(isObj(fallback) && { onFallback: (fallback.steps as unknown[]).map((s) => parseStep(s, where)) }),
  };
}

const BALANCERS = ['roundRobin', 'random', 'failover', 'weighted'] as const;

/** Camel's `loadBalance: { roundRobin: {} | random: {} | failover: { maximumFailoverAttempts } | weighted: { distributionRatio }, steps: [...] }`. */
function parseLoadBalance(value: Obj, where: string): StepDefinition {
  const chosen = BALANCERS.filter((b) => value[b] !== undefined);
  if (chosen.length !== 1) throw svcError(Errors.STEP_INVALID, where, `loadBalance needs one of ${BALANCERS.join(', ')}`);
  const kind = chosen[0]!;
  const options = value[kind] === null ? {} : expectObj(value[kind], where, `loadBalance.${kind}`);
  const steps = value.steps;
  if (!Array.isArray(steps)) throw svcError(Errors.STEP_INVALID, where, 'loadBalance needs steps (a list of to: endpoints)');
  return { kind: 'loadBalance', strategy: balancerStrategy(kind, options, where), steps: steps.map((s) => parseStep(s, where)) };
}

/** A strategy from its DSL options (also read by the XML DSL and the fluent API). */
export function balancerStrategy(kind: string, options: Readonly<Record<string, unknown>>, where: string): Extract<StepDefinition, { kind: 'loadBalance' }>['strategy'] {
  switch (kind) {
    case 'roundRobin':
    case 'random':
      onlyKeys({ ...options }, [...COMMON_KEYS], where, kind);
      return { kind };
    case 'failover': {
      onlyKeys({ ...options }, ['maximumFailoverAttempts', 'roundRobin', ...COMMON_KEYS], where, kind);
      const raw = options.maximumFailoverAttempts ?? -1;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < -1) throw svcError(Errors.STEP_INVALID, where, `failover.maximumFailoverAttempts has invalid value ${JSON.stringify(raw)}; allowed: -1 (every endpoint once) or a count from 0`);
      return { kind, maximumFailoverAttempts: n };
    }
    case 'weighted': {
      onlyKeys({ ...options }, ['distributionRatio', 'distributionRatioDelimiter', 'roundRobin', ...COMMON_KEYS], where, kind);
      const delimiter = typeof options.distributionRatioDelimiter === 'string' ? options.distributionRatioDelimiter : ',';
      const ratios = String(options.distributionRatio ?? '').split(delimiter).map((r) => Number(r.trim()));
      if (ratios.length === 0 || ratios.some((r) => !Number.isInteger(r) || r < 1 || r > 1000)) throw svcError(Errors.STEP_INVALID, where, `weighted.distributionRatio has invalid value ${JSON.stringify(options.distributionRatio)}; allowed: integers from 1 to 1000, one per endpoint ("4,2,1")`);
      return { kind, ratios };
    }
    default:
      throw svcError(Errors.STEP_INVALID, where, `loadBalance needs one of ${BALANCERS.join(', ')}`);
  }
}

function parseExpression(value: unknown, where: string, step: string): Expression {
  const obj = isObj(value) && isObj(value.expression) ? value.expression : value;
  if (isObj(obj) && EXPRESSIONS.filter((e) => e in obj).length > 1) {
    throw svcError(Errors.STEP_INVALID, where, `${step} has more than one expression; give one of ${EXPRESSIONS.join(', ')}`);
  }
  if (isObj(obj)) {
    if ('constant' in obj) return { constant: obj.constant };
    if ('simple' in obj) return { simple: String(obj.simple) };
    if ('json' in obj) return { json: obj.json };
  }
  throw svcError(Errors.STEP_INVALID, where, `${step} needs an expression: ${EXPRESSIONS.join(', ')}`);
}

function onlyKeys(obj: Obj, allowed: readonly string[], where: string, what: string): Obj {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw svcError(Errors.CONFIG_UNKNOWN, where, `${what}.${key}`, allowed.join(', '));
  }
  return obj;
}

function expectName(value: unknown, where: string, step: string): string {
  if (isObj(value) && typeof value.name === 'string' && value.name !== '') return value.name;
  throw svcError(Errors.STEP_INVALID, where, `${step} needs a name`);
}

function expectObj(value: unknown, file: string, what: string): Obj {
  if (!isObj(value)) throw svcError(Errors.CONFIG_FILE, file, `${what} must be a mapping`);
  return value;
}

function isObj(value: unknown): value is Obj {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
