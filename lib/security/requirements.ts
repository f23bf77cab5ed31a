// The contract's security requirements (clientSecurityValidation: true), compiled per operation at startup:
// the operation's `security` (or the root's) is a list of requirement objects, any one of which must be met
// in full (OR of ANDs); an empty object means anonymous access is allowed, and then the operation gets no
// stage at all. A request that meets none is answered before its body is read: 401 with one
// WWW-Authenticate challenge per scheme of the requirement it came closest to (403 when all it lacked was
// a token's scopes), and nothing reaches the route, the mock or the backend.
import type { IncomingMessage } from 'node:http';
import type { Contract } from '../contract/load.js';
import type { Operation } from '../contract/operations.js';
import { Errors, SvcError, svcError } from '../util/errors.js';
import type { Authenticate } from '../message/stages.js';
import { Admission, setPrincipal } from '../message/principal.js';
import { RequestCredentials } from './request-credentials.js';
import { LACKS_SCOPE, type CompiledScheme, type Outcome, type SchemeCheck } from './schemes.js';

/** The compiled scheme of that name; throws the startup error when the contract declares none (`where` names the operation). */
export type SchemeLookup = (name: string, where: string) => CompiledScheme;

type Requirement = readonly { scheme: CompiledScheme; check: SchemeCheck }[];

/** The operation's effective `security`: its own, else the root's; undefined when neither declares one. */
export function declaredSecurity(op: Operation, contract: Contract): unknown {
  const own = op.source.value.security;
  return own !== undefined ? own : contract.doc.security;
}

/** Whether a `security` value asks for anything: a non-empty list without an empty (anonymous) requirement. */
export function requiresCredentials(security: unknown): boolean {
  return Array.isArray(security) && security.length > 0 && !security.some((r) => r !== null && typeof r === 'object' && Object.keys(r).length === 0);
}

/**
 * The authenticate stage of one operation, or undefined when it is open to anyone. Every scheme a
 * requirement names must be one of `schemes`: a contract that names another fails startup.
 */
export function compileRequirements(op: Operation, contract: Contract, schemes: SchemeLookup): Authenticate | undefined {
  const security = declaredSecurity(op, contract);
  const where = `${op.method} ${op.path} (${op.id})`;
  if (security === undefined) return undefined;
  if (!Array.isArray(security)) throw svcError(Errors.SECURITY_SCHEME, `${where}: security is not a list of requirement objects`);
  const requirements: Requirement[] = [];
  for (const raw of security) {
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw svcError(Errors.SECURITY_SCHEME, `${where}: a security requirement is not an object`);
    const requirement = [];
    for (const [name, scopes] of Object.entries(raw as Record<string, unknown>)) {
      const scheme = schemes(name, where);
      if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) throw svcError(Errors.SECURITY_SCHEME, `${where}: the scopes of ${name} are not a list of strings`);
      requirement.push({ scheme, check: scheme.check(scopes as string[]) });
    }
    if (requirement.length === 0) return undefined;
    requirements.push(requirement);
  }
  if (requirements.length === 0) return undefined;
  return (authorization, req) => evaluate(requirements, new RequestCredentials(authorization, req));
}

/** Requirement by requirement, in order; synchronous until a check must wait (a token to verify, bcrypt). */
function evaluate(requirements: readonly Requirement[], credentials: RequestCredentials): Admission | Promise<Admission> {
  const tried: Outcome[][] = [];
  for (let r = 0; r < requirements.length; r++) {
    const requirement = requirements[r]!;
    const outcomes: Outcome[] = [];
    for (let s = 0; s < requirement.length; s++) {
      const outcome = requirement[s]!.check(credentials);
      if (outcome instanceof Promise) return evaluateLater(requirements, credentials, tried, r, outcomes, outcome);
      outcomes.push(outcome);
    }
    if (outcomes.every((o) => o.met)) return admit(credentials.req, outcomes);
    tried.push(outcomes);
  }
  throw refusal(requirements, tried);
}

async function evaluateLater(requirements: readonly Requirement[], credentials: RequestCredentials, tried: Outcome[][], from: number, started: Outcome[], pending: Promise<Outcome>): Promise<Admission> {
  for (let r = from; r < requirements.length; r++) {
    const requirement = requirements[r]!;
    const outcomes = r === from ? [...started, await pending] : [];
    for (let s = outcomes.length; s < requirement.length; s++) outcomes.push(await requirement[s]!.check(credentials));
    if (outcomes.every((o) => o.met)) return admit(credentials.req, outcomes);
    tried.push(outcomes);
  }
  throw refusal(requirements, tried);
}

function admit(req: IncomingMessage, outcomes: readonly Outcome[]): Admission {
  let principal: string | undefined;
  let token: unknown;
  for (const o of outcomes) {
    if (!o.met) continue;
    principal ??= o.principal;
    token ??= o.token;
  }
  if (principal !== undefined) setPrincipal(req, principal);
  return new Admission(principal, token);
}

/**
 * The answer for a request that met no requirement, from the one it came closest to: the most schemes met,
 * then the most refused rather than missing (first on a tie). 503 when a key source was unavailable (the
 * facade cannot tell), 403 when all that requirement lacked was scopes, 401 otherwise.
 */
function refusal(requirements: readonly Requirement[], tried: readonly Outcome[][]): SvcError {
  let best = 0;
  let bestScore = -1;
  for (let r = 0; r < tried.length; r++) {
    let score = 0;
    // Schemes met first; among equals, how close the others came (refused or short of scopes beats missing).
    for (const o of tried[r]!) score += o.met ? 1000 : o.closeness;
    if (score > bestScore) {
      best = r;
      bestScore = score;
    }
  }
  const outcomes = tried[best]!;
  const failed = outcomes.filter((o): o is Extract<Outcome, { met: false }> => !o.met);
  const unavailable = failed.find((o) => o.error !== undefined);
  if (unavailable !== undefined) return unavailable.error!;
  // A scheme of that requirement the request did meet still gets its challenge: the one it sends when missing.
  const challenges = outcomes.map((o, i) => (o.met ? requirements[best]![i]!.scheme.challenge : o.challenge));
  const headers = { 'www-authenticate': challenges };
  if (failed.every((o) => o.closeness === LACKS_SCOPE)) return new SvcError(Errors.INSUFFICIENT_SCOPE, [[...new Set(failed.flatMap((o) => o.scopes ?? []))].join(' ')], undefined, headers);
  return new SvcError(Errors.SECURITY_UNMET, [`${failed.map((o) => o.reason).join('; ')}.`], undefined, headers);
}
