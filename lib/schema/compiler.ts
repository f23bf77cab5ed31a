// Contract schemas → ajv schemas, compiled by one shared ajv instance per facade (docs/validation.md).
//
// - OpenAPI 3.0 contracts use ajv's default (draft-07) class with the 3.0 rules applied while converting:
//   `nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`, `$ref` siblings ignored. OpenAPI 3.1
//   contracts use `Ajv2020` (draft 2020-12: type arrays, `const`, `prefixItems`, `unevaluated*`, ...).
// - Only validation and applicator keywords are kept; annotations (`example`, `xml`, `description`,
//   `x-*`, ...) are dropped, so ajv never sees OpenAPI-only vocabulary.
// - Direction matters: `readOnly` properties are not required in requests, `writeOnly` ones not in
//   responses, so a schema is converted once per direction.
// - Every `$ref` is resolved by the contract's RefResolver (local pointers, other files, 3.1 `$id`s) and its
//   target is added to ajv once per direction under a private id; targets are keyed by object identity,
//   so recursive schemas terminate and are shared between operations.
// - `discriminator` with `oneOf`/`anyOf` becomes an if/then dispatch on the property's value, so only the
//   chosen branch is checked (and reported); see discriminator.ts for when plain `oneOf` stays.
// - A schema ajv cannot compile (a bound that is no number, a `pattern` that is no regular expression) never
//   means "not validated": it is logged once as an ERROR, and every value that needs it is refused with
//   SCHEMA_UNCOMPILABLE, a 500 problem (counted by svc_validation_uncompilable_total). Compiling stays lazy,
//   for startup time; every `$ref` it follows was resolved at startup (lib/contract/reference-check.ts).
import { Ajv, type AnySchema, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formatsModule, { type FormatsPlugin } from 'ajv-formats';
import type { Contract } from '../contract/load.js';
import { isRef } from '../contract/refs.js';
import { ONE_SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP } from '../contract/schema-keywords.js';
import { Errors, svcError } from '../util/errors.js';
import type { Logger } from '../util/log.js';
import { discriminatorDispatch } from './discriminator.js';
import { createSafeRegExp } from './safe-regex.js';

export type Direction = 'request' | 'response';
/** A compiled check: the ajv errors, or undefined when the value is valid. */
export type SchemaCheck = (value: unknown) => ErrorObject[] | undefined;

type Json = Record<string, unknown>;

const JSON_TYPES = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);
/** Keywords copied as they are (validation vocabulary). */
const PLAIN = new Set([
  'enum', 'const', 'multipleOf', 'maximum', 'minimum', 'exclusiveMaximum', 'exclusiveMinimum', 'maxLength', 'minLength',
  'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxContains', 'minContains', 'maxProperties', 'minProperties',
  'dependentRequired',
]);
const COMPOSED = ['allOf', 'anyOf', 'oneOf', 'not', '$ref', 'if'];
const MAX_DEPTH = 256;

// ajv-formats is CommonJS: its default export arrives as the module object under some loaders.
const addFormats: FormatsPlugin = (formatsModule as unknown as { default?: FormatsPlugin }).default ?? (formatsModule as unknown as FormatsPlugin);

export class SchemaCompiler {
  private ajvInstance: Ajv | undefined;
  private readonly ids = { request: new WeakMap<object, string>(), response: new WeakMap<object, string>() };
  private counter = 0;
  private readonly warned = new Set<string>();

  constructor(
    private readonly contract: Contract,
    private readonly logger: Logger,
  ) {}

  /**
   * Compiles a check built from contract schemas (the builder calls `convert`). When the schema cannot be
   * converted or compiled, that is logged once under `label` as an ERROR, and the check refuses every value.
   */
  compile(label: string, build: (convert: (schema: unknown, uri: string, direction: Direction) => AnySchema) => AnySchema): SchemaCheck {
    let validate: ValidateFunction;
    try {
      validate = this.ajv.compile(build((schema, uri, direction) => this.convert(schema, uri, direction, 0)));
    } catch (err) {
      this.logOnce(`${label}: the schema cannot be compiled, so every request that needs it is refused (500): ${(err as Error).message}`, 'error');
      return refuseUncompilable;
    }
    return (value) => (validate(value) ? undefined : (validate.errors ?? []));
  }

  private get ajv(): Ajv {
    if (this.ajvInstance === undefined) {
      const options: Options = {
        strict: false,
        allErrors: true,
        validateSchema: false,
        addUsedSchema: false,
        code: { regExp: createSafeRegExp(this.logger) },
        logger: { log: () => undefined, warn: (m: unknown) => this.logOnce(String(m)), error: (m: unknown) => this.logOnce(String(m)) },
      };
      const ajv = this.contract.version !== '3.0' ? new Ajv2020(options) : new Ajv(options);
      addFormats(ajv);
      this.ajvInstance = ajv;
    }
    return this.ajvInstance;
  }

  /** Logs a message once per facade: every operation whose schemas hold the same fault meets it again. */
  private logOnce(message: string, level: 'warn' | 'error' = 'warn'): void {
    if (this.warned.has(message)) return;
    this.warned.add(message);
    this.logger[level](`validation: ${message}`);
  }

  /** One contract schema (found in the document `uri`) as an ajv schema. */
  private convert(schema: unknown, uri: string, direction: Direction, depth: number): AnySchema {
    if (depth > MAX_DEPTH) throw new Error('schema nesting is too deep');
    if (typeof schema === 'boolean') return schema;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return {};
    const node = schema as Json;
    const v31 = this.contract.version !== '3.0';
    if (isRef(node)) {
      const target = this.reference(node.$ref, uri, direction);
      // 3.0: siblings of `$ref` are ignored; 3.1 (2020-12): they apply alongside it.
      if (!v31) return target;
      const { $ref: _ignored, ...siblings } = node;
      if (Object.keys(siblings).length === 0 || typeof target === 'boolean') return target === true ? this.convert(siblings, uri, direction, depth + 1) : target;
      // Side by side (not wrapped in allOf), so `unevaluatedProperties` beside a `$ref` sees what it evaluates.
      return { ...(this.convert(siblings, uri, direction, depth + 1) as Json), $ref: target.$ref };
    }
    // An empty `enum` allows no value (2020-12 permits it; Discord's contract has one). ajv refuses to compile
    // it, which would refuse every request of the operation, so it is the schema that accepts nothing.
    if (Array.isArray(node.enum) && node.enum.length === 0) return !v31 && node.nullable === true ? { type: 'null' } : false;
    const out: Json = {};
    const sub = (s: unknown): AnySchema => this.convert(s, uri, direction, depth + 1);
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (PLAIN.has(key)) out[key] = value;
      else if (ONE_SUBSCHEMA.includes(key)) out[key] = sub(value);
      else if (SUBSCHEMA_LIST.includes(key) && Array.isArray(value)) out[key] = value.map(sub);
      else if (SUBSCHEMA_MAP.includes(key) && value && typeof value === 'object') out[key] = mapValues(value as Json, sub);
      else if (key === 'items') {
        if (Array.isArray(value)) out[v31 ? 'prefixItems' : 'items'] = value.map(sub);
        else out.items = sub(value);
      } else if (key === 'type') this.copyType(value, out);
      else if (key === 'required' && Array.isArray(value)) out.required = this.requiredFor(node, value, uri, direction);
      else if (key === 'format' && typeof value === 'string') out.format = this.knownFormat(value);
      else if (key === 'dependencies' && value && typeof value === 'object') {
        out.dependencies = mapValues(value as Json, (d) => (Array.isArray(d) ? d : sub(d)));
      }
    }
    fixExclusiveBounds(node, out);
    this.applyDiscriminator(node, out, uri, direction, depth);
    if (!v31 && node.nullable === true) return allowNull(out);
    return out;
  }

  /** `{$ref}` to the target's private id, converting and adding the target the first time it is met. */
  private reference(ref: string, uri: string, direction: Direction): AnySchema {
    const target = this.contract.refs.resolveRef(ref, uri);
    const value = this.contract.refs.deref(target.value, target.uri);
    if (typeof value.value === 'boolean') return value.value;
    if (value.value === null || typeof value.value !== 'object') return {};
    const ids = this.ids[direction];
    let id = ids.get(value.value);
    if (id === undefined) {
      id = `urn:svc-facade:${direction}:${++this.counter}`;
      ids.set(value.value, id); // before converting, so a recursive schema refers back to itself
      try {
        this.ajv.addSchema(this.convert(value.value, value.uri, direction, 0), id);
      } catch (err) {
        ids.delete(value.value);
        throw err;
      }
    }
    return { $ref: id };
  }

  private copyType(value: unknown, out: Json): void {
    const types = (Array.isArray(value) ? value : [value]).filter((t): t is string => typeof t === 'string' && JSON_TYPES.has(t));
    if (types.length !== (Array.isArray(value) ? value.length : 1)) this.logOnce(`type ${JSON.stringify(value)} is not a JSON Schema type; ignored`);
    if (types.length > 0) out.type = Array.isArray(value) ? types : types[0];
  }

  /** `required` without the properties the direction does not carry (readOnly in requests, writeOnly in responses). */
  private requiredFor(node: Json, required: unknown[], uri: string, direction: Direction): string[] {
    const props = node.properties && typeof node.properties === 'object' ? (node.properties as Json) : {};
    const hidden = direction === 'request' ? 'readOnly' : 'writeOnly';
    return required.filter((name): name is string => {
      if (typeof name !== 'string') return false;
      if (!Object.prototype.hasOwnProperty.call(props, name)) return true;
      const prop = this.contract.refs.deref<Json | null>(props[name], uri).value;
      return !(prop && typeof prop === 'object' && prop[hidden] === true);
    });
  }

  /** Formats ajv-formats does not know (`int32` etc. it does) are accepted as annotations, with one warning. */
  private knownFormat(format: string): string {
    if (this.ajv.formats[format] === undefined) {
      this.logOnce(`unknown format "${format}" is not checked`);
      this.ajv.addFormat(format, true);
    }
    return format;
  }

  /**
   * A discriminated `oneOf`/`anyOf` becomes an if/then per value, so only the picked branch is checked. A
   * value without the property, or with one nothing maps, goes to `defaultMapping` when there is one; else
   * (a 3.2 optional property) an absent one leaves the plain `oneOf`/`anyOf` to decide; else it is an error.
   */
  private applyDiscriminator(node: Json, out: Json, uri: string, direction: Direction, depth: number): void {
    const dispatch = discriminatorDispatch(node, uri, this.contract.refs);
    if (dispatch === undefined) return;
    const prop = dispatch.propertyName;
    const byValue = [...dispatch.targets];
    const plain = out[dispatch.keyword];
    delete out[dispatch.keyword];
    const target = (t: { ref: string; uri: string }): AnySchema => this.convert({ $ref: t.ref }, t.uri, direction, depth + 1);
    const branches: Json[] = byValue.map(([value, t]) => ({
      if: { type: 'object', required: [prop], properties: { [prop]: { const: value } } },
      then: target(t),
    }));
    const mapped = { required: [prop], properties: { [prop]: { enum: byValue.map(([value]) => value) } } };
    let block: Json;
    if (dispatch.fallback !== undefined) block = { type: 'object', allOf: [...branches, { if: mapped, else: target(dispatch.fallback) }] };
    else if (dispatch.optional) block = { type: 'object', allOf: branches, if: { required: [prop] }, then: { properties: mapped.properties }, else: { [dispatch.keyword]: plain } };
    else block = { type: 'object', ...mapped, allOf: branches };
    out.allOf = [...((out.allOf as unknown[]) ?? []), block];
  }
}

/** The check of a schema that could not be compiled: nothing passes unchecked. */
const refuseUncompilable: SchemaCheck = () => {
  throw svcError(Errors.SCHEMA_UNCOMPILABLE);
};

function mapValues(obj: Json, fn: (v: unknown) => unknown): Json {
  const out: Json = {};
  for (const k of Object.keys(obj)) Object.defineProperty(out, k, { value: fn(obj[k]), enumerable: true, writable: true, configurable: true });
  return out;
}

/** Draft-4 style boolean `exclusiveMinimum: true` (OpenAPI 3.0) → the number form. */
function fixExclusiveBounds(node: Json, out: Json): void {
  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    if (typeof node[flag] !== 'boolean') continue;
    if (node[flag] === true && typeof node[bound] === 'number') {
      out[flag] = node[bound];
      delete out[bound];
    } else delete out[flag];
  }
}

/** OpenAPI 3.0 `nullable: true`: null is allowed besides what the schema allows. */
function allowNull(out: Json): Json {
  if (COMPOSED.some((k) => k in out)) return { anyOf: [{ type: 'null' }, out] };
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if ('const' in out) return { anyOf: [{ type: 'null' }, out] };
  return out;
}
