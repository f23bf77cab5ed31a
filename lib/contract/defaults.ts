// Query parameter defaults from the contract, applied to exchanges that lack them (docs/routes.md).
import type { Contract } from './load.js';
import type { Operation } from './operations.js';

/**
 * `[name, default]` of the operation's query parameters that have one. Typed (validation on) they are the
 * contract's values; otherwise scalars are text, as a query parameter the client sent would be.
 */
export function compileQueryDefaults(op: Operation, contract: Contract, typed = false): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const p of op.parameters) {
    if (p.in !== 'query') continue;
    const d = parameterDefault(p, contract);
    if (d !== undefined) out.push([p.name, typed || (d !== null && typeof d === 'object') ? d : String(d)]);
  }
  return out;
}

/** A parameter's schema `default`, as the contract writes it (not stringified); undefined without one. */
export function parameterDefault(param: Operation['parameters'][number], contract: Pick<Contract, 'refs'>): unknown {
  if (param.schema === undefined) return undefined;
  const schema = contract.refs.deref<Record<string, unknown> | null>(param.schema, param.uri).value;
  return schema !== null && typeof schema === 'object' ? schema.default : undefined;
}
