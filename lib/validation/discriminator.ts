// `discriminator` with `oneOf`/`anyOf` (OpenAPI 3.x): which branch a value's property picks. Explicit
// `mapping` entries (references or bare schema names) come first, then each `$ref` branch's schema name.
// An "embedded" discriminator, declared on a base schema every branch includes through `allOf`, counts too.
// When some branch cannot be picked by any value, or no schema involved declares the property, there is
// no dispatch and plain `oneOf`/`anyOf` semantics stay (a misplaced discriminator is not an error).
import { isRef, type Located, type RefResolver } from '../contract/refs.js';
import { shapeOf } from './coerce.js';

type Json = Record<string, unknown>;

export interface Dispatch {
  /** The keyword the dispatch replaces. */
  keyword: 'oneOf' | 'anyOf';
  propertyName: string;
  /** Discriminator value → the branch schema's reference (and the document it resolves in). */
  targets: Map<string, { ref: string; uri: string }>;
}

interface Discriminator {
  propertyName: string;
  mapping: Json | undefined;
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
    const targets = new Map<string, { ref: string; uri: string }>();
    for (const [value, target] of Object.entries(disc.mapping ?? {})) {
      if (typeof target === 'string') targets.set(value, { ref: /[/#]/.test(target) ? target : `#/components/schemas/${target}`, uri: disc.uri });
    }
    for (const branch of branches) {
      if (!isRef(branch)) continue;
      const name = decodeURIComponent(branch.$ref.slice(branch.$ref.lastIndexOf('/') + 1));
      if (!targets.has(name)) targets.set(name, { ref: branch.$ref, uri });
    }
    const reached = new Set([...targets.values()].map((t) => derefRef(t.ref, t.uri, refs).value));
    const pickable = resolved.every((b) => reached.has(b.value));
    // The property must exist somewhere (the schema itself or its branches), or the discriminator is misplaced.
    const declared = shapeOf(node, uri, refs).propertyNames.includes(disc.propertyName);
    return targets.size > 0 && pickable && declared ? { keyword, propertyName: disc.propertyName, targets } : undefined;
  } catch {
    return undefined; // a mapping or branch that points nowhere: plain oneOf/anyOf
  }
}

function ownDiscriminator(node: Json, uri: string): Discriminator | undefined {
  const disc = node.discriminator as Json | undefined;
  if (!disc || typeof disc.propertyName !== 'string') return undefined;
  return { propertyName: disc.propertyName, mapping: disc.mapping as Json | undefined, uri };
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

function derefRef(ref: string, uri: string, refs: RefResolver): Located {
  const target = refs.resolveRef(ref, uri);
  return refs.deref(target.value, target.uri);
}
