// What a reload changed, operation by operation: added, removed, or changed (its contract, with every `$ref`
// followed into whatever file it points to, its disposition, or the text of its route's steps).
import { createHash } from 'node:crypto';
import type { RefResolver } from '../contract/refs.js';
import type { Operation } from '../contract/operations.js';
import type { RouteDefinition } from '../config/route-definitions.js';

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

/** Each version's fingerprints, made once: the new version of one reload is the old one of the next. */
const made = new WeakMap<Built, Map<string, string>>();

function fingerprints(built: Built): Map<string, string> {
  let prints = made.get(built);
  if (prints === undefined) made.set(built, (prints = fingerprintsOf(built)));
  return prints;
}

function fingerprintsOf(built: Built): Map<string, string> {
  const routes = new Map(built.config.routes.map((def) => [def.from, def]));
  const contract = new ContractText(built.contract.refs);
  const out = new Map<string, string>();
  for (const { operation: op, path, disposition } of built.operations) {
    const parameters = op.parameters.map(({ uri, schema, media, ...rest }) => `${JSON.stringify(rest)}${contract.text(schema, uri)}${contract.text(media, uri)}`);
    const route = routes.get(`direct:${op.id}`);
    out.set(`${op.method} ${path} -> direct:${op.id}`, [disposition, contract.text(op.source.value, op.source.uri), ...parameters, route ? routeText(route) : ''].join('\n'));
  }
  return out;
}

/**
 * A contract value as text in which every `$ref` stands for a hash of what it points to, each target hashed
 * once: a change in a `$ref`'d file changes the text of every operation that reaches it, and the work stays
 * linear in the contract's size (Stripe's 2.8 MB included) where expanding the references is not.
 */
class ContractText {
  private readonly hashes = new Map<string, string>();
  private readonly open = new Set<string>();

  constructor(private readonly refs: RefResolver) {}

  text(value: unknown, uri: string): string {
    if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'undefined';
    if (Array.isArray(value)) return `[${value.map((item) => this.text(item, uri)).join(',')}]`;
    const obj = value as Record<string, unknown>;
    const entries = Object.keys(obj)
      .filter((k) => k !== '$ref')
      .map((k) => `${JSON.stringify(k)}:${this.text(obj[k], uri)}`);
    if (typeof obj.$ref === 'string') entries.push(`"$ref":${this.target(obj.$ref, uri)}`);
    return `{${entries.join(',')}}`;
  }

  /** The hash of what `ref` points to; a reference back into its own chain stands as its location. */
  private target(ref: string, uri: string): string {
    let located;
    try {
      located = this.refs.resolveRef(ref, uri);
    } catch {
      return JSON.stringify(ref); // unresolvable: the build failed on it already
    }
    const key = `${located.uri}#${located.pointer ?? ref}`;
    const known = this.hashes.get(key);
    if (known !== undefined) return known;
    if (this.open.has(key)) return JSON.stringify(key);
    this.open.add(key);
    const hash = `"${createHash('sha1').update(this.text(located.value, located.uri)).digest('base64')}"`;
    this.open.delete(key);
    this.hashes.set(key, hash);
    return hash;
  }
}

/** A route's steps as text: functions by their source, and the route a typed-route wrapper carries. */
function routeText(def: RouteDefinition): string {
  return JSON.stringify(def.steps, (_key, value: unknown) => (typeof value === 'function' ? functionText(value) : value));
}

function functionText(fn: Function): string {
  const carried = Object.getOwnPropertySymbols(fn).map((symbol) => (fn as unknown as Record<symbol, unknown>)[symbol]);
  return [String(fn), ...carried.map((c) => JSON.stringify(c, (_k, v: unknown) => (typeof v === 'function' ? String(v) : v)))].join('\n');
}
