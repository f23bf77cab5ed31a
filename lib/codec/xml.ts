// XML codec for the binding layer (docs/binding.md): parses XML bodies into values shaped by an OpenAPI schema and
// writes values as XML, following the OpenAPI `xml` object (name, nodeType, attribute, wrapped, prefix,
// namespace; which node a property makes is decided in xml-node-type.ts).
//
// Design notes:
// - Schemas are never pre-expanded. Each schema object is resolved on demand into a cached `Shape` (its
//   `$ref` chain followed, `allOf` merged, the first `oneOf`/`anyOf` branch with properties picked), and
//   an object shape gets a cached `Plan` (element/attribute name -> property) the first time an element of
//   that shape is met. Circular schemas therefore cost nothing until the document actually nests.
// - Parsing is streaming (saxes events + an explicit frame stack), so document depth never becomes JS
//   stack depth; nesting beyond `maxDepth` is rejected as soon as the offending tag opens.
// - DTDs are rejected outright (the doctype event throws), so no entity other than the five predefined
//   ones and numeric character references can ever be expanded.
import { unescapePointerToken } from '../contract/refs.js';
import { percentDecoded } from '../http/percent.js';
import { setOwn } from '../util/objects.js';
import { SaxesParser, type SaxesTagNS, type SaxesAttributeNS } from 'saxes';
import { Errors, SvcError } from '../util/errors.js';
import { carriageOf, cdataSection, isNodeType, type NodeType } from './xml-node-type.js';

export type Schema = Record<string, unknown>;
export type Deref = (schema: Schema) => Schema;
export interface XmlOptions {
  deref: Deref;
  /** Maximum element nesting (the root element is depth 1). Default 64. */
  maxDepth?: number;
  /** Maximum input size, measured as `text.length`. Default 1 MiB. */
  maxBytes?: number;
}

const DEFAULT_MAX_DEPTH = 64;
const DEFAULT_MAX_BYTES = 1024 * 1024;

const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

// ---------------------------------------------------------------------------------------------------------
// Schema shapes

type Kind = 'object' | 'array' | 'string' | 'number' | 'integer' | 'boolean' | 'null' | 'any';
const KINDS: ReadonlySet<string> = new Set(['object', 'array', 'string', 'number', 'integer', 'boolean', 'null']);

interface XmlHints {
  name?: string;
  nodeType?: NodeType;
  attribute?: boolean;
  wrapped?: boolean;
  prefix?: string;
  namespace?: string;
}

/** A schema resolved for XML purposes; cached per (deref, schema object). */
interface Shape {
  readonly kind: Kind;
  readonly nullable: boolean;
  readonly xml: XmlHints;
  /** Component name of the outermost `$ref` (`#/components/schemas/<Name>`), if any. */
  readonly comp: string | undefined;
  readonly props: ReadonlyMap<string, Schema> | null;
  readonly items: Schema | null;
  readonly extra: Schema | null;
  /** `prefix:` to put before element names (empty without a valid prefix). */
  readonly pfx: string;
  /** Namespace declaration attribute text (with leading space), or ''. */
  readonly decl: string;
  plan?: Plan;
  itemShape?: Shape | null;
}

const ATTR = 0;
const PROP = 1; // one element (also a wrapped array: the element is the wrapper)
const PUSH = 2; // unwrapped array: the item element repeats in the parent
const TEXT = 3; // the parent element's character data (a text node or a CDATA section)

const NO_VIA: readonly string[] = [];

interface Entry {
  readonly key: string;
  /** Local element/attribute name. */
  readonly name: string;
  readonly mode: typeof ATTR | typeof PROP | typeof PUSH | typeof TEXT;
  /** Property shape; for PUSH the items' shape. */
  readonly shape: Shape;
  /** For PROP arrays (wrapped): the items' element name. */
  readonly itemName: string;
  /** TEXT written as a CDATA section. */
  readonly cdata: boolean;
  /** Keys of the objects without element of their own (`nodeType: none`) the property sits in, outermost first. */
  readonly via: readonly string[];
}

interface Plan {
  readonly attrs: Map<string, Entry>;
  readonly elems: Map<string, Entry>;
  readonly list: Entry[];
  readonly keys: Set<string>;
  readonly extra: Shape | null;
  /** Where character data goes: the text node property, and the CDATA one (the same when only one is declared). */
  text: Entry | undefined;
  cdata: Entry | undefined;
}

const shapeCaches = new WeakMap<Deref, WeakMap<object, Shape>>();

function isObj(v: unknown): v is Schema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function resolveShape(raw: Schema, deref: Deref): Shape {
  let cache = shapeCaches.get(deref);
  if (cache === undefined) {
    cache = new WeakMap();
    shapeCaches.set(deref, cache);
  }
  let shape = cache.get(raw);
  if (shape === undefined) {
    shape = buildShape(raw, deref);
    cache.set(raw, shape);
  }
  return shape;
}

interface Acc {
  type: string | undefined;
  nullable: boolean;
  xml: XmlHints;
  comp: string | undefined;
  props: Map<string, Schema> | null;
  items: Schema | null;
  extra: Schema | null;
}

const newAcc = (): Acc => ({ type: undefined, nullable: false, xml: {}, comp: undefined, props: null, items: null, extra: null });

const MAX_REF_HOPS = 32;
const MAX_COMPOSE_DEPTH = 32;

function buildShape(raw: Schema, deref: Deref): Shape {
  const acc = newAcc();
  collect(raw, deref, acc, 0, new Set());
  const t = acc.type;
  const kind: Kind = t !== undefined && KINDS.has(t) ? (t as Kind) : acc.props ? 'object' : acc.items ? 'array' : 'any';
  const { prefix, namespace } = acc.xml;
  const pfx = prefix !== undefined && isNcName(prefix) ? prefix : '';
  let decl = '';
  if (namespace !== undefined && pfx !== 'xml' && pfx !== 'xmlns') {
    decl = pfx ? ` xmlns:${pfx}="${escapeXml(namespace)}"` : ` xmlns="${escapeXml(namespace)}"`;
  }
  return {
    kind,
    nullable: acc.nullable,
    xml: acc.xml,
    comp: acc.comp,
    props: acc.props,
    items: acc.items,
    extra: acc.extra,
    pfx: pfx ? pfx + ':' : '',
    decl,
  };
}

function mergeXml(into: XmlHints, src: unknown): void {
  if (!isObj(src)) return;
  if (into.name === undefined && typeof src.name === 'string' && src.name !== '' && src.name !== '##default') into.name = src.name;
  if (into.nodeType === undefined && isNodeType(src.nodeType)) into.nodeType = src.nodeType;
  if (into.attribute === undefined && typeof src.attribute === 'boolean') into.attribute = src.attribute;
  if (into.wrapped === undefined && typeof src.wrapped === 'boolean') into.wrapped = src.wrapped;
  if (into.prefix === undefined && typeof src.prefix === 'string' && src.prefix !== '') into.prefix = src.prefix;
  if (into.namespace === undefined && typeof src.namespace === 'string' && src.namespace !== '') into.namespace = src.namespace;
}

function collect(raw: Schema, deref: Deref, acc: Acc, depth: number, seen: Set<object>): void {
  if (depth > MAX_COMPOSE_DEPTH) return;
  let s = raw;
  for (let hops = 0; typeof s.$ref === 'string' && hops < MAX_REF_HOPS; hops++) {
    if (depth === 0 && hops === 0) acc.comp = componentName(s.$ref as string);
    mergeXml(acc.xml, s.xml); // 3.1 allows siblings of $ref; the referring schema's hints win
    const target = deref(s);
    if (target === s || !isObj(target)) break;
    s = target;
  }
  if (seen.has(s)) return; // a composition cycle (A allOf [A])
  seen.add(s);
  mergeXml(acc.xml, s.xml);

  if (acc.type === undefined) {
    const t = s.type;
    if (typeof t === 'string') {
      if (t === 'null') acc.nullable = true;
      acc.type = t;
    } else if (Array.isArray(t)) {
      for (const x of t) {
        if (x === 'null') acc.nullable = true;
        else if (acc.type === undefined && typeof x === 'string') acc.type = x;
      }
      if (acc.type === undefined && acc.nullable) acc.type = 'null';
    }
  }
  if (s.nullable === true) acc.nullable = true;

  if (Array.isArray(s.allOf)) {
    for (const b of s.allOf) if (isObj(b)) collect(b, deref, acc, depth + 1, seen);
  }
  if (isObj(s.properties)) {
    const props = (acc.props ??= new Map());
    for (const key of Object.keys(s.properties)) {
      const p = s.properties[key];
      if (isObj(p)) props.set(key, p);
    }
  }
  if (isObj(s.items)) acc.items = s.items;
  if (isObj(s.additionalProperties)) acc.extra = s.additionalProperties;

  for (const list of [s.oneOf, s.anyOf]) {
    if (!Array.isArray(list) || acc.props !== null) continue;
    let typed: Acc | null = null;
    for (const b of list) {
      if (!isObj(b)) continue;
      const tmp = newAcc();
      collect(b, deref, tmp, depth + 1, seen);
      if (tmp.props !== null) {
        mergeBranch(acc, tmp);
        typed = null;
        break;
      }
      if (typed === null && tmp.type !== undefined && tmp.type !== 'null') typed = tmp;
    }
    if (typed !== null && acc.type === undefined) mergeBranch(acc, typed);
  }
}

function mergeBranch(acc: Acc, b: Acc): void {
  mergeXml(acc.xml, b.xml);
  if (acc.type === undefined) acc.type = b.type;
  if (b.nullable) acc.nullable = true;
  if (b.props !== null) acc.props = b.props;
  if (acc.items === null) acc.items = b.items;
  if (acc.extra === null) acc.extra = b.extra;
}

const COMPONENT_PREFIX = '/components/schemas/';

/** The `<Name>` of a `$ref` to `#/components/schemas/<Name>` (in any document), unescaped; else undefined. */
export function componentName(ref: string): string | undefined {
  const hash = ref.indexOf('#');
  if (hash < 0) return undefined;
  let frag = ref.slice(hash + 1);
  if (!frag.startsWith(COMPONENT_PREFIX)) return undefined;
  frag = frag.slice(COMPONENT_PREFIX.length);
  if (frag === '' || frag.includes('/')) return undefined;
  const decoded = percentDecoded(frag);
  return decoded === undefined ? undefined : unescapePointerToken(decoded);
}

function itemShapeOf(shape: Shape, deref: Deref): Shape | null {
  if (shape.itemShape === undefined) shape.itemShape = shape.items ? resolveShape(shape.items, deref) : null;
  return shape.itemShape;
}

/** Object shapes whose plan is being built: one that inlines itself (`nodeType: none`, recursively) stops there. */
const planning = new WeakSet<Shape>();

function planOf(shape: Shape, deref: Deref): Plan {
  if (shape.plan !== undefined) return shape.plan;
  const plan: Plan = {
    attrs: new Map(),
    elems: new Map(),
    list: [],
    keys: new Set(),
    extra: shape.extra ? resolveShape(shape.extra, deref) : null,
    text: undefined,
    cdata: undefined,
  };
  planning.add(shape);
  if (shape.props !== null) {
    for (const [key, raw] of shape.props) {
      plan.keys.add(key);
      const s = resolveShape(raw, deref);
      const carriage = carriageOf(s.xml, s.kind, s.props !== null);
      if (carriage === 'inline') {
        if (!planning.has(s)) for (const inner of planOf(s, deref).list) addEntry(plan, { ...inner, via: [key, ...inner.via] });
      } else if (carriage === 'attribute') {
        addEntry(plan, { key, name: s.xml.name ?? key, mode: ATTR, shape: s, itemName: key, cdata: false, via: NO_VIA });
      } else if (carriage === 'text' || carriage === 'cdata') {
        addEntry(plan, { key, name: key, mode: TEXT, shape: s, itemName: key, cdata: carriage === 'cdata', via: NO_VIA });
      } else if (carriage === 'items') {
        const items = itemShapeOf(s, deref) ?? resolveShape({}, deref);
        addEntry(plan, { key, name: items.xml.name ?? key, mode: PUSH, shape: items, itemName: key, cdata: false, via: NO_VIA });
      } else {
        const items = s.kind === 'array' ? itemShapeOf(s, deref) : null;
        addEntry(plan, { key, name: s.xml.name ?? key, mode: PROP, shape: s, itemName: items?.xml.name ?? key, cdata: false, via: NO_VIA });
      }
    }
  }
  planning.delete(shape);
  shape.plan = plan;
  return plan;
}

function addEntry(plan: Plan, entry: Entry): void {
  if (entry.mode === TEXT) {
    if (entry.cdata) plan.cdata ??= entry;
    else plan.text ??= entry;
  } else {
    if (!isNcName(entry.name)) return;
    const byName = entry.mode === ATTR ? plan.attrs : plan.elems;
    if (!byName.has(entry.name)) byName.set(entry.name, entry);
  }
  plan.list.push(entry);
}

/** The object an entry's value sits in: `obj` itself, or the nested objects of its `via` keys (created when missing). */
function holderOf(obj: Record<string, unknown>, via: readonly string[]): Record<string, unknown> | undefined {
  let holder = obj;
  for (const key of via) {
    let next = holder[key];
    if (typeof next !== 'object' || next === null || Array.isArray(next)) {
      if (Object.hasOwn(holder, key)) return undefined;
      setOwn(holder, key, (next = {}));
    }
    holder = next as Record<string, unknown>;
  }
  return holder;
}

// ---------------------------------------------------------------------------------------------------------
// Names and escaping

// XML 1.0 (5th ed.) NameStartChar / NameChar without ':' (an NCName).
const NC_START = 'A-Z_a-z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u02FF\\u0370-\\u037D\\u037F-\\u1FFF\\u200C\\u200D\\u2070-\\u218F\\u2C00-\\u2FEF\\u3001-\\uD7FF\\uF900-\\uFDCF\\uFDF0-\\uFFFD\\u{10000}-\\u{EFFFF}';
const NC_NAME_RE = new RegExp(`^[${NC_START}][${NC_START}\\-.0-9\\u00B7\\u0300-\\u036F\\u203F\\u2040]*$`, 'u');

function isNcName(s: string): boolean {
  return NC_NAME_RE.test(s);
}

const ESCAPE_TEST_RE = /[&<>"'\r\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF\uD800-\uDFFF]/;
/** Characters XML 1.0 cannot carry (a CDATA section cannot escape them either). */
const INVALID_RE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const ESCAPE_RE = new RegExp(`[&<>"'\\r]|${INVALID_RE.source}`, 'g');
const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;', '\r': '&#13;' };
const escapeChar = (c: string): string => ESCAPES[c] ?? '\uFFFD'; // characters XML 1.0 cannot carry

/** Escapes text for element content and attribute values; characters XML cannot carry become U+FFFD. */
function escapeXml(s: string): string {
  return ESCAPE_TEST_RE.test(s) ? s.replace(ESCAPE_RE, escapeChar) : s;
}

const ATTR_WS_TEST_RE = /[\n\t]/;
const ATTR_WS_RE = /[\n\t]/g;
const attrWs = (c: string): string => (c === '\n' ? '&#10;' : '&#9;');

/** Attribute values additionally keep newlines and tabs (attribute value normalization would eat them). */
function escapeAttr(s: string): string {
  const e = escapeXml(s);
  return ATTR_WS_TEST_RE.test(e) ? e.replace(ATTR_WS_RE, attrWs) : e;
}

// ---------------------------------------------------------------------------------------------------------
// Root name

/** Root element name for a schema: schema.xml.name, else the component name from a `$ref: '#/components/schemas/<Name>'` (last pointer segment, ~1/~0 unescaped), else opts.rootName, else 'root'. */
export function xmlRootName(schema: Schema | undefined, deref: Deref, fallback?: string): string {
  if (schema !== undefined && isObj(schema)) {
    const shape = resolveShape(schema, deref);
    if (shape.xml.name !== undefined && isNcName(shape.xml.name)) return shape.xml.name;
    if (shape.comp !== undefined && isNcName(shape.comp)) return shape.comp;
  }
  return fallback !== undefined && isNcName(fallback) ? fallback : 'root';
}

// ---------------------------------------------------------------------------------------------------------
// Parsing

const NUMBER_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const WS_RE = /^[ \t\r\n]*$/;
const SPLIT_WS_RE = /[ \t\r\n]+/;

function coerce(text: string, shape: Shape | null, deref: Deref): unknown {
  if (shape === null) return text;
  switch (shape.kind) {
    case 'integer':
    case 'number': {
      const t = text.trim();
      if (NUMBER_RE.test(t)) {
        const n = Number(t);
        if (Number.isFinite(n)) return n;
      }
      if (t === '' && shape.nullable) return null;
      return text;
    }
    case 'boolean': {
      const t = text.trim();
      if (t === 'true') return true;
      if (t === 'false') return false;
      if (t === '' && shape.nullable) return null;
      return text;
    }
    case 'null':
      return WS_RE.test(text) ? null : text;
    case 'array': {
      // only reached for attributes: an xsd-style whitespace-separated list
      const t = text.trim();
      if (t === '') return [];
      const items = itemShapeOf(shape, deref);
      return t.split(SPLIT_WS_RE).map((x) => coerce(x, items, deref));
    }
    default:
      return text;
  }
}

const SET = 1;
const ITEM = 3;

interface Frame {
  shape: Shape | null;
  plan: Plan | null;
  /** Where the value goes in the parent: 0 root, SET, PUSH, ITEM. */
  mode: number;
  key: string;
  /** The parent's entry `via` (the value sits in nested objects of the parent's value). */
  via: readonly string[];
  obj: Record<string, unknown> | null;
  /** Set for array-typed elements (wrappers); children are items. */
  arr: unknown[] | null;
  items: Shape | null;
  /** Primitive-typed element: attributes are ignored. */
  leaf: boolean;
  nil: boolean;
  text: string;
  /** Object elements: character data gathered for text/CDATA properties (created on the first). */
  texts: Map<Entry, string> | null;
}

function invalid(): SvcError {
  return new SvcError(Errors.INVALID_XML);
}

/** Parse an XML document into a JS value shaped by the schema. Throws SvcError(Errors.INVALID_XML) on any malformed input. */
export function parseXml(text: string, schema: Schema | undefined, opts: XmlOptions): unknown {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_DEPTH;
  if (typeof text !== 'string' || text.length === 0 || text.length > maxBytes) throw invalid();
  const deref = opts.deref;
  const rootShape = schema !== undefined && isObj(schema) ? resolveShape(schema, deref) : null;

  const stack: Frame[] = [];
  let result: unknown;
  let done = false;

  const parser = new SaxesParser({ xmlns: true, position: false });
  parser.on('error', () => {
    throw invalid();
  });
  parser.on('doctype', () => {
    throw invalid();
  });

  parser.on('opentag', (tag: SaxesTagNS) => {
    if (stack.length >= maxDepth) throw invalid();
    const parent = stack.length > 0 ? stack[stack.length - 1]! : null;
    let shape: Shape | null;
    let mode: number;
    let key = tag.local;
    let via = NO_VIA;
    if (parent === null) {
      shape = rootShape;
      mode = 0;
    } else if (parent.arr !== null) {
      shape = parent.items;
      mode = ITEM;
    } else {
      parent.obj ??= {};
      const e = parent.plan?.elems.get(tag.local);
      if (e !== undefined) {
        shape = e.shape;
        mode = e.mode === PUSH ? PUSH : SET;
        key = e.key;
        via = e.via;
      } else {
        shape = parent.plan?.extra ?? null;
        mode = SET;
      }
    }

    const frame: Frame = { shape, plan: null, mode, key, via, obj: null, arr: null, items: null, leaf: false, nil: false, text: '', texts: null };
    if (shape !== null) {
      switch (shape.kind) {
        case 'array':
          frame.arr = [];
          frame.items = itemShapeOf(shape, deref);
          break;
        case 'object':
          frame.obj = {};
          frame.plan = planOf(shape, deref);
          break;
        case 'any':
          break;
        default:
          frame.leaf = true;
      }
    }

    const attributes = tag.attributes as Record<string, SaxesAttributeNS>;
    for (const name in attributes) {
      const a = attributes[name]!;
      const uri = a.uri;
      if (uri === XMLNS_NS) continue;
      if (uri === XSI_NS) {
        if (a.local === 'nil' && a.value.trim() === 'true') frame.nil = true;
        continue;
      }
      if (frame.arr !== null || frame.leaf) continue;
      const e = frame.plan?.attrs.get(a.local);
      if (e !== undefined) {
        const holder = holderOf((frame.obj ??= {}), e.via);
        if (holder !== undefined) setOwn(holder, e.key, coerce(a.value, e.shape, deref));
      } else if (uri !== XML_NS) {
        const extra = frame.plan?.extra ?? null;
        setOwn((frame.obj ??= {}), a.local, extra !== null ? coerce(a.value, extra, deref) : a.value);
      }
    }
    stack.push(frame);
  });

  const onText = (t: string, cdata: boolean): void => {
    const top = stack.length > 0 ? stack[stack.length - 1]! : null;
    if (top === null || top.arr !== null) return;
    if (top.plan === null) {
      top.text += t;
      return;
    }
    // An object's character data belongs to its text/CDATA property; whitespace between its child elements does not.
    const e = cdata ? (top.plan.cdata ?? top.plan.text) : (top.plan.text ?? top.plan.cdata);
    if (e === undefined || (!cdata && WS_RE.test(t))) return;
    top.texts ??= new Map();
    top.texts.set(e, (top.texts.get(e) ?? '') + t);
  };
  parser.on('text', (t) => onText(t, false));
  parser.on('cdata', (t) => onText(t, true));

  parser.on('closetag', () => {
    const f = stack.pop()!;
    let value: unknown;
    if (f.nil) value = null;
    else if (f.arr !== null) value = f.arr;
    else if (f.obj !== null || f.texts !== null) value = withTexts((f.obj ??= {}), f.texts, deref);
    else value = coerce(f.text, f.shape, deref);

    if (stack.length === 0) {
      result = value;
      done = true;
      return;
    }
    const parent = stack[stack.length - 1]!;
    if (f.mode === ITEM) {
      parent.arr!.push(value);
      return;
    }
    const obj = holderOf(parent.obj!, f.via);
    if (obj === undefined) return; // a `via` key already holds something else: the value has nowhere to go
    if (!Object.hasOwn(obj, f.key)) {
      setOwn(obj, f.key, f.mode === PUSH ? [value] : value);
      return;
    }
    const existing = obj[f.key];
    if (f.mode === PUSH) {
      if (Array.isArray(existing)) existing.push(value);
      else setOwn(obj, f.key, [existing, value]);
    } else if (f.arr !== null && Array.isArray(existing)) {
      // a wrapped array whose wrapper repeats: keep all items
      for (const v of f.arr) existing.push(v);
    } else if (f.shape === null || f.shape.kind === 'any' || parent.plan === null) {
      // schema-less repetition → array (schema-less values are never arrays themselves)
      if (Array.isArray(existing)) existing.push(value);
      else setOwn(obj, f.key, [existing, value]);
    } else {
      // a typed single property that repeats: keep every occurrence so validation can report it
      setOwn(obj, f.key, [existing, value]);
    }
  });

  try {
    parser.write(text);
    parser.close();
  } catch (e) {
    if (e instanceof SvcError) throw e;
    throw invalid();
  }
  if (!done) throw invalid();
  return result;
}

/** An object element's character data set on its text/CDATA properties. */
function withTexts(obj: Record<string, unknown>, texts: Map<Entry, string> | null, deref: Deref): Record<string, unknown> {
  if (texts === null) return obj;
  for (const [e, text] of texts) {
    const holder = holderOf(obj, e.via);
    if (holder !== undefined) setOwn(holder, e.key, coerce(text, e.shape, deref));
  }
  return obj;
}

// ---------------------------------------------------------------------------------------------------------
// Writing

interface WriteCtx {
  readonly deref: Deref;
  readonly maxDepth: number;
  out: string;
}

function normalize(v: unknown): unknown {
  if (typeof v === 'object' && v !== null && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
    return (v as { toJSON: () => unknown }).toJSON();
  }
  return v;
}

function scalarText(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return v;
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(v);
    default:
      return undefined;
  }
}

function attrText(v: unknown): string | undefined {
  v = normalize(v);
  if (Array.isArray(v)) {
    const parts: string[] = [];
    for (const x of v) {
      const t = scalarText(normalize(x));
      if (t !== undefined) parts.push(t);
    }
    return parts.join(' ');
  }
  return scalarText(v);
}

/** The value an entry writes: the property of `obj`, or of the nested objects its `via` keys lead to. */
function entryValue(obj: Record<string, unknown>, e: Entry): unknown {
  let holder: unknown = obj;
  for (const key of e.via) {
    holder = normalize((holder as Record<string, unknown>)[key]);
    if (typeof holder !== 'object' || holder === null || Array.isArray(holder)) return undefined;
  }
  return (holder as Record<string, unknown>)[e.key];
}

function tooDeep(): RangeError {
  return new RangeError('The value nests deeper than the XML maxDepth (or is circular).');
}

/**
 * Writes one element. `value` is already normalized and not null/undefined. `itemName` names the items
 * when the value is written as a wrapper (an array).
 */
function writeElement(ctx: WriteCtx, name: string, value: unknown, shape: Shape | null, depth: number, itemName: string): void {
  if (depth > ctx.maxDepth) throw tooDeep();
  const qname = shape !== null ? shape.pfx + name : name;
  const decl = shape !== null ? shape.decl : '';

  if (Array.isArray(value)) {
    const items = shape !== null && shape.kind === 'array' ? itemShapeOf(shape, ctx.deref) : null;
    const iname = items?.xml.name ?? itemName;
    ctx.out += `<${qname}${decl}>`;
    for (const raw of value) {
      const item = normalize(raw);
      if (item === undefined || item === null) continue;
      writeElement(ctx, iname, item, items, depth + 1, 'item');
    }
    ctx.out += `</${qname}>`;
    return;
  }

  if (typeof value === 'object' && value !== null) {
    const obj = value as Record<string, unknown>;
    const plan = shape !== null && (shape.kind === 'object' || shape.props !== null) ? planOf(shape, ctx.deref) : null;
    let attrs = '';
    let attrDecls: string[] | null = null;
    if (plan !== null && plan.attrs.size > 0) {
      for (const e of plan.list) {
        if (e.mode !== ATTR) continue;
        const t = attrText(entryValue(obj, e));
        if (t === undefined) continue;
        const s = e.shape;
        if (s.pfx !== '' && s.decl !== '' && s.pfx !== shape!.pfx) {
          attrDecls ??= [];
          if (!attrDecls.includes(s.decl)) {
            attrDecls.push(s.decl);
            attrs += s.decl;
          }
        }
        attrs += ` ${s.pfx}${e.name}="${escapeAttr(t)}"`;
      }
    }
    ctx.out += `<${qname}${decl}${attrs}>`;
    if (plan !== null) {
      for (const e of plan.list) {
        if (e.mode === ATTR) continue;
        const v = normalize(entryValue(obj, e));
        if (v === undefined || v === null) continue;
        if (e.mode === TEXT) {
          const t = scalarText(v);
          if (t !== undefined) ctx.out += e.cdata ? cdataSection(t.replace(INVALID_RE, '\uFFFD')) : escapeXml(t);
        } else if (e.mode === PUSH && Array.isArray(v)) {
          for (const raw of v) {
            const item = normalize(raw);
            if (item === undefined || item === null) continue;
            writeElement(ctx, e.name, item, e.shape, depth + 1, 'item');
          }
        } else {
          writeElement(ctx, e.name, v, e.shape, depth + 1, e.itemName);
        }
      }
    }
    const extra = plan?.extra ?? null;
    for (const key of Object.keys(obj)) {
      if (plan !== null && plan.keys.has(key)) continue;
      const v = normalize(obj[key]);
      if (v === undefined || v === null || !isNcName(key)) continue;
      if (Array.isArray(v) && (extra === null || extra.kind !== 'array')) {
        // schema-less arrays repeat the element (the mirror of how repeated elements parse)
        for (const raw of v) {
          const item = normalize(raw);
          if (item === undefined || item === null) continue;
          writeElement(ctx, key, item, extra, depth + 1, 'item');
        }
      } else {
        writeElement(ctx, key, v, extra, depth + 1, 'item');
      }
    }
    ctx.out += `</${qname}>`;
    return;
  }

  const t = scalarText(value);
  if (t === undefined) return; // functions, symbols
  ctx.out += t === '' ? `<${qname}${decl}/>` : `<${qname}${decl}>${escapeXml(t)}</${qname}>`;
}

/** Serialize a JS value to an XML document (with `<?xml version="1.0" encoding="UTF-8"?>` prolog) using the schema's xml hints. */
export function writeXml(value: unknown, schema: Schema | undefined, opts: XmlOptions & { rootName?: string }): string {
  const deref = opts.deref;
  const shape = schema !== undefined && isObj(schema) ? resolveShape(schema, deref) : null;
  const name = xmlRootName(schema, deref, opts.rootName);
  const ctx: WriteCtx = { deref, maxDepth: opts.maxDepth ?? DEFAULT_MAX_DEPTH, out: '<?xml version="1.0" encoding="UTF-8"?>' };
  const v = normalize(value);
  const items = shape !== null && shape.kind === 'array' ? itemShapeOf(shape, deref) : null;
  const itemName = items?.xml.name ?? (items?.comp !== undefined && isNcName(items.comp) ? items.comp : 'item');
  const before = ctx.out.length;
  if (v !== undefined && v !== null) writeElement(ctx, name, v, shape, 1, itemName);
  if (ctx.out.length === before) ctx.out += `<${shape !== null ? shape.pfx : ''}${name}${shape !== null ? shape.decl : ''}/>`;
  return ctx.out;
}
