// Form field names with brackets, nested as `qs` (the decoder behind Express and most Node backends, and
// the encoder of Stripe's Node SDK) nests them: `shipping[address][line1]=x` → `{shipping: {address: {line1: 'x'}}}`,
// `expand[]=a&expand[]=b` and `expand[0]=a&expand[1]=b` → `{expand: ['a', 'b']}`,
// `items[0][price]=p` → `{items: [{price: 'p'}]}`, a repeated name → an array of its values.
//
// Where qs would lose data this keeps it (so the schema check reports it), and where qs would silently
// truncate it refuses:
// - a name whose brackets do not close cleanly (`a[b`, `a[b]c`, `[a]`) is one literal name (qs drops `c`);
// - a plain value and a nested one for the same name (`a=x&a[b]=y`) become an array of both (as qs does),
//   also in the order qs turns into `{b: 'y', x: true}`;
// - a second value for a place already filled is kept beside it, an empty one too (qs's merge skips '');
// - more than MAX_FIELDS fields, or more than MAX_DEPTH brackets in a name, is a FormLimitError (qs ignores
//   the fields past its `parameterLimit` and keeps the brackets past its `depth` as one literal name);
// - indices up to MAX_INDEX make arrays, in index order, holes closed (qs: up to its `arrayLimit`, 20);
//   a larger index is an object key, as in qs, so a hostile `a[999999999]` never allocates.
// Names are set as own properties, so `__proto__[x]` is a field like any other (qs drops it).
import { setOwn } from '../util/objects.js';
import type { Pairs } from '../http/query.js';

/** Fields one form (a body, a form-encoded query, a deepObject parameter's) may hold. */
export const MAX_FIELDS = 1000;
/** Brackets one field name may hold (Stripe's deepest, `line_items[0][price_data][product_data][metadata][k]`, has 5). */
export const MAX_DEPTH = 16;
/** The largest bracket index read as an array position. */
export const MAX_INDEX = MAX_FIELDS;

export class FormLimitError extends Error {
  constructor(
    message: string,
    /** The field name that went past the limit ('' when the count did). */
    readonly field: string,
  ) {
    super(message);
  }

  /** The message naming the field, for a value reported as a whole (a query parameter). */
  get detail(): string {
    return this.field === '' ? this.message : `field ${this.field} ${this.message}`;
  }
}

/**
 * The nested value of pairs: an object of strings, arrays and objects. Throws FormLimitError past the limits.
 */
export function nestPairs(pairs: Pairs): Record<string, unknown> {
  if (pairs.length > MAX_FIELDS) throw new FormLimitError(`has ${pairs.length} fields, more than the ${MAX_FIELDS} allowed`, '');
  const root = new Branch(false);
  for (const [name, value] of pairs) insert(root, name, value);
  return root.value() as Record<string, unknown>;
}

/** A node with named or indexed children; a list while every child is indexed. */
class Branch {
  readonly children = new Map<string, Node>();
  /** The position after the highest index (where `[]` appends). */
  private next = 0;

  constructor(public list: boolean) {}

  nextIndex(): number {
    return this.next;
  }

  set(key: string, node: Node): void {
    this.children.set(key, node);
    if (INDEX.test(key)) this.next = Math.max(this.next, Number(key) + 1);
  }

  value(): unknown {
    if (this.list) {
      const keys = [...this.children.keys()].sort((a, b) => Number(a) - Number(b));
      return keys.map((k) => valueOf(this.children.get(k)!));
    }
    const out: Record<string, unknown> = {};
    for (const [k, node] of this.children) setOwn(out, k, valueOf(node));
    return out;
  }
}

type Node = string | Branch;

function valueOf(node: Node): unknown {
  return typeof node === 'string' ? node : node.value();
}

/** Canonical indices (no leading zero), as qs reads them. */
const INDEX = /^(?:0|[1-9][0-9]{0,9})$/;

/** `name[a][b]` → ['name', 'a', 'b']; undefined when the brackets do not close cleanly (a literal name). */
function segmentsOf(name: string): string[] | undefined {
  const open = name.indexOf('[');
  if (open <= 0) return undefined;
  const out = [name.slice(0, open)];
  let at = open;
  while (at < name.length) {
    if (name.charCodeAt(at) !== 0x5b) return undefined; // text between or after brackets
    const close = name.indexOf(']', at + 1);
    if (close === -1) return undefined;
    const segment = name.slice(at + 1, close);
    if (segment.includes('[')) return undefined;
    out.push(segment);
    if (out.length - 1 > MAX_DEPTH) throw new FormLimitError(`nests more than ${MAX_DEPTH} brackets deep`, name);
    at = close + 1;
  }
  return out;
}

function insert(root: Branch, name: string, value: string): void {
  const segments = name.includes('[') ? segmentsOf(name) : undefined;
  if (segments === undefined) {
    put(root, name, value);
    return;
  }
  let node = root;
  for (let i = 0; i < segments.length; i++) {
    const last = i === segments.length - 1;
    let key = segments[i]!;
    if (i > 0) {
      // `[]` appends at the end of a name; inside one it is position 0, as qs merges it.
      if (key === '') key = last ? String(node.nextIndex()) : '0';
      else if (!INDEX.test(key) || Number(key) > MAX_INDEX) node.list = false;
    }
    if (last) put(node, key, value);
    else node = child(node, key, segments[i + 1]!);
  }
}

/** Sets a value; a second value for the same place makes (or extends) a list of them. */
function put(node: Branch, key: string, value: string): void {
  const existing = node.children.get(key);
  if (existing === undefined) node.set(key, value);
  else node.set(key, appended(existing, value));
}

function appended(existing: Node, value: Node): Branch {
  if (typeof existing !== 'string' && existing.list) {
    existing.set(String(existing.nextIndex()), value);
    return existing;
  }
  const list = new Branch(true);
  list.set('0', existing);
  list.set('1', value);
  return list;
}

/** The branch under `key` to descend into, made when absent; a plain value there is kept beside it. */
function child(node: Branch, key: string, nextSegment: string): Branch {
  const existing = node.children.get(key);
  if (existing instanceof Branch) return existing;
  const fresh = new Branch(nextSegment === '' || (INDEX.test(nextSegment) && Number(nextSegment) <= MAX_INDEX));
  if (existing === undefined) {
    node.set(key, fresh);
    return fresh;
  }
  // `a=x` then `a[]=y` or `a[0]=y`: x is the list's first item; `a=x` then `a[b]=y`: [x, {b: y}].
  if (fresh.list) {
    fresh.set('0', existing);
    node.set(key, fresh);
    return fresh;
  }
  node.set(key, appended(existing, fresh));
  return fresh;
}
