// Which class a schema names (docs/binding.md): its `title`, else the component name from
// `$ref: '#/components/schemas/<Name>'`. Along a `$ref` chain every title and component name is a
// candidate, the referring (outer) ones first, and the first one that has a class wins.
import { componentName, type Deref, type Schema } from '../codec/xml.js';

const MAX_REF_HOPS = 32;

export interface NamedSchema {
  /** The schema at the end of the `$ref` chain. */
  schema: Schema;
  /** Candidate class names, most specific first: titles (outer first), then component names (outer first). */
  names: string[];
}

export function followRefs(schema: Schema, deref: Deref): NamedSchema {
  const titles: string[] = [];
  const components: string[] = [];
  let current = schema;
  for (let hops = 0; ; hops++) {
    if (typeof current.title === 'string' && current.title !== '') titles.push(current.title);
    if (typeof current.$ref !== 'string' || hops >= MAX_REF_HOPS) break;
    const name = componentName(current.$ref);
    if (name !== undefined) components.push(name);
    const next = deref(current);
    if (next === current) break;
    current = next;
  }
  return { schema: current, names: titles.length === 0 ? components : [...titles, ...components] };
}

/** The first candidate name that has a class. */
export function classNamed<T>(names: readonly string[], classes: ReadonlyMap<string, T>): T | undefined {
  for (const name of names) {
    const found = classes.get(name);
    if (found !== undefined) return found;
  }
  return undefined;
}
