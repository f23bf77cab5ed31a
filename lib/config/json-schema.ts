// The YAML DSL's JSON Schema (config.schema.json at the package root, `svc-facade/config.schema.json`), for
// editors (`# yaml-language-server: $schema=...`) and CI checks. Generated from what the DSL itself reads by:
// the option table (lib/config/model.ts) and the DSL's item, step and expression keys (yaml-dsl.ts). So an
// option added to the table is in the schema the next time it is generated (scripts/config-schema.mjs; a
// test fails while the committed file differs).
// Draft-07: the draft every YAML editor's schema support reads.
import { describeOptionType, NESTED_SECTIONS, OPTION_TABLE, REST_SERVER_OPTIONS, type OptionType, type Section } from './model.js';
import { DURATION_UNITS, MAX_DURATION_MS, SIZE_UNITS } from './units.js';
import { CORS_HEADER_KEYS } from '../http/cors-options.js';
import { COMMON_KEYS, CORS_HEADERS_KEY, ENDPOINT_PROPERTY_KEYS, EXPRESSIONS, STEP_KEYS, STEPS, TOP_LEVEL } from './yaml-dsl.js';

type Schema = Record<string, unknown>;

/** `{{key}}` or `{{key:default}}` (lib/config/placeholders.ts): any value may be one, resolved before it is read. */
const PLACEHOLDER: Schema = { type: 'string', pattern: '\\{\\{[^{}:]+(:[^{}]*)?\\}\\}', description: 'a {{key}} or {{key:default}} placeholder, read from properties and the environment' };
const ref = (name: string): Schema => ({ $ref: `#/definitions/${name}` });
/** A value of the given schema, or a placeholder standing for one. */
const orPlaceholder = (...schemas: Schema[]): Schema => ({ anyOf: [...schemas, ref('placeholder')] });

/** A regular expression source matching `literal` in any case (JSON Schema patterns take no flags). */
function anyCase(literal: string): string {
  return [...literal].map((c) => (c.toLowerCase() !== c.toUpperCase() ? `[${c.toLowerCase()}${c.toUpperCase()}]` : c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))).join('');
}

/** A number with one of the units (any case), as lib/config/units.ts reads it. */
function withUnitPattern(units: Readonly<Record<string, number>>): string {
  return `^\\s*\\d+(\\.\\d+)?\\s*(${Object.keys(units).filter((u) => u !== '').map(anyCase).join('|')})?\\s*$`;
}

/** What setOption accepts for an option of this type (lib/config/model.ts coerce). */
function optionValue(type: OptionType): Schema {
  switch (type.kind) {
    case 'string':
      return { type: ['string', 'number'] };
    case 'path':
      return orPlaceholder({ type: 'string', pattern: '^(/.*)?$' });
    case 'boolean':
      return orPlaceholder({ type: 'boolean' }, { enum: ['true', 'false'] });
    case 'enum':
      // The values as we spell them, for completion; any case is accepted, as Camel spells them (JSON, Mock).
      return orPlaceholder({ enum: [...type.values] }, { type: 'string', pattern: `^(${type.values.map(anyCase).join('|')})$` });
    case 'int':
      return orPlaceholder({ type: 'integer', minimum: type.min, maximum: type.max }, { type: 'string', pattern: '^\\s*\\d+\\s*$' });
    case 'duration':
      return orPlaceholder({ type: 'integer', minimum: 0, maximum: MAX_DURATION_MS }, { type: 'string', pattern: withUnitPattern(DURATION_UNITS) });
    case 'size':
      return orPlaceholder({ type: 'integer', minimum: 0 }, { type: 'string', pattern: withUnitPattern(SIZE_UNITS) });
  }
}

/** The property key an option has in `.properties` files, for the description an editor shows. */
function propertyName(section: Section, name: string): string {
  if (section in NESTED_SECTIONS) {
    const { parent, key } = NESTED_SECTIONS[section as keyof typeof NESTED_SECTIONS];
    return `svc.${parent}.${key}.${name}`;
  }
  return section === 'rest' ? `svc.rest.${name}` : section === 'openApi' ? `svc.rest.openApi.${name}` : `svc.${section}.${name}`;
}

/** The name of an option's schema under `definitions` (`server.port`), where both spellings refer to it. */
function optionDefinition(section: Section, name: string): string {
  return `${section}.${name}`;
}

/** Every option's schema, named by optionDefinition. */
function optionDefinitions(): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const section of Object.keys(OPTION_TABLE) as Section[]) {
    for (const name of Object.keys(OPTION_TABLE[section])) out[optionDefinition(section, name)] = option(section, name);
  }
  return out;
}

function option(section: Section, name: string): Schema {
  const type = (OPTION_TABLE[section] as Record<string, OptionType>)[name]!;
  return { description: `${propertyName(section, name)}: ${describeOptionType(type)}`, ...optionValue(type) };
}

/**
 * Every other spelling canonicalOption reads as `name`: any case, any `-` and `_` (`client-request-validation`,
 * `CLIENT_REQUEST_VALIDATION`). `name` itself is left to `properties` (a validator may refuse a property that
 * both name).
 */
function otherSpellings(name: string): string {
  return `^(?!${name}$)[-_]*${[...name].map(anyCase).join('[-_]*')}[-_]*$`;
}

/**
 * A mapping of one section's options; nothing else. Editors complete the names as the table spells them
 * (properties); the other spellings startup reads are allowed too (patternProperties), with the same values.
 */
function section(name: Section, extra: Record<string, Schema> = {}): Schema {
  const properties: Record<string, Schema> = {};
  const patternProperties: Record<string, Schema> = {};
  for (const key of Object.keys(OPTION_TABLE[name])) {
    properties[key] = ref(optionDefinition(name, key));
    patternProperties[otherSpellings(key)] = ref(optionDefinition(name, key));
  }
  return { type: 'object', properties: { ...properties, ...extra }, patternProperties, additionalProperties: false };
}

const ENDPOINT_PROPERTY: Schema = {
  type: 'object',
  properties: { key: { type: 'string', description: 'e.g. oauthProfile' }, value: { type: ['string', 'number', 'boolean'] } },
  required: ['key', 'value'],
  additionalProperties: false,
};

const CORS_HEADER: Schema = {
  type: 'object',
  properties: { key: { enum: [...CORS_HEADER_KEYS], description: 'the Access-Control-* field this value overrides (docs/cors.md)' }, value: { type: ['string', 'number', 'boolean'] } },
  required: ['key', 'value'],
  additionalProperties: false,
};

/** What each key of a step's mapping holds (yaml-dsl.ts parseStep). */
const STEP_KEY_VALUES: Record<string, Schema> = {
  name: { type: 'string', minLength: 1 },
  constant: { description: 'a constant value' },
  simple: { type: ['string', 'number', 'boolean'], description: 'a simple-language template: ${header.x}, ${body}, ${exchangeProperty.x}...' },
  json: { description: 'a JSON value, written as YAML' },
  expression: ref('expression'),
  message: { type: 'string' },
  logName: { type: 'string' },
  uri: ref('toUri'),
  parameters: { type: 'object', description: 'endpoint options, as in the URI query (timeout, connectTimeout, forwardPath...)' },
  steps: { type: 'array', items: ref('step') },
  resilience4jConfiguration: { type: 'object', description: "Camel's keys: failureRateThreshold, slidingWindowSize, minimumNumberOfCalls, waitDurationInOpenState, permittedNumberOfCallsInHalfOpenState, timeoutEnabled, timeoutDuration" },
  roundRobin: { type: ['object', 'null'] },
  random: { type: ['object', 'null'] },
  failover: { type: ['object', 'null'], properties: { maximumFailoverAttempts: { type: ['integer', 'string'] }, roundRobin: { type: ['boolean', 'string'] } } },
  weighted: { type: 'object', properties: { distributionRatio: { type: 'string' }, distributionRatioDelimiter: { type: 'string' }, roundRobin: { type: ['boolean', 'string'] } }, required: ['distributionRatio'] },
  onFallback: { type: 'object', properties: { steps: { type: 'array', items: ref('step') }, id: { type: 'string' } }, additionalProperties: false },
  id: { type: 'string' },
  description: { type: 'string' },
};

/** The keys a step's mapping must have; those with an expression need exactly one (parseExpression). */
const STEP_REQUIRED: Partial<Record<(typeof STEPS)[number], string[]>> = { setHeader: ['name'], setProperty: ['name'], removeHeader: ['name'], log: ['message'], to: ['uri'], circuitBreaker: ['steps'], loadBalance: ['steps'] };
/** Steps that may be written as one string: `removeHeader: X-Temp`, `log: text`, `to: http://...`. */
const STEP_SHORTHAND: Partial<Record<(typeof STEPS)[number], Schema>> = { removeHeader: { type: 'string', minLength: 1 }, log: { type: 'string' }, to: ref('toUri') };

function step(kind: (typeof STEPS)[number]): Schema {
  const keys = [...STEP_KEYS[kind], ...COMMON_KEYS];
  const mapping: Schema = { type: 'object', properties: Object.fromEntries(keys.map((k) => [k, STEP_KEY_VALUES[k] ?? {}])), additionalProperties: false };
  if (STEP_REQUIRED[kind]) mapping.required = STEP_REQUIRED[kind];
  const expressionKeys = keys.filter((k) => (EXPRESSIONS as readonly string[]).includes(k) || k === 'expression');
  if (expressionKeys.length > 0) mapping.oneOf = expressionKeys.map((k) => ({ required: [k] }));
  const shorthand = STEP_SHORTHAND[kind];
  return shorthand === undefined ? mapping : { anyOf: [shorthand, mapping] };
}

/** The JSON Schema of a YAML DSL file. */
export function configurationSchema(): Schema {
  const items: Record<(typeof TOP_LEVEL)[number], Schema> = {
    restConfiguration: section('rest', {
      ...Object.fromEntries(REST_SERVER_OPTIONS.map((name) => [name, ref(optionDefinition('server', name))])),
      ...Object.fromEntries(ENDPOINT_PROPERTY_KEYS.map((name) => [name, { anyOf: [ref('endpointProperty'), { type: 'array', items: ref('endpointProperty') }] }])),
      [CORS_HEADERS_KEY]: { anyOf: [ref('corsHeader'), { type: 'array', items: ref('corsHeader') }] },
    }),
    rest: { type: 'object', properties: { openApi: section('openApi') }, additionalProperties: false },
    route: { type: 'object', properties: { from: ref('from'), ...commonKeys() }, required: ['from'], additionalProperties: false },
    from: ref('from'),
    server: section('server', { tls: section('tls') }),
    backend: section('backend'),
    observe: section('observe', { tls: section('observeTls') }),
    security: section('security'),
    cors: section('cors'),
  };
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'svc-facade YAML DSL',
    description: 'A list of restConfiguration, rest, route, from, server, backend, observe, security and cors items (docs/configuration.md).',
    anyOf: [{ type: 'array', items: ref('item') }, ref('item'), { type: 'null' }],
    definitions: {
      item: { type: 'object', properties: items, additionalProperties: false, minProperties: 1 },
      from: {
        type: 'object',
        properties: {
          uri: orPlaceholder({ type: 'string', pattern: '^(direct:.+|rest-openapi:.*)$', description: 'direct:<operationId>, or rest-openapi:<specification>?consumerComponentName=...&oauthProfile=...' }),
          steps: { type: 'array', items: ref('step') },
          ...commonKeys(),
        },
        required: ['uri'],
        additionalProperties: false,
      },
      step: { type: 'object', properties: Object.fromEntries(STEPS.map((kind) => [kind, step(kind)])), additionalProperties: false, minProperties: 1, maxProperties: 1 },
      expression: { type: 'object', properties: Object.fromEntries(EXPRESSIONS.map((k) => [k, STEP_KEY_VALUES[k]!])), additionalProperties: false, minProperties: 1, maxProperties: 1 },
      toUri: orPlaceholder({ type: 'string', pattern: `^(${anyCase('direct:')}.+|${anyCase('log:')}.+|${anyCase('http')}[sS]?://.+)$`, description: 'direct:<name>, log:<name>, or an http(s):// backend' }),
      endpointProperty: ENDPOINT_PROPERTY,
      corsHeader: CORS_HEADER,
      placeholder: PLACEHOLDER,
      ...optionDefinitions(),
    },
  };
}

function commonKeys(): Record<string, Schema> {
  return Object.fromEntries(COMMON_KEYS.map((k) => [k, STEP_KEY_VALUES[k]!]));
}

/** The committed file's text: two-space JSON and a final newline. */
export function configurationSchemaText(): string {
  return `${JSON.stringify(configurationSchema(), null, 2)}\n`;
}
