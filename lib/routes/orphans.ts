// Orphan routes (docs/routes.md): a route consuming from `direct:x` where x is no operation of the contract and no
// other route sends to `direct:x` can never run. It is almost always a typo of an operationId (`getBooks` for
// `getBook`), which would otherwise leave that operation mocked or unmapped without a word about the route.
import { closestName } from '../util/closest-name.js';
import { Errors, svcError } from '../util/errors.js';
import type { RouteDefinition } from './steps.js';

const DIRECT = 'direct:';

/** Fails startup (ORPHAN_ROUTES) naming every orphan route with the closest operationId. */
export function checkOrphanRoutes(routes: readonly RouteDefinition[], operationIds: readonly string[]): void {
  const operations = new Set(operationIds);
  // Endpoints some route sends to; a route calling only itself is still unreachable.
  const called = new Set<string>();
  for (const route of routes) {
    for (const step of route.steps) if (step.kind === 'to' && step.uri.startsWith(DIRECT) && step.uri !== route.from) called.add(step.uri);
  }
  const orphans = routes.filter((r) => r.from.startsWith(DIRECT) && !operations.has(r.from.slice(DIRECT.length)) && !called.has(r.from));
  if (orphans.length === 0) return;
  const lines = orphans.map((r) => {
    const closest = closestName(r.from.slice(DIRECT.length), operationIds);
    const hint = closest === undefined ? 'the contract has no operations' : `did you mean ${DIRECT}${closest}?`;
    return `\n\t${r.from} (${r.source}): ${hint}`;
  });
  throw svcError(Errors.ORPHAN_ROUTES, orphans.length, lines.join(''));
}
