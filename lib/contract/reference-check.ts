// Every `$ref` a served operation can reach resolves, checked once at startup (docs/configuration.md#contracts): the path item,
// parameters, request bodies, responses, headers, media types (3.2 `components/mediaTypes` too), examples,
// links, encodings, and schemas transitively, across files and through 3.1 `$id`s. Otherwise a broken
// reference would surface at the first request that needs it, and a schema left unresolved is a request left
// unchecked. The walk follows only reference positions (a `$ref` key inside an example value is data), and
// schemas only where the validator's converter reads them (lib/contract/schema-keywords.ts), with 3.0's rule
// that siblings of a `$ref` are ignored. Resolving is cheap (each object is visited once); compiling the
// schemas stays lazy (lib/schema/compiler.ts).
//
// Not walked: callbacks and webhooks (not served), discriminator `mapping` values (one that points nowhere
// leaves plain oneOf/anyOf, still validated), Link `operationRef` (a link is documentation, never followed).
import { dirname, isAbsolute, relative } from 'node:path';
import { Errors, svcError } from '../util/errors.js';
import type { Contract } from './load.js';
import { declaredOperations, OPERATION_FIELDS } from './methods.js';
import { escapePointerToken, isRef, MAX_HOPS, RefError, type Located } from './refs.js';
import { ONE_SUBSCHEMA, SUBSCHEMA_LIST, SUBSCHEMA_MAP } from './schema-keywords.js';

type Json = Record<string, unknown>;

/**
 * A value, the document it is in, and where it is: under `parent` at the (unescaped) `key`, or, without a
 * parent, at `key` as written in messages (`openapi.yaml#/paths/~1pets`). The text is only made for a message.
 */
interface Place {
  value: unknown;
  uri: string;
  parent: Place | undefined;
  key: string;
}

/** How a schema keyword holds subschemas. */
const SUBSCHEMAS = new Map<string, 'one' | 'list' | 'map'>([
  ...ONE_SUBSCHEMA.map((k) => [k, 'one'] as const),
  ...SUBSCHEMA_LIST.map((k) => [k, 'list'] as const),
  ...SUBSCHEMA_MAP.map((k) => [k, 'map'] as const),
]);

/** Fails startup (SPEC_REF_UNRESOLVED) at the first `$ref` reachable from a served operation that does not resolve. */
export function checkReferences(contract: Contract): void {
  new ReferenceCheck(contract).run();
}

class ReferenceCheck {
  /** Objects already walked: shared components are walked once, and recursive schemas end. */
  private readonly seen = new Set<object>();
  private readonly rootDir: string | undefined;
  private readonly v30: boolean;
  /** The operation the walk is in, for messages (`POST /pets`). */
  private reachedFrom = '';

  constructor(private readonly contract: Contract) {
    this.rootDir = isUrl(contract.uri) ? undefined : dirname(contract.uri);
    this.v30 = contract.version === '3.0';
  }

  run(): void {
    const { doc, uri } = this.contract;
    const paths: Place = { value: doc.paths, uri, parent: undefined, key: `${this.display(uri, '')}/paths` };
    for (const [path, raw] of Object.entries(doc.paths ?? {})) {
      this.reachedFrom = `path ${path}`;
      const item = this.follow(child(paths, raw, path));
      if (!isObject(item.value)) continue;
      for (const { method, value } of declaredOperations(item.value, this.contract.version, path)) {
        this.reachedFrom = `${method} ${path}`;
        const fixed = OPERATION_FIELDS.has(method.toLowerCase()) && item.value[method.toLowerCase()] === value;
        this.list(item, 'parameters', (p) => this.parameter(p));
        this.operation(this.follow(fixed ? child(item, value, method.toLowerCase()) : child(child(item, item.value.additionalOperations, 'additionalOperations'), value, method)));
      }
    }
  }

  private operation(op: Place): void {
    if (!isObject(op.value)) return;
    this.list(op, 'parameters', (p) => this.parameter(p));
    const body = this.follow(child(op, op.value.requestBody, 'requestBody'));
    if (isObject(body.value)) this.content(child(body, body.value.content, 'content'));
    this.map(child(op, op.value.responses, 'responses'), (r) => this.response(this.follow(r)));
  }

  private parameter(raw: Place): void {
    const p = this.follow(raw);
    if (!this.firstVisit(p.value)) return;
    this.schema(child(p, p.value.schema, 'schema'));
    this.content(child(p, p.value.content, 'content'));
    this.examples(child(p, p.value.examples, 'examples'));
  }

  private response(r: Place): void {
    if (!this.firstVisit(r.value)) return;
    this.map(child(r, r.value.headers, 'headers'), (h) => this.header(h));
    this.content(child(r, r.value.content, 'content'));
    this.map(child(r, r.value.links, 'links'), (l) => void this.follow(l));
  }

  private header(raw: Place): void {
    const h = this.follow(raw);
    if (!this.firstVisit(h.value)) return;
    this.schema(child(h, h.value.schema, 'schema'));
    this.content(child(h, h.value.content, 'content'));
    this.examples(child(h, h.value.examples, 'examples'));
  }

  private content(content: Place): void {
    this.map(content, (entry) => {
      const media = this.follow(entry);
      if (!this.firstVisit(media.value)) return;
      this.schema(child(media, media.value.schema, 'schema'));
      this.schema(child(media, media.value.itemSchema, 'itemSchema'));
      this.examples(child(media, media.value.examples, 'examples'));
      this.map(child(media, media.value.encoding, 'encoding'), (e) => this.encoding(e));
    });
  }

  /** An Encoding Object (never a reference); 3.2 nests encodings for the parts of parts. */
  private encoding(e: Place): void {
    if (!this.firstVisit(e.value)) return;
    this.map(child(e, e.value.headers, 'headers'), (h) => this.header(h));
    this.map(child(e, e.value.encoding, 'encoding'), (n) => this.encoding(n));
    this.list(e, 'prefixEncoding', (n) => this.encoding(n));
    this.encoding(child(e, e.value.itemEncoding, 'itemEncoding'));
  }

  private examples(examples: Place): void {
    this.map(examples, (example) => void this.follow(example));
  }

  /** A schema and every schema it holds or references, as the validator's converter reads them. */
  private schema(place: Place): void {
    let node = place;
    if (node.value === null || typeof node.value !== 'object') return;
    if (isRef(node.value)) {
      if (!this.firstVisit(node.value)) return;
      const siblings = node;
      this.schema(this.follow(node));
      // 3.0: the siblings of a `$ref` are ignored; 3.1 and later: they apply beside it.
      if (this.v30) return;
      node = siblings;
    } else if (!this.firstVisit(node.value)) return;
    const schema = node.value as Json;
    for (const key in schema) {
      const value = schema[key];
      if (value === null || typeof value !== 'object') continue;
      const kind = SUBSCHEMAS.get(key) ?? (key === 'items' ? (Array.isArray(value) ? 'list' : 'one') : undefined);
      if (kind === 'one') this.schema(child(node, value, key));
      else if (kind === 'list') this.list(node, key, (s) => this.schema(s));
      else if (kind === 'map') this.map(child(node, value, key), (s) => this.schema(s));
      else if (key === 'dependencies') this.map(child(node, value, key), (s) => (Array.isArray(s.value) ? undefined : this.schema(s)));
    }
  }

  /** Follows a chain of `$ref`s; the value reached, with its place. A reference that does not resolve stops startup. */
  private follow(place: Place): Place {
    let current = place;
    for (let hops = 0; isRef(current.value); hops++) {
      const ref = current.value.$ref;
      let target: Located;
      try {
        if (hops >= MAX_HOPS) throw new RefError(ref, current.uri, 'reference chain is circular');
        target = this.contract.refs.resolveRef(ref, current.uri);
      } catch (err) {
        if (!(err instanceof RefError)) throw err;
        throw svcError(Errors.SPEC_REF_UNRESOLVED, `'${ref}'`, placeText(current), this.reachedFrom, err.reason);
      }
      // A target found by pointer is named by its document and pointer; one found by `$id`, by the reference.
      const at = target.pointer !== undefined ? this.display(target.uri, target.pointer) : ref.includes('#') ? ref : `${ref}#`;
      current = { value: target.value, uri: target.uri, parent: undefined, key: at };
    }
    return current;
  }

  private list(parent: Place, key: string, each: (item: Place) => void): void {
    const items = isObject(parent.value) ? parent.value[key] : undefined;
    if (!Array.isArray(items)) return;
    const place = child(parent, items, key);
    for (let i = 0; i < items.length; i++) each(child(place, items[i], String(i)));
  }

  private map(place: Place, each: (entry: Place) => void): void {
    if (!isObject(place.value) || Array.isArray(place.value)) return;
    const map = place.value;
    for (const key in map) each(child(place, map[key], key));
  }

  /** True the first time an object is met (a non-object is never walked). */
  private firstVisit(value: unknown): value is Json {
    if (!isObject(value) || this.seen.has(value)) return false;
    this.seen.add(value);
    return true;
  }

  /** `file#pointer`: the file relative to the contract's directory (absolute outside it), a URL as it is. */
  private display(uri: string, pointer: string): string {
    if (isUrl(uri) || this.rootDir === undefined) return `${uri}#${pointer}`;
    const rel = relative(this.rootDir, uri);
    const file = rel === '' || rel.startsWith('..') || isAbsolute(rel) ? uri : rel.split('\\').join('/');
    return `${file}#${pointer}`;
  }
}

function child(parent: Place, value: unknown, key: string): Place {
  return { value, uri: parent.uri, parent, key };
}

/** Where a place is, as a message says it: `openapi.yaml#/paths/~1pets/get/parameters/0`. */
function placeText(place: Place): string {
  const tokens: string[] = [];
  let at: Place = place;
  for (; at.parent !== undefined; at = at.parent) tokens.push(escapePointerToken(at.key));
  return [at.key, ...tokens.reverse()].join('/');
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object';
}

function isUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s);
}
