// JSON Schema (OpenAPI 3.0 and 3.1 dialects) printed as TypeScript types, through our own $ref resolver.
// Every schema a `$ref` reaches becomes one named type alias, printed once, so recursive schemas are fine
// and a component reads as its name in the editor.
import type { OpenApiVersion } from '../contract/load.js';
import type { RefResolver } from '../contract/refs.js';
import { isRef, unescapePointerToken } from '../contract/refs.js';
import { percentDecoded } from '../http/percent.js';

interface Alias {
  name: string;
  schema: unknown;
  uri: string;
}

/** Names a type alias may not take: TypeScript's own type names and words, and what the module declares. */
const RESERVED = new Set([
  'any', 'unknown', 'never', 'string', 'number', 'boolean', 'symbol', 'object', 'undefined', 'void', 'null', 'bigint',
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete', 'do', 'else', 'enum', 'export',
  'extends', 'false', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'return', 'super', 'switch',
  'this', 'throw', 'true', 'try', 'typeof', 'var', 'while', 'with', 'implements', 'interface', 'let', 'package', 'private',
  'protected', 'public', 'static', 'yield', 'await', 'type', 'as', 'is', 'keyof', 'infer', 'readonly', 'declare', 'module',
  'namespace', 'require', 'global', 'Operations', 'OperationId', 'Uint8Array', 'AsyncIterable',
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A property key as TypeScript accepts it: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return IDENTIFIER.test(name) ? name : JSON.stringify(name);
}

export class SchemaPrinter {
  private readonly aliases = new Map<unknown, Alias>();
  private readonly taken = new Set<string>();
  private readonly pending: Alias[] = [];

  constructor(
    private readonly refs: RefResolver,
    private readonly version: OpenApiVersion,
  ) {}

  /**
   * Names a schema as a type alias (what components/schemas get, and every `$ref` target): returns its
   * name, printing it later with the others (declarations()).
   */
  alias(schema: unknown, uri: string, hint: string): string {
    const known = this.aliases.get(schema);
    if (known) return known.name;
    const alias: Alias = { name: this.freeName(hint), schema, uri };
    // Primitive targets (a `$ref` to `true`) share no identity: such aliases are only ever reached once.
    if (schema !== null && typeof schema === 'object') this.aliases.set(schema, alias);
    this.pending.push(alias);
    return alias.name;
  }

  /** `export type X = ...;` for every alias named so far, and those the printing names in turn. */
  declarations(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.pending.length; i++) {
      const { name, schema, uri } = this.pending[i]!;
      out.push(`${describe(schema, '')}export type ${name} = ${this.type(schema, uri, '')};`);
    }
    return out;
  }

  /** The TypeScript type of a schema found in document `uri`; `indent` is the current line's indentation. */
  type(schema: unknown, uri: string, indent: string): string {
    if (schema === true || schema === undefined) return 'unknown';
    if (schema === false) return 'never';
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'unknown';
    if (isRef(schema)) {
      const target = this.refs.resolveRef(schema.$ref, uri);
      const ref = this.alias(target.value, target.uri, refHint(schema.$ref));
      // 3.0 ignores a `$ref`'s siblings; 3.1 applies them too (an allOf of the two).
      const rest = this.version === '3.0' ? undefined : withoutRef(schema);
      return rest === undefined ? ref : `${ref} & ${this.type(rest, uri, indent)}`;
    }
    const s = schema as Record<string, unknown>;
    const parts: string[] = [];
    const own = this.ownType(s, uri, indent);
    if (own !== undefined) parts.push(own);
    if (Array.isArray(s.allOf)) for (const sub of s.allOf) parts.push(this.type(sub, uri, indent));
    for (const key of ['oneOf', 'anyOf'] as const) {
      const list = s[key];
      if (Array.isArray(list) && list.length > 0) parts.push(unique(list.map((sub) => this.type(sub, uri, indent))).join(' | '));
    }
    const combined = parts.length === 0 ? 'unknown' : parts.length === 1 ? parts[0]! : parts.map(group).join(' & ');
    return this.nullable(s) && combined !== 'unknown' ? `${group(combined)} | null` : combined;
  }

  /** 3.0's `nullable: true` (3.1 says `type: [..., 'null']`, handled with the other types). */
  private nullable(s: Record<string, unknown>): boolean {
    return s.nullable === true && this.version === '3.0';
  }

  /** What `type`, `enum`, `const`, `properties`, `items` say; undefined when they say nothing. */
  private ownType(s: Record<string, unknown>, uri: string, indent: string): string | undefined {
    if ('const' in s) return literal(s.const);
    if (Array.isArray(s.enum)) return unique(s.enum.map(literal)).join(' | ') || 'never';
    const declared = typeof s.type === 'string' ? [s.type] : Array.isArray(s.type) ? s.type.filter((t): t is string => typeof t === 'string') : [];
    const types = declared.length > 0 ? declared : inferredTypes(s);
    if (types.length === 0) return undefined;
    return unique(types.map((t) => this.typeNamed(t, s, uri, indent))).join(' | ');
  }

  private typeNamed(type: string, s: Record<string, unknown>, uri: string, indent: string): string {
    switch (type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return this.arrayType(s, uri, indent);
      case 'object':
        return this.objectType(s, uri, indent);
      default:
        return 'unknown';
    }
  }

  private arrayType(s: Record<string, unknown>, uri: string, indent: string): string {
    // 3.1 `prefixItems`: a tuple, open at the end unless `items: false` closes it.
    if (Array.isArray(s.prefixItems)) {
      const head = s.prefixItems.map((sub) => this.type(sub, uri, indent));
      if (s.items === false) return `[${head.join(', ')}]`;
      return `[${head.map((t) => `(${t})?`).join(', ')}, ...${group(this.type(s.items, uri, indent))}[]]`;
    }
    if (Array.isArray(s.items)) return `${group(unique(s.items.map((sub) => this.type(sub, uri, indent))).join(' | ') || 'unknown')}[]`;
    return `${group(this.type(s.items, uri, indent))}[]`;
  }

  private objectType(s: Record<string, unknown>, uri: string, indent: string): string {
    const properties = s.properties !== null && typeof s.properties === 'object' ? (s.properties as Record<string, unknown>) : {};
    const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
    const inner = `${indent}  `;
    const lines = Object.entries(properties).map(([name, sub]) => `${describe(sub, inner)}${inner}${propertyKey(name)}${required.has(name) && !this.oneWay(sub, uri) ? '' : '?'}: ${this.type(sub, uri, inner)};`);
    // Required names without a declared property are still there, of any type.
    for (const name of required) if (!Object.hasOwn(properties, name)) lines.push(`${inner}${propertyKey(name)}: unknown;`);
    const extra = s.additionalProperties ?? (this.version === '3.0' ? undefined : s.unevaluatedProperties);
    const declared = lines.length === 0 ? undefined : `{\n${lines.join('\n')}\n${indent}}`;
    // A free-form object (nothing declared, nothing forbidden) takes any property.
    const rest = extra === false ? undefined : extra === undefined ? (declared === undefined ? 'unknown' : undefined) : this.type(extra, uri, indent);
    const index = rest === undefined ? undefined : `{ [key: string]: ${rest} }`;
    if (declared === undefined) return index ?? '{ [key: string]: never }';
    // An intersection, not one literal: the declared properties need not fit the index signature's type.
    return index === undefined ? declared : `${declared} & ${index}`;
  }

  /**
   * A `readOnly` or `writeOnly` property is not required in requests or in responses respectively (as
   * validation checks them): one type serves both directions, so it is optional in both rather than claimed
   * present where it may be absent.
   */
  private oneWay(schema: unknown, uri: string): boolean {
    const flagged = (s: unknown): boolean => s !== null && typeof s === 'object' && ((s as Record<string, unknown>).readOnly === true || (s as Record<string, unknown>).writeOnly === true);
    if (flagged(schema)) return true;
    return isRef(schema) && flagged(this.refs.deref(schema, uri).value);
  }

  private freeName(hint: string): string {
    let base = hint
      .split(/[^A-Za-z0-9_$]+/)
      .filter((w) => w !== '')
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join('');
    if (base === '') base = 'Schema';
    if (/^[0-9]/.test(base)) base = `_${base}`;
    if (RESERVED.has(base) || RESERVED.has(base.toLowerCase())) base = `${base}Schema`;
    let name = base;
    for (let n = 2; this.taken.has(name); n++) name = `${base}${n}`;
    this.taken.add(name);
    return name;
  }
}

/** Types a schema without `type` still implies by the keywords it uses. */
function inferredTypes(s: Record<string, unknown>): string[] {
  if (s.properties !== undefined || s.additionalProperties !== undefined || s.required !== undefined) return ['object'];
  if (s.items !== undefined || s.prefixItems !== undefined) return ['array'];
  return [];
}

/** The last meaningful token of a `$ref`: `#/components/schemas/Pet` → `Pet`, `./pet.yaml` → `pet`. */
function refHint(ref: string): string {
  const hash = ref.indexOf('#');
  const fragment = hash === -1 ? '' : ref.slice(hash + 1);
  const tokens = fragment.split('/').filter((t) => t !== '');
  if (tokens.length > 0) return decodeToken(tokens[tokens.length - 1]!);
  const file = (hash === -1 ? ref : ref.slice(0, hash)).split('/').pop() ?? '';
  return file.replace(/\.[^.]*$/, '');
}

/** A pointer token unescaped, then percent-decoded (as written when malformed: it only names a type). */
function decodeToken(token: string): string {
  const text = unescapePointerToken(token);
  return percentDecoded(text) ?? text;
}

function withoutRef(schema: Record<string, unknown>): Record<string, unknown> | undefined {
  const rest: Record<string, unknown> = {};
  let any = false;
  for (const [k, v] of Object.entries(schema)) {
    if (k === '$ref' || !TYPE_KEYWORDS.has(k)) continue;
    rest[k] = v;
    any = true;
  }
  return any ? rest : undefined;
}

/** The keywords this printer reads (a `$ref`'s other siblings, like `description`, change no type). */
const TYPE_KEYWORDS = new Set(['type', 'enum', 'const', 'properties', 'required', 'additionalProperties', 'items', 'prefixItems', 'allOf', 'oneOf', 'anyOf']);

function literal(value: unknown): string {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? (value < 0 ? `(${value})` : String(value)) : 'number';
  // Objects and arrays cannot be literal types; their kind is what can be said.
  return Array.isArray(value) ? 'unknown[]' : 'object';
}

function unique(types: string[]): string[] {
  return [...new Set(types)];
}

/** Parenthesized when it is a union or intersection, so an operator around it binds as meant. */
function group(type: string): string {
  let depth = 0;
  for (let i = 0; i < type.length; i++) {
    const c = type[i];
    if (c === '{' || c === '(' || c === '[' || c === '<') depth++;
    else if (c === '}' || c === ')' || c === ']' || c === '>') depth--;
    else if (depth === 0 && (c === '|' || c === '&')) return `(${type})`;
    else if (c === '"') i = skipString(type, i);
    else if (c === '/' && type[i + 1] === '*') i = (type.indexOf('*/', i + 2) + 1 || type.length) as number;
  }
  return type;
}

function skipString(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return text.length;
}

/** A schema's `description` (or `title`) as a one-line JSDoc comment before what it types. */
export function describe(schema: unknown, indent: string): string {
  if (schema === null || typeof schema !== 'object') return '';
  const { description, title } = schema as { description?: unknown; title?: unknown };
  const text = typeof description === 'string' && description.trim() !== '' ? description : typeof title === 'string' ? title : '';
  return text === '' ? '' : `${indent}${comment(text)}\n`;
}

/** One line of JSDoc: `*\/` cannot end it early, and only the first line of a long text is kept. */
export function comment(text: string): string {
  const line = text.trim().split(/\r?\n/)[0]!.replace(/\*\//g, '*\\/');
  return `/** ${line.length > 200 ? `${line.slice(0, 197)}...` : line} */`;
}
