// A small, deterministic instance generator for the property-style tests: valid values from contract
// schemas (a conservative subset: schemas it does not understand are reported as unsupported and skipped),
// plus the places where one mutation must make the value invalid.
import type { RefResolver } from '../../lib/contract/refs.js';

type Json = Record<string, unknown>;

/** mulberry32: a tiny seeded PRNG, so every run generates the same requests. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export type Mutation =
  | { kind: 'type'; pointer: string; value: unknown }
  | { kind: 'required'; pointer: string; parent: string; property: string }
  | { kind: 'enum'; pointer: string; value: string };

export class Unsupported extends Error {}

const FORMATS: Record<string, string> = {
  'date-time': '2024-01-02T03:04:05Z',
  date: '2024-01-02',
  time: '03:04:05Z',
  email: 'someone@example.com',
  uri: 'https://example.com/x',
  url: 'https://example.com/x',
  'uri-reference': '/x',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  uuid: '3f1c2b9e-8a4d-4c1e-9f2a-1b2c3d4e5f60',
  byte: 'aGVsbG8=',
};
/** Formats ajv-formats checks that this generator does not produce: such schemas are skipped. */
const CHECKED_FORMATS = new Set(['duration', 'uri-template', 'regex', 'json-pointer', 'relative-json-pointer', 'json-pointer-uri-fragment', 'iso-time', 'iso-date-time']);
const UNSUPPORTED = ['not', 'oneOf', 'if', 'dependentSchemas', 'dependentRequired', 'patternProperties', 'propertyNames', 'contains', 'unevaluatedProperties', 'unevaluatedItems', 'minProperties', 'maxProperties', 'discriminator', 'prefixItems', 'multipleOf', '$dynamicRef'];
const MAX_DEPTH = 6;

export class Generator {
  /** Mutation sites found while generating the last value. */
  mutations: Mutation[] = [];

  constructor(
    private readonly refs: RefResolver,
    private readonly random: () => number,
  ) {}

  /** A valid value for the schema (throws Unsupported for schemas outside the subset). */
  value(schema: unknown, uri: string): unknown {
    this.mutations = [];
    return this.gen(schema, uri, '', 0, true);
  }

  private gen(schema: unknown, uri: string, pointer: string, depth: number, plain: boolean): unknown {
    if (depth > MAX_DEPTH + 4) throw new Unsupported('too deep');
    if (schema === true || schema === undefined) return 'x';
    const located = this.refs.deref<Json | null>(schema, uri);
    const node = located.value;
    if (node === null || typeof node !== 'object') throw new Unsupported('not a schema');
    uri = located.uri;
    for (const k of UNSUPPORTED) if (k in node) throw new Unsupported(k);
    if (typeof node.format === 'string' && CHECKED_FORMATS.has(node.format)) throw new Unsupported(node.format);
    if ('const' in node) return node.const;
    if (Array.isArray(node.enum)) {
      const options = node.enum.filter((v) => v !== null);
      if (options.length === 0) throw new Unsupported('empty enum');
      if (plain && options.every((v) => typeof v === 'string')) this.mutations.push({ kind: 'enum', pointer, value: 'zz-not-allowed' });
      return options[Math.floor(this.random() * options.length)];
    }
    if (Array.isArray(node.anyOf)) {
      if (Object.keys(node).some((k) => !['anyOf', 'description', 'title', 'nullable', 'example', 'x-nullable'].includes(k))) throw new Unsupported('anyOf with siblings');
      for (const branch of node.anyOf) {
        try {
          return this.gen(branch, uri, pointer, depth + 1, false);
        } catch (err) {
          if (!(err instanceof Unsupported)) throw err;
        }
      }
      throw new Unsupported('no anyOf branch');
    }
    if (Array.isArray(node.allOf)) return this.allOf(node, uri, pointer, depth);
    const type = typeOf(node);
    if (plain && type !== undefined && node.nullable !== true) this.mutations.push({ kind: 'type', pointer, value: wrongValueFor(type) });
    switch (type) {
      case 'string':
        return this.string(node);
      case 'integer':
      case 'number':
        return this.number(node, type);
      case 'boolean':
        return this.random() < 0.5;
      case 'null':
        return null;
      case 'array':
        return this.array(node, uri, pointer, depth, plain);
      case 'object':
        return this.object(node, uri, pointer, depth, plain);
      default:
        if (Object.keys(node).some((k) => ['items', 'minimum', 'maximum', 'minLength', 'maxLength', 'format'].includes(k))) throw new Unsupported('untyped constraints');
        return 'x';
    }
  }

  /** Objects generated for each part, merged (parts that close their properties are not supported). */
  private allOf(node: Json, uri: string, pointer: string, depth: number): Json {
    const { allOf, ...own } = node;
    const parts = [...(allOf as unknown[]), ...(['type', 'properties', 'required'].some((k) => k in own) ? [own] : [])];
    const merged: Json = {};
    for (const part of parts) {
      if (this.refs.deref<Json | null>(part, uri).value?.additionalProperties === false) throw new Unsupported('closed allOf part');
      const value = this.gen(part, uri, pointer, depth + 1, false);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Unsupported('allOf of non-objects');
      Object.assign(merged, value);
    }
    return merged;
  }

  private string(node: Json): string {
    const format = typeof node.format === 'string' ? FORMATS[node.format] : undefined;
    const min = typeof node.minLength === 'number' ? node.minLength : 0;
    const max = typeof node.maxLength === 'number' ? node.maxLength : Infinity;
    if (node.pattern !== undefined) return this.patterned(node, format, min, max);
    if (format !== undefined) {
      if (format.length < min || format.length > max) throw new Unsupported('format length');
      return format;
    }
    const length = Math.min(max, Math.max(min, 3 + Math.floor(this.random() * 5)));
    return 'abcdefghijklmnopqrstuvwxyz'.repeat(Math.ceil((length + 1) / 26)).slice(0, length);
  }

  /** A pattern is not generated from: the schema's own samples, else a few plain strings, the first that fits. */
  private patterned(node: Json, format: string | undefined, min: number, max: number): string {
    let pattern: RegExp;
    try {
      pattern = new RegExp(String(node.pattern), 'u');
    } catch {
      throw new Unsupported('pattern');
    }
    const candidates = [node.example, node.default, format, '1', '123456789012345678', 'abc', 'A', 'a1', 'x'];
    const fit = candidates.find((c): c is string => typeof c === 'string' && c.length >= min && c.length <= max && pattern.test(c));
    if (fit === undefined) throw new Unsupported('pattern');
    return fit;
  }

  private number(node: Json, type: 'integer' | 'number'): number {
    let low = typeof node.minimum === 'number' ? node.minimum : -1000;
    let high = typeof node.maximum === 'number' ? node.maximum : 1000;
    if (node.exclusiveMinimum === true) low += 1;
    if (typeof node.exclusiveMinimum === 'number') low = node.exclusiveMinimum + 1;
    if (node.exclusiveMaximum === true) high -= 1;
    if (typeof node.exclusiveMaximum === 'number') high = node.exclusiveMaximum - 1;
    if (node.format === 'int32') [low, high] = [Math.max(low, -(2 ** 31)), Math.min(high, 2 ** 31 - 1)];
    low = Math.ceil(low);
    high = Math.floor(high);
    if (low > high) throw new Unsupported('empty range');
    return low + Math.floor(this.random() * Math.min(high - low + 1, 1000));
  }

  private array(node: Json, uri: string, pointer: string, depth: number, plain: boolean): unknown[] {
    const min = typeof node.minItems === 'number' ? node.minItems : 0;
    const max = typeof node.maxItems === 'number' ? node.maxItems : min + 2;
    const count = depth >= MAX_DEPTH ? min : Math.min(max, min + Math.floor(this.random() * 3));
    const items = Array.from({ length: count }, (_, i) => this.gen(node.items, uri, `${pointer}/${i}`, depth + 1, plain));
    if (node.uniqueItems === true && new Set(items.map((i) => JSON.stringify(i))).size !== items.length) throw new Unsupported('unique items');
    return items;
  }

  private object(node: Json, uri: string, pointer: string, depth: number, plain: boolean): Json {
    const props = (node.properties ?? {}) as Json;
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    const out: Json = {};
    for (const [name, schema] of Object.entries(props)) {
      const readOnly = this.refs.deref<Json | null>(schema, uri).value?.readOnly === true;
      const needed = required.has(name) && !readOnly;
      if (!needed && (readOnly || depth >= MAX_DEPTH || this.random() < 0.4)) continue;
      const at = `${pointer}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      try {
        out[name] = this.gen(schema, uri, at, depth + 1, plain);
      } catch (err) {
        if (needed || !(err instanceof Unsupported)) throw err;
        this.mutations = this.mutations.filter((m) => !m.pointer.startsWith(at));
        continue;
      }
      if (needed && plain) this.mutations.push({ kind: 'required', pointer: at, parent: pointer, property: name });
    }
    for (const name of required) if (!(name in props)) throw new Unsupported('required without schema');
    return out;
  }
}

function typeOf(node: Json): string | undefined {
  if (typeof node.type === 'string') return node.type;
  if (Array.isArray(node.type)) return node.type.find((t) => t !== 'null') as string | undefined;
  if (node.properties !== undefined) return 'object';
  if (node.items !== undefined) return 'array';
  return undefined;
}

function wrongValueFor(type: string): unknown {
  switch (type) {
    case 'string':
      return 12345;
    case 'integer':
    case 'number':
      return 'not-a-number';
    case 'boolean':
      return 'not-a-boolean';
    case 'array':
      return { not: 'an array' };
    case 'object':
      return ['not an object'];
    default:
      return 42;
  }
}

/** Applies one mutation to a deep copy of the value. */
export function mutate(value: unknown, mutation: Mutation): unknown {
  const copy = structuredClone(value);
  const segments = (mutation.kind === 'required' ? mutation.parent : mutation.pointer).split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (mutation.kind !== 'required' && segments.length === 0) return mutation.value;
  let node = copy as Json;
  const last = mutation.kind === 'required' ? undefined : segments.pop();
  for (const s of segments) node = node[s] as Json;
  if (mutation.kind === 'required') delete node[mutation.property];
  else node[last!] = mutation.value;
  return copy;
}
