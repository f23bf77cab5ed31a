// What a reload changed, operation by operation: added, removed, or changed (its contract, with every `$ref`
// followed into whatever file it points to, its disposition, or the text of its route's steps).
import type { RefResolver } from '../contract/refs.js';
import type { Operation } from '../contract/operations.js';
import type { RouteDefinition } from '../routes/steps.js';

/** Operations as `METHOD /full/path -> direct:id`, each list sorted. */
export interface OperationChanges {
  added: string[];
  removed: string[];
  changed: string[];
}

interface Served {
  operation: Operation;
  path: string;
  disposition: string;
}

interface Built {
  operations: readonly Served[];
  contract: { refs: RefResolver };
  config: { routes: readonly RouteDefinition[] };
}

export function operationChanges(before: Built, after: Built): OperationChanges {
  const old = fingerprints(before);
  const now = fingerprints(after);
  const changes: OperationChanges = { added: [], removed: [], changed: [] };
  for (const [key, print] of now) {
    const was = old.get(key);
    if (was === undefined) changes.added.push(key);
    else if (was !== print) changes.changed.push(key);
  }
  for (const key of old.keys()) if (!now.has(key)) changes.removed.push(key);
  for (const list of Object.values(changes)) list.sort();
  return changes;
}

/** The lines watch mode prints for a reload. */
export function describeChanges(changes: OperationChanges): string[] {
  const lines = [
    ...changes.added.map((op) => `added ${op}`),
    ...changes.removed.map((op) => `removed ${op}`),
    ...changes.changed.map((op) => `changed ${op}`),
  ];
  return lines.length > 0 ? lines : ['no operation changed'];
}

function fingerprints(built: Built): Map<string, string> {
  const routes = new Map(built.config.routes.map((def) => [def.from, def]));
  const out = new Map<string, string>();
  for (const { operation: op, path, disposition } of built.operations) {
    const contract = expand({ source: op.source.value, parameters: op.parameters.map((p) => ({ ...p, uri: undefined, schema: expand(p.schema, p.uri, built.contract.refs) })) }, op.source.uri, built.contract.refs);
    const route = routes.get(`direct:${op.id}`);
    out.set(`${op.method} ${path} -> direct:${op.id}`, JSON.stringify([disposition, contract, route ? routeText(route) : null]));
  }
  return out;
}

/** Nodes expanded per operation at most: past it the rest is compared as written, `$ref`s unfollowed. */
const BUDGET = 100_000;

/** `value` with every `$ref` replaced by what it points to; a reference back into its own chain stays as it is. */
function expand(value: unknown, uri: string, refs: RefResolver, chain: string[] = [], budget = { left: BUDGET }): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (--budget.left < 0) return value;
  if (Array.isArray(value)) return value.map((item) => expand(item, uri, refs, chain, budget));
  const obj = value as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    try {
      const target = refs.resolveRef(obj.$ref, uri);
      const key = `${target.uri}#${target.pointer ?? obj.$ref}`;
      if (chain.includes(key)) return { $ref: obj.$ref };
      return { ...expandEntries(obj, uri, refs, chain, budget), $ref: expand(target.value, target.uri, refs, [...chain, key], budget) };
    } catch {
      return obj; // an unresolvable reference failed the build already; nothing to compare beyond its text
    }
  }
  return expandEntries(obj, uri, refs, chain, budget);
}

function expandEntries(obj: Record<string, unknown>, uri: string, refs: RefResolver, chain: string[], budget: { left: number }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (k !== '$ref') out[k] = expand(v, uri, refs, chain, budget);
  return out;
}

/** A route's steps as text: functions by their source, and the route a typed-route wrapper carries. */
function routeText(def: RouteDefinition): string {
  return JSON.stringify(def.steps, (_key, value: unknown) => (typeof value === 'function' ? functionText(value) : value));
}

function functionText(fn: Function): string {
  const carried = Object.getOwnPropertySymbols(fn).map((symbol) => (fn as unknown as Record<symbol, unknown>)[symbol]);
  return [String(fn), ...carried.map((c) => JSON.stringify(c, (_k, v: unknown) => (typeof v === 'function' ? String(v) : v)))].join('\n');
}
