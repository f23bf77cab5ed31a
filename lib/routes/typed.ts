// Typed routes bound at startup (docs/typescript.md): each route `defineRoutes` marked (typed-api.ts) becomes
// its operation's route, compiled by typed-runtime.ts, or startup fails. The types hold only for requests
// validation checked against the contract, so typed routes need clientRequestValidation.
import type { Contract } from '../contract/load.js';
import type { Operation } from '../contract/operations.js';
import type { FacadeConfig } from '../config/model.js';
import { Errors, svcError } from '../util/errors.js';
import { markTyped, typedMarkOf } from './typed-api.js';
import { compileTypedRoute } from './typed-runtime.js';

/**
 * Startup: every typed route is bound to its operation (found by the route's own name), or startup fails:
 * a typed route under another name, for an operation the contract lacks, or without request validation
 * (the types hold only for requests checked against the contract).
 */
export function bindTypedRoutes(config: FacadeConfig, operations: readonly Operation[], contract: Contract): void {
  const byId = new Map(operations.map((op) => [op.id, op]));
  const typed: string[] = [];
  for (const def of config.routes) {
    const name = def.from.replace(/^direct:/, '');
    def.steps = def.steps.map((step) => {
      const marked = step.kind === 'process' ? typedMarkOf(step.fn) : undefined;
      if (marked === undefined) return step;
      if (marked.operationId !== name || def.steps.length !== 1) throw svcError(Errors.TYPED_ROUTE_ELSEWHERE, marked.operationId, `a step of ${def.from} (${def.source})`);
      const op = byId.get(name);
      if (op === undefined) throw svcError(Errors.TYPED_ROUTE_NO_OPERATION, def.from, name);
      typed.push(name);
      // Marked still: a configuration built into a facade again (workers) binds it anew.
      return { kind: 'process', fn: markTyped(compileTypedRoute(marked.route, op, contract), marked) };
    });
  }
  if (typed.length > 0 && config.rest.clientRequestValidation !== true) throw svcError(Errors.TYPED_ROUTES_NEED_VALIDATION, typed.sort().join(', '));
}
