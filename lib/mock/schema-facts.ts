// What a schema requires of a value, flattened for synthesis: `$ref` chains followed (3.1 `$ref` siblings
// applied alongside), `allOf` merged into one set of facts (types intersected, bounds tightened, properties
// and `required` united), 3.0 `nullable` and 3.1 type arrays read as "null allowed". Subschemas
// (properties, items, branches) stay references (`Located`) so recursive schemas flatten in bounded time.
import type { Contract, OpenApiVersion } from '../contract/load.js';
import { isRef, type Located } from '../contract/refs.js';

type Json = Record<string, unknown>;

export const JSON_TYPES = ['object', 'array', 'string', 'integer', 'number', 'boolean', 'null'] as const;
export type JsonType = (typeof JSON_TYPES)[number];

/** A `oneOf`/`anyOf` list still to satisfy, with the schema that declared it (for its discriminator). */
export interface Choice {
  keyword: 'oneOf' | 'anyOf';
  branches: Located[];
  owner: Located<Json>;
}

export interface Facts {
  /** Allowed types in preference order; undefined = not constrained. */
  types: JsonType[] | undefined;
  /** False when some part's `type`/`nullable` excludes null. */
  nullable: boolean;
  /** No value satisfies them (a `false` schema, disjoint types, an empty enum). */
  impossible: boolean;
  constValue?: { value: unknown };
  enumValues?: unknown[];
  /** `example`, first of `examples`, `default`, in that order over all parts. */
  samples: unknown[];
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  patterns: string[];
  minItems?: number;
  maxItems?: number;
  uniqueItems: boolean;
  items: Located[];
  prefixItems: Located[];
  contains: Located[];
  properties: Map<string, Located[]>;
  required: Set<string>;
  /** `additionalProperties` schemas; `false` when some part forbids extra properties. */
  additional: Located[] | false;
  minProperties?: number;
  maxProperties?: number;
  patternProperties: [string, Located][];
  choices: Choice[];
  readOnly: boolean;
  writeOnly: boolean;
  /** A discriminator declared without `oneOf`/`anyOf` (a base schema its subtypes include via `allOf`). */
  discriminator?: { propertyName: string; mapping: Json | undefined; uri: string };
  /** Keywords hint at a type although none is declared. */
  hinted?: JsonType;
  /** The schemas these facts were read from (all apply): what a value made from them is checked against. */
  sources: Located[];
}

export function emptyFacts(): Facts {
  return {
    types: undefined,
    nullable: true,
    impossible: false,
    samples: [],
    patterns: [],
    uniqueItems: false,
    items: [],
    prefixItems: [],
    contains: [],
    properties: new Map(),
    required: new Set(),
    additional: [],
    patternProperties: [],
    choices: [],
    readOnly: false,
    writeOnly: false,
    sources: [],
  };
}

const MAX_ALLOF_DEPTH = 32;

/** The facts of one or more schemas that all apply (an `allOf`, or a property declared by several parts). */
export function factsOf(parts: readonly Located[], contract: Contract): Facts {
  const facts = emptyFacts();
  const visiting = new Set<unknown>();
  for (const part of parts) addSchema(facts, part.value, part.uri, contract, visiting, 0);
  facts.sources = [...parts];
  return facts;
}

/** `into` narrowed by `more` (both apply). */
export function mergeFacts(into: Facts, more: Facts): Facts {
  const out: Facts = {
    ...into,
    samples: [...into.samples, ...more.samples],
    patterns: [...into.patterns, ...more.patterns],
    items: [...into.items, ...more.items],
    prefixItems: into.prefixItems.length > 0 ? into.prefixItems : more.prefixItems,
    contains: [...into.contains, ...more.contains],
    properties: new Map(into.properties),
    required: new Set([...into.required, ...more.required]),
    additional: into.additional === false || more.additional === false ? false : [...into.additional, ...more.additional],
    patternProperties: [...into.patternProperties, ...more.patternProperties],
    choices: [...into.choices, ...more.choices],
    sources: [...into.sources, ...more.sources],
  };
  for (const [name, located] of more.properties) out.properties.set(name, [...(out.properties.get(name) ?? []), ...located]);
  out.types = intersectTypes(into.types, more.types);
  out.nullable = into.nullable && more.nullable;
  out.impossible = into.impossible || more.impossible || (out.types !== undefined && out.types.length === 0);
  out.readOnly = into.readOnly || more.readOnly;
  out.writeOnly = into.writeOnly || more.writeOnly;
  out.constValue ??= more.constValue;
  out.enumValues = intersectEnums(into.enumValues, more.enumValues);
  // A `const` is a one-value enum: both must agree (`type: integer, enum: [0, 2]` and a branch `const: 1` do not).
  if (out.constValue !== undefined) out.enumValues = intersectEnums(out.enumValues, [out.constValue.value]);
  if (more.constValue !== undefined && into.constValue !== undefined && JSON.stringify(more.constValue.value) !== JSON.stringify(into.constValue.value)) out.impossible = true;
  if (out.enumValues !== undefined && out.enumValues.length === 0) out.impossible = true;
  out.format ??= more.format;
  out.discriminator ??= more.discriminator;
  out.hinted ??= more.hinted;
  out.minimum = tightest(into.minimum, more.minimum, Math.max);
  out.exclusiveMinimum = tightest(into.exclusiveMinimum, more.exclusiveMinimum, Math.max);
  out.maximum = tightest(into.maximum, more.maximum, Math.min);
  out.exclusiveMaximum = tightest(into.exclusiveMaximum, more.exclusiveMaximum, Math.min);
  out.multipleOf = into.multipleOf ?? more.multipleOf;
  out.minLength = tightest(into.minLength, more.minLength, Math.max);
  out.maxLength = tightest(into.maxLength, more.maxLength, Math.min);
  out.minItems = tightest(into.minItems, more.minItems, Math.max);
  out.maxItems = tightest(into.maxItems, more.maxItems, Math.min);
  out.minProperties = tightest(into.minProperties, more.minProperties, Math.max);
  out.maxProperties = tightest(into.maxProperties, more.maxProperties, Math.min);
  out.uniqueItems = into.uniqueItems || more.uniqueItems;
  return out;
}

function addSchema(facts: Facts, schema: unknown, uri: string, contract: Contract, visiting: Set<unknown>, depth: number): void {
  if (depth > MAX_ALLOF_DEPTH) return;
  if (schema === false) {
    facts.impossible = true;
    return;
  }
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return;
  const node = schema as Json;
  if (isRef(node)) {
    const v31 = contract.version !== '3.0';
    const target = contract.refs.resolveRef(node.$ref, uri);
    // 3.1 (2020-12): keywords beside `$ref` apply too; 3.0: they are ignored.
    if (v31 && Object.keys(node).length > 1) {
      const { $ref: _ref, ...siblings } = node;
      addSchema(facts, siblings, uri, contract, visiting, depth + 1);
    }
    addSchema(facts, target.value, target.uri, contract, visiting, depth + 1);
    return;
  }
  if (visiting.has(node)) return; // an allOf cycle adds nothing new
  visiting.add(node);
  const own = ownFacts(node, uri, contract.version);
  Object.assign(facts, mergeFacts(facts, own));
  if (Array.isArray(node.allOf)) for (const part of node.allOf) addSchema(facts, part, uri, contract, visiting, depth + 1);
}

/** The facts one schema object states itself (its `allOf` and `$ref` are the caller's). */
function ownFacts(node: Json, uri: string, version: OpenApiVersion): Facts {
  const f = emptyFacts();
  const at = (value: unknown): Located => ({ value, uri });
  if (node.type !== undefined) {
    const declared = (Array.isArray(node.type) ? node.type : [node.type]).filter((t): t is JsonType => (JSON_TYPES as readonly string[]).includes(t as string));
    f.nullable = declared.includes('null') || (version === '3.0' && node.nullable === true);
    f.types = declared.filter((t) => t !== 'null');
    if (f.nullable) f.types.push('null');
  }
  if (Object.hasOwn(node, 'const')) f.constValue = { value: node.const };
  if (Array.isArray(node.enum)) f.enumValues = node.enum;
  if (node.example !== undefined) f.samples.push(node.example);
  if (Array.isArray(node.examples) && node.examples.length > 0) f.samples.push(node.examples[0]);
  if (node.default !== undefined) f.samples.push(node.default);
  if (typeof node.format === 'string') f.format = node.format;
  for (const key of ['minimum', 'maximum', 'multipleOf', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'] as const) {
    if (typeof node[key] === 'number') f[key] = node[key] as number;
  }
  // 3.0 spells exclusive bounds as booleans beside minimum/maximum; 2020-12 as numbers.
  for (const [flag, bound] of [['exclusiveMinimum', 'minimum'], ['exclusiveMaximum', 'maximum']] as const) {
    const value = node[flag];
    if (typeof value === 'number') f[flag] = value;
    else if (value === true && typeof node[bound] === 'number') {
      f[flag] = node[bound] as number;
      delete f[bound];
    }
  }
  if (typeof node.pattern === 'string') f.patterns.push(node.pattern);
  if (node.uniqueItems === true) f.uniqueItems = true;
  if (Array.isArray(node.prefixItems)) f.prefixItems = node.prefixItems.map(at);
  if (Array.isArray(node.items)) f.prefixItems = node.items.map(at);
  else if (node.items !== undefined) f.items.push(at(node.items));
  if (node.contains !== undefined) f.contains.push(at(node.contains));
  if (node.properties && typeof node.properties === 'object') {
    for (const [name, prop] of Object.entries(node.properties as Json)) f.properties.set(name, [at(prop)]);
  }
  if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === 'string') f.required.add(name);
  if (node.additionalProperties === false) f.additional = false;
  else if (node.additionalProperties !== undefined && node.additionalProperties !== true) f.additional = [at(node.additionalProperties)];
  if (node.patternProperties && typeof node.patternProperties === 'object') {
    for (const [pattern, prop] of Object.entries(node.patternProperties as Json)) f.patternProperties.push([pattern, at(prop)]);
  }
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    if (Array.isArray(node[keyword]) && (node[keyword] as unknown[]).length > 0) f.choices.push({ keyword, branches: (node[keyword] as unknown[]).map(at), owner: { value: node, uri } });
  }
  const disc = node.discriminator as Json | undefined;
  if (disc && typeof disc.propertyName === 'string' && f.choices.length === 0) {
    f.discriminator = { propertyName: disc.propertyName, mapping: disc.mapping as Json | undefined, uri };
  }
  if (node.readOnly === true) f.readOnly = true;
  if (node.writeOnly === true) f.writeOnly = true;
  f.hinted = hintedType(node);
  return f;
}

function hintedType(node: Json): JsonType | undefined {
  if (node.properties !== undefined || node.required !== undefined || node.additionalProperties !== undefined) return 'object';
  if (node.items !== undefined || node.prefixItems !== undefined) return 'array';
  if (node.pattern !== undefined || node.minLength !== undefined || node.maxLength !== undefined || node.format !== undefined) return 'string';
  if (node.minimum !== undefined || node.maximum !== undefined || node.multipleOf !== undefined) return 'number';
  return undefined;
}

function intersectTypes(a: JsonType[] | undefined, b: JsonType[] | undefined): JsonType[] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const out: JsonType[] = [];
  for (const t of a) {
    if (b.includes(t)) out.push(t);
    else if (t === 'integer' && b.includes('number')) out.push('integer');
    else if (t === 'number' && b.includes('integer')) out.push('integer');
  }
  return [...new Set(out)];
}

function intersectEnums(a: unknown[] | undefined, b: unknown[] | undefined): unknown[] | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  const keys = new Set(b.map((v) => JSON.stringify(v)));
  return a.filter((v) => keys.has(JSON.stringify(v)));
}

function tightest(a: number | undefined, b: number | undefined, pick: (x: number, y: number) => number): number | undefined {
  return a === undefined ? b : b === undefined ? a : pick(a, b);
}
