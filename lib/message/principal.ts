// Who a request's credentials named (key owner, user, token `sub`, certificate subject), once the contract's
// security admitted it: kept on the request for the access log, and put on the exchange for routes and
// backends (lib/security/requirements.ts sets it).
import type { IncomingMessage } from 'node:http';

const PRINCIPAL = Symbol('svc.principal');
type IdentifiedRequest = IncomingMessage & { [PRINCIPAL]?: string };

export function setPrincipal(req: IncomingMessage, principal: string): void {
  (req as IdentifiedRequest)[PRINCIPAL] = principal;
}

/** The principal the request was admitted as; undefined when anonymous or not checked. */
export function principalOf(req: IncomingMessage): string | undefined {
  return (req as IdentifiedRequest)[PRINCIPAL];
}

/**
 * What the contract's security stage returns for an admitted request (the authenticate stage's value): the
 * principal, and the bearer token's validation result when a token was checked against the OAuth profile.
 */
export class Admission {
  constructor(
    readonly principal: string | undefined,
    readonly token: unknown,
  ) {}
}
