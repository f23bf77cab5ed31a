// Values that arrive as strings (parameters, form fields, text bodies) typed by their schema before
// validation: "12" becomes 12 for an integer, "true" true for a boolean. The structure (array, object)
// comes from the parameter style; this file only says what shape a schema expects and how scalars coerce.
import type { Located, RefResolver } from '../contract/refs.js';
import { setOwn } from '../util/objects.js';

export interface ValueShape {
  readonly kind: 'primitive' | 'array' | 'object';
  /** The string typed as the schema's types allow; left a string when it does not fit (ajv reports it). */
  scalar(text: string): unknown;
  /** The text typed as a scalar this schema accepts (checking a string's enum, const and length), else MISFIT. */
  fit(text: string): unknown;
  /** Shape of the items (arrays). */
  item(): ValueShape;
  /** Shape of one property (objects): the declared one, else `additionalProperties`, else free. */
  property(name: string): ValueShape;
  /** Declared property names (objects). */
  readonly propertyNames: readonly string[];
  /**
   * True when undeclared properties belong to it: none are declared (and they are not forbidden), or
   * `additionalProperties` says so explicitly. Decides what an exploded form object takes from a query.
   */
  readonly openEnded: boolean;
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const MAX_DEPTH = 16;

interface Facts {
  types: Set<string>;
  /** Types the schema itself (or its allOf) requires; those of anyOf/oneOf branches are in `types` only. */
  ownTypes: Set<string>;
  /** The anyOf/oneOf branches of the schema (and of its allOf), in order. */
  branches: Located[];
  /** What the schema itself allows of a string: enum, const and length (for choosing a branch). */
  text: { enum?: unknown[]; const?: unknown; minLength?: number; maxLength?: number };
  nullable: boolean;
  items: Located[];
  properties: Map<string, Located[]>;
  additional: Located[];
  closed: boolean;
  open: boolean;
}

const cache = new WeakMap<object, ValueShape>();

/** The shape a schema expects; cached per schema object, built lazily so recursive schemas are fine. */
export function shapeOf(schema: unknown, uri: string, refs: RefResolver): ValueShape {
  const key = schema !== null && typeof schema === 'object' ? schema : undefined;
  const hit = key && cache.get(key);
  if (hit) return hit;
  const shape = buildShape(schema, uri, refs);
  if (key) cache.set(key, shape);
  return shape;
}

export const FREE: ValueShape = {
  kind: 'primitive',
  scalar: (text) => text,
  fit: (text) => text,
  item: () => FREE,
  property: () => FREE,
  propertyNames: [],
  openEnded: true,
};

function buildShape(schema: unknown, uri: string, refs: RefResolver): ValueShape {
  const facts: Facts = { types: new Set(), ownTypes: new Set(), branches: [], text: {}, nullable: false, items: [], properties: new Map(), additional: [], closed: false, open: false };
  collect(schema, uri, refs, facts, 0, true);
  const { types } = facts;
  const kind = types.has('object') || (types.size === 0 && (facts.properties.size > 0 || facts.additional.length > 0))
    ? 'object'
    : types.has('array') || (types.size === 0 && facts.items.length > 0) ? 'array' : 'primitive';
  // Without types of its own, a schema made of anyOf/oneOf branches types the text as the first branch that
  // takes it does (ajv's coerceTypes tries them in order): `anyOf: [{type: number}, {type: string, enum: ['']}]`
  // makes "12.5" the number and leaves "" the string.
  const branches = facts.ownTypes.size === 0 && facts.branches.length > 0 ? facts.branches : undefined;
  // As a branch it must also meet its enum, const and length (else the next branch is tried); on its own
  // the text is typed as ajv would (a string schema keeps it, the check reports the rest).
  const fit = branches !== undefined ? branchFit(branches, refs) : typeFit(facts.ownTypes, facts.nullable, facts.text);
  const typed = branches !== undefined ? fit : typeFit(facts.ownTypes, facts.nullable, {});
  const scalar = (text: string): unknown => {
    const value = typed(text);
    return value === MISFIT ? text : value;
  };
  const first = (list: Located[]): ValueShape => (list.length > 0 ? shapeOf(list[0]!.value, list[0]!.uri, refs) : FREE);
  let itemShape: ValueShape | undefined;
  const propertyShapes = new Map<string, ValueShape>();
  return {
    kind,
    scalar,
    fit,
    item: () => (itemShape ??= first(facts.items)),
    property(name) {
      let s = propertyShapes.get(name);
      if (s === undefined) {
        s = first(facts.properties.get(name) ?? facts.additional);
        propertyShapes.set(name, s);
      }
      return s;
    },
    propertyNames: [...facts.properties.keys()],
    openEnded: facts.properties.size === 0 ? !facts.closed : facts.open,
  };
}

/**
 * Gathers types, items and properties from a schema and its allOf/oneOf/anyOf branches; `own` while the
 * walk is still in the schema itself or its allOf.
 */
function collect(schema: unknown, uri: string, refs: RefResolver, facts: Facts, depth: number, own: boolean): void {
  if (depth > MAX_DEPTH) return;
  let located;
  try {
    located = refs.deref<Record<string, unknown> | null>(schema, uri);
  } catch {
    return; // an unresolvable ref: leave the text as it is, the schema check reports what it can
  }
  const node = located.value;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  const types = typeof node.type === 'string' ? [node.type] : Array.isArray(node.type) ? node.type.filter((t): t is string => typeof t === 'string') : [];
  for (const t of types) {
    facts.types.add(t);
    if (own) facts.ownTypes.add(t);
  }
  if (node.nullable === true) facts.nullable = true;
  if (depth === 0) {
    if (Array.isArray(node.enum)) facts.text.enum = node.enum;
    if (node.const !== undefined) facts.text.const = node.const;
    if (typeof node.minLength === 'number') facts.text.minLength = node.minLength;
    if (typeof node.maxLength === 'number') facts.text.maxLength = node.maxLength;
  }
  const at = (value: unknown): Located => ({ value, uri: located.uri });
  if (node.items !== undefined && !Array.isArray(node.items)) facts.items.push(at(node.items));
  if (node.properties && typeof node.properties === 'object') {
    for (const [name, prop] of Object.entries(node.properties as Record<string, unknown>)) {
      const list = facts.properties.get(name) ?? [];
      list.push(at(prop));
      facts.properties.set(name, list);
    }
  }
  if (node.additionalProperties === false) facts.closed = true;
  else if (node.additionalProperties === true) facts.open = true;
  else if (node.additionalProperties && typeof node.additionalProperties === 'object') {
    facts.open = true;
    facts.additional.push(at(node.additionalProperties));
  }
  for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    for (const branch of list) {
      if (own && key !== 'allOf') facts.branches.push(at(branch));
      collect(branch, located.uri, refs, facts, depth + 1, own && key === 'allOf');
    }
  }
}

/** What `fit` answers when the text is no scalar the schema accepts. */
const MISFIT: unique symbol = Symbol('misfit');

/**
 * The text as the types allow: ajv's coerceTypes (numbers, booleans, null) with canonical numbers only; the
 * text itself when a string is allowed (within its enum, const and length) or no type is said.
 */
function typeFit(types: ReadonlySet<string>, nullable: boolean, text: Facts['text']): (value: string) => unknown {
  const numeric = types.has('number');
  const integer = types.has('integer');
  const boolean = types.has('boolean');
  const nullOk = nullable || types.has('null');
  const string = types.has('string') || types.size === 0;
  return (value) => {
    if (string && fitsText(value, text)) return value;
    if ((numeric || integer) && NUMBER.test(value)) {
      const n = Number(value);
      if (numeric || Number.isInteger(n)) return n;
    }
    if (boolean && (value === 'true' || value === 'false')) return value === 'true';
    if (nullOk && (value === '' || value === 'null')) return null;
    return MISFIT;
  };
}

function fitsText(value: string, text: Facts['text']): boolean {
  if (text.enum !== undefined && !text.enum.includes(value)) return false;
  if (text.const !== undefined && text.const !== value) return false;
  const length = text.minLength !== undefined || text.maxLength !== undefined ? [...value].length : 0;
  return (text.minLength === undefined || length >= text.minLength) && (text.maxLength === undefined || length <= text.maxLength);
}

/** The first branch that takes the text as a scalar decides its type. */
function branchFit(branches: readonly Located[], refs: RefResolver): (value: string) => unknown {
  let shapes: ValueShape[] | undefined;
  return (value) => {
    // A schema whose branches lead back to itself (`A: {anyOf: [{$ref: A}, ...]}`) stops here.
    if (branchDepth > MAX_DEPTH) return MISFIT;
    shapes ??= branches.map((b) => shapeOf(b.value, b.uri, refs));
    branchDepth++;
    try {
      for (const shape of shapes) {
        const typed = shape.fit(value);
        if (typed !== MISFIT) return typed;
      }
      return MISFIT;
    } finally {
      branchDepth--;
    }
  };
}

let branchDepth = 0;

/**
 * A nested value (form fields, deepObject parameters: lib/codec/bracket-keys.ts) typed by its schema: strings become numbers and booleans where the schema says so;
 * one plain value where an array is expected is that array's one item (`expand=a`), unless a scalar branch
 * takes it (`tax_rates=` for `anyOf: [{type: array}, {type: string, enum: ['']}]`).
 */
export function typedNested(value: unknown, shape: ValueShape): unknown {
  if (typeof value === 'string') {
    if (shape.kind !== 'array') return shape.scalar(value);
    const scalar = shape.fit(value);
    return scalar !== MISFIT ? scalar : [shape.item().scalar(value)];
  }
  if (Array.isArray(value)) {
    const item = shape.kind === 'array' ? shape.item() : shape;
    return value.map((v) => typedNested(v, item));
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) setOwn(out, k, typedNested(v, shape.property(k)));
  return out;
}
