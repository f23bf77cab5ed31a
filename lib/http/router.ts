// The radix router compiled from the contract once at startup (find-my-way). All paths live in one tree
// under a single method; each leaf holds the operations of every method, so 405 + Allow costs nothing extra.
import FindMyWay from 'find-my-way';

export interface Candidate<T> {
  target: T;
  /** Contract names of the path parameters, in order (router keys are p0, p1, ...). */
  paramNames: string[];
  /** `#name[=value]` from the path key: the query that selects this operation among same-path twins. */
  queryDiscriminator: { name: string; value: string | undefined } | undefined;
}

export interface PathEntry<T> {
  byMethod: Record<string, Candidate<T>[]>;
  /** The `Allow` header value for 405 answers. */
  allow: string;
}

export interface PathMatch<T> {
  entry: PathEntry<T>;
  params: Record<string, string | undefined>;
}

const ALLOW_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'];
export const PARAM_KEYS = Array.from({ length: 64 }, (_, i) => `p${i}`);

/** `/pet/{petId}` → `/pet/:p0` (and the names), escaping find-my-way's `:` and `*` in literal text. */
export function toRouterPath(template: string): { path: string; paramNames: string[] } {
  const paramNames: string[] = [];
  let path = '';
  let last = 0;
  let stars = 0;
  // A literal `*` would be a wildcard to find-my-way: it becomes a parameter (w0, w1...) matching only `*`.
  const literal = (text: string): string => text.replace(/:/g, '::').replace(/\*/g, () => `:w${stars++}(\\*)`);
  const re = /\{([^{}]+)\}/g;
  for (let m = re.exec(template); m !== null; m = re.exec(template)) {
    path += literal(template.slice(last, m.index)) + `:${PARAM_KEYS[paramNames.length] ?? `p${paramNames.length}`}`;
    paramNames.push(m[1]!);
    last = m.index + m[0].length;
    // find-my-way ends a parameter name only at '/', '-', '.' or the end; other literal text right after a
    // parameter (`({id})`, `{name}:cancel`, `{a}{b}`) needs an explicit lazy pattern to end the name.
    const next = template[last];
    if (next !== undefined && next !== '/' && next !== '-' && next !== '.') path += '(.*?)';
  }
  path += literal(template.slice(last));
  return { path: path.startsWith('/') ? path : `/${path}`, paramNames };
}

/** Paths of plain unreserved characters: a request path equal to one means that very route (no decoding, no parameter). */
const PLAIN_PATH = /^[A-Za-z0-9\-._~/]+$/;
const NO_PARAMS: Record<string, string | undefined> = Object.freeze({});

export class Router<T> {
  private readonly tree = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 8192 });
  private readonly entries = new Map<string, PathEntry<T>>();
  /** Parameterless plain paths, found by one lookup before the tree walk (static routes win there too). */
  private readonly plain = new Map<string, PathMatch<T>>();
  /**
   * The lengths the plain paths have: a path of another length skips the lookup, which would hash it (a
   * request path is a new string each time, so V8 computes its hash anew for every request).
   */
  private plainLengths = new Uint8Array(0);

  /** Adds a target; returns false when the path already had one for this method (the earlier one wins). */
  add(method: string, template: string, target: T, queryDiscriminator?: Candidate<T>['queryDiscriminator']): boolean {
    const { path, paramNames } = toRouterPath(template);
    const key = path.length > 1 ? path.replace(/\/+$/, '') : path;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { byMethod: Object.create(null) as Record<string, Candidate<T>[]>, allow: '' };
      this.entries.set(key, entry);
      this.tree.on('GET', key, () => {}, entry);
      if (paramNames.length === 0 && PLAIN_PATH.test(key)) this.addPlain(key, entry);
    }
    const first = entry.byMethod[method] === undefined;
    (entry.byMethod[method] ??= []).push({ target, paramNames, queryDiscriminator });
    const methods = new Set(Object.keys(entry.byMethod));
    if (methods.has('GET')) methods.add('HEAD');
    // Then QUERY and any other method (OpenAPI 3.2 `additionalOperations`) in the order they were added.
    entry.allow = [...ALLOW_ORDER.filter((m) => methods.has(m)), ...[...methods].filter((m) => !ALLOW_ORDER.includes(m))].join(', ');
    return first;
  }

  private addPlain(key: string, entry: PathEntry<T>): void {
    this.plain.set(key, { entry, params: NO_PARAMS });
    if (key.length >= this.plainLengths.length) {
      const grown = new Uint8Array(key.length + 1);
      grown.set(this.plainLengths);
      this.plainLengths = grown;
    }
    this.plainLengths[key.length] = 1;
  }

  find(path: string): PathMatch<T> | undefined {
    if (this.plainLengths[path.length] === 1) {
      const plain = this.plain.get(path);
      if (plain !== undefined) return plain;
    }
    const found = this.tree.find('GET', path);
    return found ? { entry: found.store as PathEntry<T>, params: found.params } : undefined;
  }
}

/** Picks among same-method twins by their query discriminator; the one without a discriminator is the fallback. */
export function pickCandidate<T>(candidates: readonly Candidate<T>[], query: string): Candidate<T> {
  if (candidates.length === 1) return candidates[0]!;
  const params = new URLSearchParams(query);
  let fallback: Candidate<T> | undefined;
  for (const c of candidates) {
    const d = c.queryDiscriminator;
    if (!d) fallback ??= c;
    else if (params.has(d.name) && (d.value === undefined || params.get(d.name) === d.value)) return c;
  }
  return fallback ?? candidates[0]!;
}
