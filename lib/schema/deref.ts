// A `Deref` (the schema → schema function the XML codec and the binders take) over a whole contract.
// The codec's deref gets no document URI, so this one remembers which document every schema object came
// from: schemas from the root document need nothing; a schema reached in another file (`models.yaml#/Pet`)
// is tagged with that file, together with everything nested in it, the first time it is reached, so its
// own relative `$ref`s resolve against the right file.
import type { Contract } from '../contract/load.js';
import { discriminatorDispatch } from './discriminator.js';
import type { Deref, Schema } from '../codec/xml.js';

/** A discriminated `oneOf`/`anyOf` with its target schemas resolved (for binding to the picked branch's class). */
export interface SchemaDispatch {
  propertyName: string;
  targets: ReadonlyMap<string, Schema>;
  /** `defaultMapping`: for a value without the property or with one no target names. */
  fallback: Schema | undefined;
}

export interface ContractSchemas {
  /** One function per contract: the XML codec caches its compiled shapes per deref function. */
  readonly deref: Deref;
  /** Marks a schema found in document `uri` (an operation's body or response schema) and returns it. */
  enter(schema: unknown, uri: string): Schema | undefined;
  /** The discriminator dispatch of a schema holding `oneOf`/`anyOf`, if it has one (see validation/discriminator.ts). */
  dispatch(schema: Schema): SchemaDispatch | undefined;
}

const perContract = new WeakMap<Contract, ContractSchemas>();

/** The contract's one `ContractSchemas` (shared by validation, binding and mocks, so XML shapes compile once). */
export function contractSchemas(contract: Contract): ContractSchemas {
  let schemas = perContract.get(contract);
  if (schemas === undefined) {
    schemas = createContractSchemas(contract);
    perContract.set(contract, schemas);
  }
  return schemas;
}

function createContractSchemas(contract: Contract): ContractSchemas {
  const rootUri = contract.uri;
  const uris = new WeakMap<object, string>();

  const tag = (node: unknown, uri: string): void => {
    if (uri === rootUri) return;
    const pending: unknown[] = [node];
    while (pending.length > 0) {
      const next = pending.pop();
      if (next === null || typeof next !== 'object' || uris.has(next)) continue;
      uris.set(next, uri);
      for (const value of Object.values(next)) pending.push(value);
    }
  };

  const deref: Deref = (schema) => {
    if (typeof schema.$ref !== 'string') return schema;
    // One hop at a time, so callers see every schema of a chain (titles and xml hints on the way).
    const target = contract.refs.resolveRef(schema.$ref, uris.get(schema) ?? rootUri);
    if (!isSchema(target.value)) return schema;
    tag(target.value, target.uri);
    return target.value;
  };

  // A `$ref` schema of its own (not its target), so binding still sees the component name it names.
  const reference = (target: { ref: string; uri: string }): Schema => {
    const ref = { $ref: target.ref };
    tag(ref, target.uri);
    return ref;
  };

  return {
    deref,
    enter(schema, uri) {
      if (!isSchema(schema)) return undefined;
      tag(schema, uri);
      return schema;
    },
    dispatch(schema) {
      const found = discriminatorDispatch(schema, uris.get(schema) ?? rootUri, contract.refs);
      if (found === undefined) return undefined;
      const targets = new Map<string, Schema>();
      for (const [value, target] of found.targets) targets.set(value, reference(target));
      return { propertyName: found.propertyName, targets, fallback: found.fallback && reference(found.fallback) };
    },
  };
}

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
