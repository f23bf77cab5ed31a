// Values that arrive as strings (parameters, form fields, text bodies) typed by their schema before
// validation: "12" becomes 12 for an integer, "true" true for a boolean. The structure (array, object)
// comes from the parameter style; this file only says what shape a schema expects and how scalars coerce.
import type { Located, RefResolver } from '../contract/refs.js';

export interface ValueShape {
  readonly kind: 'primitive' | 'array' | 'object';
  /** The string typed as the schema's types allow; left a string when it does not fit (ajv reports it). */
  scalar(text: string): unknown;
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
  item: () => FREE,
  property: () => FREE,
  propertyNames: [],
  openEnded: true,
};

function buildShape(schema: unknown, uri: string, refs: RefResolver): ValueShape {
  const facts: Facts = { types: new Set(), nullable: false, items: [], properties: new Map(), additional: [], closed: false, open: false };
  collect(schema, uri, refs, facts, 0);
  const { types } = facts;
  const kind = types.has('object') || (types.size === 0 && (facts.properties.size > 0 || facts.additional.length > 0))
    ? 'object'
    : types.has('array') || (types.size === 0 && facts.items.length > 0) ? 'array' : 'primitive';
  const numeric = types.has('integer') || types.has('number');
  const boolean = types.has('boolean');
  const nullable = facts.nullable || types.has('null');
  // A string schema accepts the text as it is; so does a schema that says nothing about types.
  const keepText = types.has('string') || types.size === 0;
  const scalar = (text: string): unknown => {
    if (keepText) return text;
    if (numeric && NUMBER.test(text)) return Number(text);
    if (boolean && (text === 'true' || text === 'false')) return text === 'true';
    if (nullable && (text === '' || text === 'null')) return null;
    return text;
  };
  const first = (list: Located[]): ValueShape => (list.length > 0 ? shapeOf(list[0]!.value, list[0]!.uri, refs) : FREE);
  let itemShape: ValueShape | undefined;
  const propertyShapes = new Map<string, ValueShape>();
  return {
    kind,
    scalar,
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

/** Gathers types, items and properties from a schema and its allOf/oneOf/anyOf branches. */
function collect(schema: unknown, uri: string, refs: RefResolver, facts: Facts, depth: number): void {
  if (depth > MAX_DEPTH) return;
  let located;
  try {
    located = refs.deref<Record<string, unknown> | null>(schema, uri);
  } catch {
    return; // an unresolvable ref: leave the text as it is, the schema check reports what it can
  }
  const node = located.value;
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return;
  if (typeof node.type === 'string') facts.types.add(node.type);
  else if (Array.isArray(node.type)) for (const t of node.type) if (typeof t === 'string') facts.types.add(t);
  if (node.nullable === true) facts.nullable = true;
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
    if (Array.isArray(list)) for (const branch of list) collect(branch, located.uri, refs, facts, depth + 1);
  }
}
