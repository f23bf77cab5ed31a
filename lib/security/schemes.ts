// The contract's security schemes (components.securitySchemes), each compiled once at startup into a check
// of one request: apiKey (header, query, cookie), http basic, bearer and any other http scheme, oauth2 and
// openIdConnect (bearer tokens), mutualTLS, or the embedder's handler for that scheme name. A check answers
// whether the scheme is met and, when not, how close the request came and the challenge to send.
import type { TLSSocket } from 'node:tls';
import { Errors, SvcError, svcError } from '../util/errors.js';
import { TOKEN } from '../http/fields.js';
import type { Authenticate } from '../message/stages.js';
import { Exchange, Headers } from '../message/exchange.js';
import type { ApiKeys } from './api-keys.js';
import { basicCredentials, type BasicUsers } from './basic.js';
import { isWellFormedBearer } from './bearer.js';
import type { SecurityHandler } from '../config/security-handler.js';
import type { RequestCredentials } from './request-credentials.js';

/** How close a request that did not meet a scheme came: nothing sent, something refused, authenticated without the scopes. */
export const MISSING = 0;
export const REFUSED = 1;
export const LACKS_SCOPE = 2;

export type Outcome =
  | { met: true; principal: string | undefined; token?: unknown }
  | {
      met: false;
      closeness: typeof MISSING | typeof REFUSED | typeof LACKS_SCOPE;
      /** What was wrong, for the problem detail; never the credential. */
      reason: string;
      /** The WWW-Authenticate challenge for this scheme. */
      challenge: string;
      /** LACKS_SCOPE: the scopes the requirement needs. */
      scopes?: readonly string[];
      /** An answer that overrides 401/403 (the token key source is unavailable: 503). */
      error?: SvcError;
    };

export type SchemeCheck = (credentials: RequestCredentials) => Outcome | Promise<Outcome>;

export interface CompiledScheme {
  readonly name: string;
  /** For messages: `apiKey in header X-API-Key`, `http basic`... */
  readonly description: string;
  /** False when only the presence and form of the credential are checked (no key file, users file, profile or handler). */
  readonly verified: boolean;
  /** Its WWW-Authenticate challenge when nothing was sent. */
  readonly challenge: string;
  /** The check for a requirement that lists these scopes. */
  check(scopes: readonly string[]): SchemeCheck;
}

/** What checks credentials beyond their presence: the files of svc.security.*, the OAuth profile, handlers. */
export interface SchemeContext {
  apiKeys: ApiKeys | undefined;
  basicUsers: BasicUsers | undefined;
  /** The endpoint's oauthProfile check (the consumer component's authenticate), when one is set. */
  bearer: Authenticate | undefined;
  handlers: Readonly<Record<string, SecurityHandler>>;
}

export function compileScheme(name: string, scheme: Record<string, unknown>, ctx: SchemeContext): CompiledScheme {
  const fail = (reason: string): never => {
    throw svcError(Errors.SECURITY_SCHEME, `security scheme ${name} ${reason}`);
  };
  const type = scheme.type;
  const handler = Object.hasOwn(ctx.handlers, name) ? ctx.handlers[name] : undefined;
  if (handler !== undefined) return handlerScheme(name, scheme, handler);
  switch (type) {
    case 'apiKey':
      return apiKeyScheme(name, scheme, ctx.apiKeys, fail);
    case 'http': {
      const httpScheme = typeof scheme.scheme === 'string' ? scheme.scheme : fail('(type http) has no scheme');
      const lower = httpScheme.toLowerCase();
      if (lower === 'basic') return basicScheme(name, ctx.basicUsers);
      if (lower === 'bearer') return bearerScheme(name, 'http bearer', ctx.bearer);
      if (!TOKEN.test(httpScheme)) fail(`has scheme ${JSON.stringify(httpScheme)}, which is not an HTTP authentication scheme name`);
      return presenceScheme(name, httpScheme);
    }
    case 'oauth2':
    case 'openIdConnect':
      return bearerScheme(name, type, ctx.bearer);
    case 'mutualTLS':
      return mutualTlsScheme(name);
    default:
      return fail(`has type ${JSON.stringify(type)}; allowed: apiKey, http, oauth2, openIdConnect, mutualTLS (or a securityHandlers entry named ${name})`);
  }
}

/** A quoted-string for a challenge parameter (RFC 9110 §5.6.4); characters no header can carry are dropped. */
function quoted(text: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${text.replace(/[^\u0020-\u007e\u0080-\u00ff]/g, '').replace(/["\\]/g, '\\$&')}"`;
}

function apiKeyScheme(name: string, scheme: Record<string, unknown>, keys: ApiKeys | undefined, fail: (reason: string) => never): CompiledScheme {
  const where = scheme.in;
  const keyName = typeof scheme.name === 'string' && scheme.name !== '' ? scheme.name : fail('(type apiKey) has no name');
  if (where !== 'header' && where !== 'query' && where !== 'cookie') return fail(`(type apiKey) has in ${JSON.stringify(where)}; allowed: header, query, cookie`);
  const field = keyName.toLowerCase();
  const read = (c: RequestCredentials): string | readonly string[] | undefined => (where === 'header' ? c.header(field) : where === 'query' ? c.query(keyName) : c.cookie(keyName));
  const description = `API key ${keyName} (in ${where})`;
  const challenge = `ApiKey in=${quoted(where)}, name=${quoted(keyName)}`;
  const missing: Outcome = { met: false, closeness: MISSING, reason: `no ${description}`, challenge };
  const malformed: Outcome = { met: false, closeness: REFUSED, reason: `the ${description} is sent more than once`, challenge };
  const refused: Outcome = { met: false, closeness: REFUSED, reason: `the ${description} is not accepted`, challenge };
  const anonymousKey: Outcome = { met: true, principal: undefined };
  const check: SchemeCheck = (c) => {
    const value = read(c);
    if (value === undefined || value === '') return missing;
    if (typeof value !== 'string') return malformed;
    if (keys === undefined) return anonymousKey;
    const found = keys.match(value, c.req.socket);
    return found === undefined ? refused : { met: true, principal: found.principal };
  };
  return { name, description: `apiKey in ${where} ${keyName}`, verified: keys !== undefined, challenge, check: () => check };
}

function basicScheme(name: string, users: BasicUsers | undefined): CompiledScheme {
  const challenge = `Basic realm=${quoted(name)}, charset="UTF-8"`;
  const missing: Outcome = { met: false, closeness: MISSING, reason: 'no HTTP Basic credentials (Authorization: Basic)', challenge };
  const malformed: Outcome = { met: false, closeness: REFUSED, reason: 'the Authorization field is not of the form Basic <base64 of user:password>', challenge };
  const refused: Outcome = { met: false, closeness: REFUSED, reason: 'the user name or password is not accepted', challenge };
  const check: SchemeCheck = (c) => {
    const field = c.authorization;
    if (field === undefined) return missing;
    const credentials = typeof field === 'string' ? basicCredentials(field) : undefined;
    if (credentials === undefined) return malformed;
    if (users === undefined) return { met: true, principal: credentials.user };
    const verified = users.verify(credentials, field as string);
    const outcome = (ok: boolean): Outcome => (ok ? { met: true, principal: credentials.user } : refused);
    return typeof verified === 'boolean' ? outcome(verified) : verified.then(outcome);
  };
  return { name, description: 'http basic', verified: users !== undefined, challenge, check: () => check };
}

interface ScopedToken {
  subject?: unknown;
  scopes?: unknown;
}

function bearerScheme(name: string, kind: string, profile: Authenticate | undefined): CompiledScheme {
  const challenge = 'Bearer';
  const missing: Outcome = { met: false, closeness: MISSING, reason: 'no bearer token (Authorization: Bearer)', challenge };
  const malformed: Outcome = { met: false, closeness: REFUSED, reason: 'the Authorization field is not of the form Bearer <token>', challenge: 'Bearer error="invalid_request"' };
  const wellFormed: Outcome = { met: true, principal: undefined };
  if (profile === undefined) {
    const check: SchemeCheck = (c) => (c.authorization === undefined ? missing : isWellFormedBearer(c.authorization) ? wellFormed : malformed);
    return { name, description: kind, verified: false, challenge, check: () => check };
  }
  const refusal = (c: RequestCredentials, err: unknown): Outcome => {
    if (!(err instanceof SvcError)) throw err;
    if (err.status === 503) return { met: false, closeness: REFUSED, reason: err.message, challenge, error: err };
    const header = err.headers?.['www-authenticate'];
    return { met: false, closeness: c.authorization === undefined ? MISSING : REFUSED, reason: err.message, challenge: typeof header === 'string' ? header : challenge };
  };
  return {
    name,
    description: kind,
    verified: true,
    challenge,
    check(scopes) {
      const insufficient: Outcome = {
        met: false,
        closeness: LACKS_SCOPE,
        reason: `the token lacks scope ${scopes.join(' ')}`,
        scopes,
        challenge: `Bearer error="insufficient_scope", scope=${quoted(scopes.join(' '))}`,
      };
      const scoped = (token: unknown): Outcome => {
        const { subject, scopes: granted } = (token ?? {}) as ScopedToken;
        if (scopes.length > 0 && !(Array.isArray(granted) && scopes.every((s) => granted.includes(s)))) return insufficient;
        return { met: true, principal: typeof subject === 'string' ? subject : undefined, token };
      };
      return (c) => {
        let token: unknown;
        try {
          token = profile(c.authorization, c.req);
        } catch (err) {
          return refusal(c, err);
        }
        return token instanceof Promise ? token.then(scoped, (err: unknown) => refusal(c, err)) : scoped(token);
      };
    },
  };
}

/** Any other `http` scheme (Digest, HOBA...): `Authorization: <scheme> ...` present, nothing more. */
function presenceScheme(name: string, httpScheme: string): CompiledScheme {
  const prefix = `${httpScheme.toLowerCase()} `;
  const missing: Outcome = { met: false, closeness: MISSING, reason: `no ${httpScheme} credentials (Authorization: ${httpScheme})`, challenge: httpScheme };
  const present: Outcome = { met: true, principal: undefined };
  const check: SchemeCheck = (c) => {
    const field = c.authorization;
    return typeof field === 'string' && field.length > prefix.length && field.slice(0, prefix.length).toLowerCase() === prefix ? present : missing;
  };
  return { name, description: `http ${httpScheme}`, verified: false, challenge: httpScheme, check: () => check };
}

function mutualTlsScheme(name: string): CompiledScheme {
  const challenge = 'MutualTLS';
  const missing: Outcome = { met: false, closeness: MISSING, reason: 'no client certificate (mutual TLS)', challenge };
  const refused: Outcome = { met: false, closeness: REFUSED, reason: 'the client certificate was not verified', challenge };
  const check: SchemeCheck = (c) => {
    const socket = c.req.socket as Partial<TLSSocket>;
    if (socket.encrypted !== true || typeof socket.getPeerCertificate !== 'function') return missing;
    const certificate = socket.getPeerCertificate();
    if (certificate === null || certificate === undefined || Object.keys(certificate).length === 0) return missing;
    if (socket.authorized !== true) return refused;
    const cn = certificate.subject?.CN as string | string[] | undefined;
    return { met: true, principal: Array.isArray(cn) ? cn[0] : cn };
  };
  return { name, description: 'mutualTLS', verified: true, challenge, check: () => check };
}

/** The challenge of a scheme checked by a handler: as the built-in check of its type would send it. */
function handlerChallenge(scheme: Record<string, unknown>): string {
  if (scheme.type === 'apiKey') return 'ApiKey';
  if (scheme.type === 'mutualTLS') return 'MutualTLS';
  if (scheme.type === 'http' && typeof scheme.scheme === 'string' && TOKEN.test(scheme.scheme)) return scheme.scheme.toLowerCase() === 'basic' ? 'Basic' : scheme.scheme.toLowerCase() === 'bearer' ? 'Bearer' : scheme.scheme;
  return 'Bearer';
}

function handlerScheme(name: string, scheme: Record<string, unknown>, handler: SecurityHandler): CompiledScheme {
  const challenge = handlerChallenge(scheme);
  const refused: Outcome = { met: false, closeness: REFUSED, reason: `the credentials for ${name} are not accepted`, challenge };
  const outcome = (answer: unknown): Outcome => (answer === true ? { met: true, principal: undefined } : typeof answer === 'string' && answer !== '' ? { met: true, principal: answer } : refused);
  return {
    name,
    description: `securityHandlers.${name}`,
    verified: true,
    challenge,
    check(scopes) {
      const frozen = Object.freeze([...scopes]);
      return (c) => {
        // The request's head as an exchange: its headers with the Authorization field the facade took off.
        const headers = c.authorization === undefined ? c.req.headers : { ...c.req.headers, authorization: c.authorization };
        const answer = handler(new Exchange(Headers.fromRequest(headers), undefined, c.req), frozen);
        return answer instanceof Promise ? answer.then(outcome) : outcome(answer);
      };
    },
  };
}
