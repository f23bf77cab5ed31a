// Our own $ref resolver. It only follows references where the caller asks (reference positions), so
// `$ref` keys inside example values are never fetched, and it never pre-expands, so circular schemas load.
import { readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Errors, SvcError } from '../util/errors.js';
import { percentDecoded } from '../http/percent.js';
import type { OpenApiVersion } from './version.js';
import { parseDocument } from './parse.js';

/** A value together with the URI of the document it was found in (relative refs resolve against it). */
export interface Located<T = unknown> {
  value: T;
  uri: string;
  /** The JSON Pointer of the value in that document, when a reference reached it by pointer (not by `$id`/anchor). */
  pointer?: string;
}

/** A `$ref` that does not resolve: the catalogue's SPEC_REF, with the reference and the reason kept apart. */
export class RefError extends SvcError {
  constructor(
    readonly ref: string,
    readonly base: string,
    readonly reason: string,
  ) {
    super(Errors.SPEC_REF, [ref, base, reason]);
  }
}

/** The longest `$ref` chain followed: a longer one is circular. */
export const MAX_HOPS = 64;

export class RefResolver {
  private readonly docs = new Map<string, unknown>();
  private readonly rootDir: string | undefined;
  private realRootDir: string | undefined;
  private idIndex: Map<string, Located> | undefined;

  /** OpenAPI 3.2 `$self`: each document's base URI (absolute, no fragment), and the document of each. */
  private readonly bases = new Map<string, string>();
  private readonly bySelf = new Map<string, string>();
  /** The entry document's `$self` and its local file: URIs under that base are files beside it. */
  private mount: { base: URL; file: string } | undefined;

  constructor(readonly rootUri: string, rootDoc: unknown, readonly dialect: OpenApiVersion) {
    this.docs.set(rootUri, rootDoc);
    this.rootDir = isUrl(rootUri) ? undefined : dirname(rootUri);
    if (dialect === '3.2') {
      const base = this.identify(rootUri, rootDoc, undefined);
      if (base !== undefined) this.mount = { base: new URL(base), file: rootUri };
    }
  }

  /**
   * Records a 3.2 document's base URI: its `$self` (resolved against the URI it was reached by, or its
   * retrieval URI), else the URI it was reached by. Returns it.
   */
  private identify(docUri: string, doc: unknown, reachedAs: string | undefined): string | undefined {
    const self = doc !== null && typeof doc === 'object' ? (doc as { $self?: unknown }).$self : undefined;
    const base = typeof self === 'string' ? withoutFragment(safeUrl(self, reachedAs ?? docUri)) : reachedAs;
    if (base === undefined) return undefined;
    this.bases.set(docUri, base);
    if (!this.bySelf.has(base)) this.bySelf.set(base, docUri);
    return base;
  }

  /**
   * A reference in a document with a base URI (3.2 `$self`): resolved against that base, the absolute URI
   * names a known document (`$self` + fragment is the document itself), a schema `$id`, or a file: one under
   * the entry document's `$self` is the same relative path beside the entry file (the document stands for
   * its `$self`). Returns the resource found by `$id`, the document's local URI, or undefined when the base
   * says nothing (the reference is then resolved as in 3.1).
   */
  private resolveBySelf(target: string, base: string, fragment: string, ref: string, uri: string): Located | string | undefined {
    const absolute = withoutFragment(safeUrl(target, base));
    if (absolute === undefined) return undefined;
    const known = this.bySelf.get(absolute);
    if (known !== undefined) return known;
    const byId = this.findById(absolute, uri);
    if (byId) return this.withinResource(byId, absolute, fragment, ref, uri);
    const relativePath = this.mountedPath(absolute);
    if (relativePath === undefined) return undefined;
    const docUri = this.documentUri(relativePath, this.mount!.file, ref);
    if (!this.docs.has(docUri)) {
      const doc = this.readDocument(docUri, ref, uri);
      this.docs.set(docUri, doc);
      this.identify(docUri, doc, absolute);
      this.idIndex = undefined; // the new document may hold $ids
    }
    return docUri;
  }

  /** The path of `absolute` relative to the entry document's `$self` (percent-encoded), when it is under its origin. */
  private mountedPath(absolute: string): string | undefined {
    if (this.mount === undefined) return undefined;
    const url = new URL(absolute);
    const { base } = this.mount;
    if (url.protocol !== base.protocol || url.host !== base.host) return undefined;
    const relativePath = posix.relative(posix.dirname(base.pathname), url.pathname);
    return relativePath === '' ? undefined : relativePath;
  }

  get root(): unknown {
    return this.docs.get(this.rootUri);
  }

  /** The local files read so far: the contract and every file a `$ref` reached (watch mode watches them). */
  localFiles(): string[] {
    return [...this.docs.keys()].filter((uri) => !isUrl(uri));
  }

  /**
   * Follows a chain of `$ref`s starting at `value` (found in document `uri`). Non-refs come back as they are.
   * `followed` hears each `$ref` taken, in order: the last names where the value was found.
   */
  deref<T = unknown>(value: unknown, uri: string = this.rootUri, followed?: (ref: string) => void): Located<T> {
    let current: Located = { value, uri };
    for (let hops = 0; isRef(current.value); hops++) {
      const ref = current.value.$ref;
      if (hops >= MAX_HOPS) throw new RefError(ref, current.uri, 'reference chain is circular');
      followed?.(ref);
      current = this.resolveRef(ref, current.uri);
    }
    return current as Located<T>;
  }

  /** Resolves one `$ref` string relative to the document `uri`. */
  resolveRef(ref: string, uri: string): Located {
    const hash = ref.indexOf('#');
    const target = hash === -1 ? ref : ref.slice(0, hash);
    const fragment = hash === -1 ? '' : ref.slice(hash + 1);
    let docUri = uri;
    const base = target === '' ? undefined : this.bases.get(uri);
    const bySelf = base === undefined ? undefined : this.resolveBySelf(target, base, fragment, ref, uri);
    if (typeof bySelf === 'object') return bySelf;
    if (bySelf !== undefined) docUri = bySelf;
    else if (target !== '') {
      docUri = this.documentUri(target, uri, ref);
      if (!this.docs.has(docUri)) {
        const byId = this.dialect !== '3.0' ? this.findById(target, uri) : undefined;
        if (byId) return this.withinResource(byId, target, fragment, ref, uri);
        this.docs.set(docUri, this.readDocument(docUri, ref, uri));
      }
    }
    const doc = this.docs.get(docUri);
    if (fragment === '' || fragment === '/') return { value: doc, uri: docUri, pointer: '' };
    if (!fragment.startsWith('/')) {
      // 3.1 plain-name fragment (`#foo` anchors) are looked up through the $id/$anchor index.
      const anchored = this.dialect !== '3.0' ? this.findById(`${docUri}#${fragment}`, uri) : undefined;
      if (anchored) return anchored;
      throw new RefError(ref, uri, 'fragment is not a JSON pointer');
    }
    return { value: evaluatePointer(doc, fragment, ref, uri), uri: docUri, pointer: percentDecoded(fragment) ?? fragment };
  }

  /** A fragment of a schema resource found by its 3.1 `$id`: a JSON pointer into it, or one of its anchors. */
  private withinResource(resource: Located, id: string, fragment: string, ref: string, uri: string): Located {
    if (fragment === '' || fragment === '/') return resource;
    if (fragment.startsWith('/')) return { value: evaluatePointer(resource.value, fragment, ref, uri), uri: resource.uri };
    const anchored = this.findById(`${id}#${fragment}`, uri);
    if (anchored) return anchored;
    throw new RefError(ref, uri, `no $anchor ${fragment} in ${id}`);
  }

  private documentUri(target: string, base: string, ref: string): string {
    if (isUrl(target)) return target;
    if (isUrl(base)) return new URL(target, base).href;
    if (target.startsWith('file:')) return target.startsWith('file://') ? fileURLToPath(target) : target.slice(5);
    const path = isAbsolute(target) ? target : resolve(dirname(base), percentDecoded(target) ?? target);
    // A relative ref may not read outside the contract's own directory tree (docs/configuration.md#contracts), also not through a
    // symlink inside the tree: both sides are compared as real paths.
    if (this.rootDir && !isAbsolute(target)) {
      this.realRootDir ??= realPath(this.rootDir);
      const rel = relative(this.realRootDir, realPath(path));
      if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw new RefError(ref, base, 'it points outside the contract directory');
    } else if (isAbsolute(target)) {
      throw new RefError(ref, base, 'absolute paths must be written as file: URLs');
    }
    return path;
  }

  private readDocument(docUri: string, ref: string, base: string): unknown {
    if (isUrl(docUri)) throw new RefError(ref, base, 'remote references are not fetched');
    let text: string;
    try {
      text = readFileSync(docUri, 'utf8');
    } catch (err) {
      throw new RefError(ref, base, (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message);
    }
    try {
      return parseDocument(text);
    } catch (err) {
      throw new RefError(ref, base, (err as Error).message);
    }
  }

  /** 3.1 `$id`/`$anchor` lookup; the index is built on first use only. */
  private findById(id: string, base: string): Located | undefined {
    if (!this.idIndex) {
      this.idIndex = new Map();
      for (const [uri, doc] of this.docs) indexIds(doc, uri, this.bases.get(uri) ?? uri, this.idIndex, new Set());
    }
    const absolute = isUrl(base) || isUrl(id) ? safeUrl(id, base) : id;
    return this.idIndex.get(id) ?? (absolute ? this.idIndex.get(absolute) : undefined);
  }
}

/** Indexes `$id`s and `$anchor`s; `scope` is the base URI of the enclosing `$id` (the document's at the top). */
function indexIds(node: unknown, uri: string, scope: string, index: Map<string, Located>, seen: Set<unknown>): void {
  if (node === null || typeof node !== 'object' || seen.has(node)) return;
  seen.add(node);
  const obj = node as Record<string, unknown>;
  if (typeof obj.$id === 'string') {
    scope = safeUrl(obj.$id, scope) ?? obj.$id;
    index.set(obj.$id, { value: node, uri });
    index.set(scope, { value: node, uri });
  }
  if (typeof obj.$anchor === 'string') index.set(`${scope}#${obj.$anchor}`, { value: node, uri });
  for (const key in obj) indexIds(obj[key], uri, scope, index, seen);
}

/** The real path of an existing file (symlinks resolved); a missing file stays as it is (reading it fails later). */
function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function isRef(value: unknown): value is { $ref: string } {
  return value !== null && typeof value === 'object' && typeof (value as { $ref?: unknown }).$ref === 'string';
}

/** One JSON Pointer reference token (RFC 6901): `~` as `~0`, `/` as `~1`. */
export function escapePointerToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON Pointer reference token read back: `~1` as `/`, then `~0` as `~` (RFC 6901 §4, in that order). */
export function unescapePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

function isUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) && !s.startsWith('file:');
}

function withoutFragment(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const hash = url.indexOf('#');
  return hash === -1 ? url : url.slice(0, hash);
}

function safeUrl(id: string, base: string): string | undefined {
  try {
    return new URL(id, isUrl(base) || base.startsWith('file:') ? base : `file://${base}`).href;
  } catch {
    return undefined;
  }
}

/** RFC 6901 pointer, given as a URI fragment (percent-decoded first). */
export function evaluatePointer(doc: unknown, fragment: string, ref: string, uri: string): unknown {
  let node = doc;
  const decoded = percentDecoded(fragment) ?? fragment;
  for (const raw of decoded.slice(1).split('/')) {
    const token = unescapePointerToken(raw);
    if (node === null || typeof node !== 'object' || !Object.prototype.hasOwnProperty.call(node, token)) {
      throw new RefError(ref, uri, `no value at ${decoded}`);
    }
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}
