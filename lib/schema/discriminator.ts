// `discriminator` with `oneOf`/`anyOf` (OpenAPI 3.x): which branch a value's property picks. Explicit
// `mapping` entries (references or bare schema names) come first, then each `$ref` branch's schema name.
// An "embedded" discriminator, declared on a base schema every branch includes through `allOf`, counts too.
// When some branch cannot be picked by any value, or no schema involved declares the property, there is
// no dispatch and plain `oneOf`/`anyOf` semantics stay (a misplaced discriminator is not an error).
// OpenAPI 3.2 adds `defaultMapping` (the schema for a value whose property is absent or maps to nothing;
// honoured in every version) and lets the property be optional: in a 3.2 contract whose schemas do not
// require it, a value without it is checked against the plain `oneOf`/`anyOf` (unless `defaultMapping` says).
import { isRef, unescapePointerToken, type Located, type RefResolver } from '../contract/refs.js';
import { percentDecoded } from '../http/percent.js';
import { shapeOf } from './coerce.js';

type Json = Record<string, unknown>;

/** A schema a discriminator value leads to: its reference and the document that reference resolves in. */
export interface DispatchTarget {
  ref: string;
  uri: string;
}

export interface Dispatch {
  /** The keyword the dispatch replaces. */
  keyword: 'oneOf' | 'anyOf';
  propertyName: string;
  /** Discriminator value → the branch schema's reference (and the document it resolves in). */
  targets: Map<string, DispatchTarget>;
  /** `defaultMapping`: the schema for a value without the property, or with a value no target names. */
  fallback: DispatchTarget | undefined;
  /** 3.2: the property may be absent (no schema requires it); without `fallback`, plain `oneOf`/`anyOf` then decides. */
  optional: boolean;
}

interface Discriminator {
  propertyName: string;
  mapping: Json | undefined;
  defaultMapping: string | undefined;
  uri: string;
}

export function discriminatorDispatch(node: Json, uri: string, refs: RefResolver): Dispatch | undefined {
  const keyword = Array.isArray(node.oneOf) ? 'oneOf' : Array.isArray(node.anyOf) ? 'anyOf' : undefined;
  if (keyword === undefined) return undefined;
  const branches = node[keyword] as unknown[];
  try {
    const resolved = branches.map((b) => refs.deref<Json | null>(b, uri));
    const disc = ownDiscriminator(node, uri) ?? sharedDiscriminator(resolved, refs);
    if (disc === undefined) return undefined;
    const targets = new Map<string, DispatchTarget>();
    for (const [value, target] of Object.entries(disc.mapping ?? {})) {
      if (typeof target === 'string') targets.set(value, { ref: schemaRef(target), uri: disc.uri });
    }
    for (const branch of branches) {
      if (!isRef(branch)) continue;
      // The schema name: the $ref's last JSON Pointer token, percent-decoded then unescaped (RFC 6901 §6), and
      // kept as written when it does not decode, as the resolver reads it (evaluatePointer).
      const token = branch.$ref.slice(branch.$ref.lastIndexOf('/') + 1);
      const name = unescapePointerToken(percentDecoded(token) ?? token);
      if (!targets.has(name)) targets.set(name, { ref: branch.$ref, uri });
    }
    const fallback = disc.defaultMapping === undefined ? undefined : { ref: schemaRef(disc.defaultMapping), uri: disc.uri };
    const reached = new Set([...targets.values(), ...(fallback ? [fallback] : [])].map((t) => derefRef(t.ref, t.uri, refs).value));
    const pickable = resolved.every((b) => reached.has(b.value));
    // The property must exist somewhere (the schema itself or its branches), or the discriminator is misplaced.
    const declared = shapeOf(node, uri, refs).propertyNames.includes(disc.propertyName);
    if (targets.size === 0 || !pickable || !declared) return undefined;
    const optional = refs.dialect === '3.2' && !requires(node, uri, resolved, disc.propertyName, refs);
    return { keyword, propertyName: disc.propertyName, targets, fallback, optional };
  } catch {
    return undefined; // a mapping or branch that points nowhere: plain oneOf/anyOf
  }
}

/** A `mapping`/`defaultMapping` value: a reference, or a bare name under `components/schemas`. */
export function schemaRef(target: string): string {
  return /[/#]/.test(target) ? target : `#/components/schemas/${target}`;
}

function ownDiscriminator(node: Json, uri: string): Discriminator | undefined {
  const disc = node.discriminator as Json | undefined;
  if (!disc || typeof disc.propertyName !== 'string') return undefined;
  const defaultMapping = typeof disc.defaultMapping === 'string' && disc.defaultMapping !== '' ? disc.defaultMapping : undefined;
  return { propertyName: disc.propertyName, mapping: disc.mapping as Json | undefined, defaultMapping, uri };
}

/** True when the schema, or every one of its branches, lists the property in `required` (also through `allOf`). */
function requires(node: Json, uri: string, branches: Located<Json | null>[], name: string, refs: RefResolver): boolean {
  const lists = (schema: Json | null, at: string): boolean => {
    if (!schema || typeof schema !== 'object') return false;
    if (Array.isArray(schema.required) && schema.required.includes(name)) return true;
    const parts = Array.isArray(schema.allOf) ? schema.allOf : [];
    return parts.some((p) => {
      const part = refs.deref<Json | null>(p, at);
      return Boolean(part.value && Array.isArray(part.value.required) && part.value.required.includes(name));
    });
  };
  return lists(node, uri) || (branches.length > 0 && branches.every((b) => lists(b.value, b.uri)));
}

/** The discriminator every branch inherits through `allOf` from a base schema, if they all agree on one. */
function sharedDiscriminator(branches: Located<Json | null>[], refs: RefResolver): Discriminator | undefined {
  let shared: Discriminator | undefined;
  for (const branch of branches) {
    const parts = Array.isArray(branch.value?.allOf) ? branch.value.allOf : [];
    const found = parts
      .map((p) => refs.deref<Json | null>(p, branch.uri))
      .map((p) => (p.value ? ownDiscriminator(p.value, p.uri) : undefined))
      .find((d) => d !== undefined);
    if (found === undefined || (shared !== undefined && shared.propertyName !== found.propertyName)) return undefined;
    shared ??= found;
  }
  return shared;
}

export function derefRef(ref: string, uri: string, refs: RefResolver): Located {
  const target = refs.resolveRef(ref, uri);
  return refs.deref(target.value, target.uri);
}
