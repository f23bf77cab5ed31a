// Parsed bodies → instances of the classes their schemas name (docs/binding.md). A binder is compiled once per
// schema object (lazily, on the first body that needs it) and cached, so circular schemas cost nothing
// until a body actually nests. Keys that could reach a prototype are never copied (docs/security.md#hostile-input).
import { Errors, svcError } from '../util/errors.js';
import { FORBIDDEN_KEYS } from '../util/objects.js';
import type { BindingClass, ClassRegistry } from './classes.js';
import type { SchemaDispatch } from '../schema/deref.js';
import { classNamed, followRefs } from './names.js';
import type { Deref, Schema } from '../codec/xml.js';

/** Turns a parsed value into its bound form; `depth` counts the nesting levels already entered. */
export type Binder = (value: unknown, depth: number) => unknown;

/** Bodies nesting deeper than this through schemas that bind are refused (the binders recurse). */
export const MAX_BINDING_DEPTH = 256;


const MAX_COMPOSE_DEPTH = 32;

export class Instantiator {
  private readonly binders = new WeakMap<Schema, Binder | null>();

  constructor(
    private readonly classes: ClassRegistry,
    private readonly deref: Deref,
    /** A schema's discriminator dispatch: a discriminated body binds as the branch its property picks. */
    private readonly dispatchOf: (schema: Schema) => SchemaDispatch | undefined = () => undefined,
  ) {}

  /** The binder for a schema, or null when values of that schema stay as parsed. */
  binderFor(schema: Schema): Binder | null {
    const cached = this.binders.get(schema);
    if (cached !== undefined) return cached;
    // A schema that reaches itself gets this forwarder while it compiles.
    let compiled: Binder | null = null;
    this.binders.set(schema, (value, depth) => (compiled === null ? value : compiled(value, depth)));
    try {
      compiled = this.compile(schema);
    } catch (err) {
      this.binders.delete(schema); // e.g. an unresolvable $ref: fail again next time rather than bind nothing
      throw err;
    }
    this.binders.set(schema, compiled);
    return compiled;
  }

  private compile(raw: Schema): Binder | null {
    const own = this.compileOwn(raw);
    const dispatch = this.dispatchOf(followRefs(raw, this.deref).schema);
    return dispatch === undefined ? own : discriminatedBinder(dispatch, own, (schema) => this.binderFor(schema));
  }

  /** The binder for the schema itself: its class, else its properties' binders (no `oneOf`/`anyOf` dispatch). */
  private compileOwn(raw: Schema): Binder | null {
    const { schema, names } = followRefs(raw, this.deref);
    const parts = { properties: new Map<string, Schema>(), items: undefined as Schema | undefined, extra: undefined as Schema | undefined };
    this.collect(schema, parts, 0);
    const isArray = schema.type === 'array' || (parts.items !== undefined && parts.properties.size === 0);
    if (isArray) {
      const item = parts.items === undefined ? null : this.binderFor(parts.items);
      return item === null ? null : arrayBinder(item);
    }
    const cls = classNamed(names, this.classes);
    if (cls !== undefined && typeof cls.fromJSON === 'function') return fromJsonBinder(cls);
    const properties = new Map<string, Binder>();
    for (const [key, propertySchema] of parts.properties) {
      const binder = this.binderFor(propertySchema);
      if (binder !== null) properties.set(key, binder);
    }
    const extra = parts.extra === undefined ? null : this.binderFor(parts.extra);
    if (cls !== undefined) return instanceBinder(cls, properties, new Set(parts.properties.keys()), extra);
    if (properties.size > 0 || extra !== null) return inPlaceBinder(properties, new Set(parts.properties.keys()), extra);
    return null;
  }

  /** Properties from the schema and its `allOf` branches; `items`; `additionalProperties`. */
  private collect(schema: Schema, parts: { properties: Map<string, Schema>; items: Schema | undefined; extra: Schema | undefined }, depth: number): void {
    if (depth > MAX_COMPOSE_DEPTH) return;
    if (isRecord(schema.properties)) {
      for (const [key, value] of Object.entries(schema.properties)) {
        if (isRecord(value) && !FORBIDDEN_KEYS.has(key)) parts.properties.set(key, value);
      }
    }
    if (isRecord(schema.items)) parts.items ??= schema.items;
    if (isRecord(schema.additionalProperties)) parts.extra ??= schema.additionalProperties;
    if (Array.isArray(schema.allOf)) {
      for (const branch of schema.allOf) if (isRecord(branch)) this.collect(followRefs(branch, this.deref).schema, parts, depth + 1);
    }
  }
}

function tooDeep(depth: number): void {
  if (depth > MAX_BINDING_DEPTH) throw svcError(Errors.BODY_TOO_DEEP, MAX_BINDING_DEPTH);
}

/**
 * Binds by the branch the discriminator picks (`defaultMapping`'s when the property is absent or maps to
 * nothing); the schema's own binder when no branch is picked or the picked one binds nothing.
 */
function discriminatedBinder(dispatch: SchemaDispatch, own: Binder | null, binderFor: (schema: Schema) => Binder | null): Binder | null {
  const { propertyName, targets, fallback } = dispatch;
  return (value, depth) => {
    if (isRecord(value)) {
      const key = value[propertyName];
      const picked = (typeof key === 'string' ? targets.get(key) : undefined) ?? fallback;
      const binder = picked === undefined ? null : binderFor(picked);
      if (binder !== null) return binder(value, depth);
    }
    return own === null ? value : own(value, depth);
  };
}

function arrayBinder(item: Binder): Binder {
  return (value, depth) => {
    if (!Array.isArray(value)) return value;
    tooDeep(depth);
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = item(value[i], depth + 1);
    return out;
  };
}

function fromJsonBinder(cls: BindingClass): Binder {
  const fromJSON = cls.fromJSON!.bind(cls);
  return (value) => (isRecord(value) ? fromJSON(value) : value);
}

/** `new Class()`, then every own key copied (through setters, if the class has them), nested values bound. */
function instanceBinder(cls: BindingClass, properties: ReadonlyMap<string, Binder>, declared: ReadonlySet<string>, extra: Binder | null): Binder {
  return (value, depth) => {
    if (!isRecord(value)) return value;
    tooDeep(depth);
    const instance = new cls();
    for (const key of Object.keys(value)) {
      if (FORBIDDEN_KEYS.has(key)) continue;
      const binder = properties.get(key) ?? (declared.has(key) ? null : extra);
      // Reflect.set: a getter-only accessor on the class refuses the key instead of throwing.
      Reflect.set(instance, key, binder === null ? value[key] : binder(value[key], depth + 1));
    }
    return instance;
  };
}

/** No class for this object, but some of its properties bind: they are replaced in place. */
function inPlaceBinder(properties: ReadonlyMap<string, Binder>, declared: ReadonlySet<string>, extra: Binder | null): Binder {
  return (value, depth) => {
    if (!isRecord(value)) return value;
    tooDeep(depth);
    for (const [key, binder] of properties) if (Object.hasOwn(value, key)) value[key] = binder(value[key], depth + 1);
    if (extra !== null) {
      for (const key of Object.keys(value)) if (!declared.has(key) && !FORBIDDEN_KEYS.has(key)) value[key] = extra(value[key], depth + 1);
    }
    return value;
  };
}


function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
