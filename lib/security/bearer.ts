// Bearer tokens (RFC 6750) checked against an OAuth profile (docs/bearer-tokens.md), from the request head alone. A token
// seen before is answered from the cache without a promise: that is the hot path.
import { errors, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { Errors, SvcError } from '../util/errors.js';
import type { Logger } from '../util/log.js';
import { deepFreeze } from '../util/objects.js';
import type { Authenticate } from '../message/stages.js';
import { verificationKey } from './keys.js';
import type { OAuthProfile } from './profiles.js';
import { TokenCache } from './token-cache.js';

/** What a route sees as property `SvcOAuthTokenValidationResult`. Frozen: cached results are shared by requests. */
export interface TokenValidationResult {
  readonly subject: string | undefined;
  readonly issuer: string | undefined;
  readonly audiences: readonly string[];
  readonly scopes: readonly string[];
  readonly claims: Readonly<JwtClaims>;
}

/**
 * The token's claims (RFC 7519 §4): the registered ones typed, any other as it came. Declared here rather
 * than taken from jose, which is bundled and not installed beside the package, so its declarations compile.
 */
export interface JwtClaims {
  iss?: string;
  sub?: string;
  aud?: string | string[];
  jti?: string;
  nbf?: number;
  exp?: number;
  iat?: number;
  [claim: string]: unknown;
}

const MAX_AUTHORIZATION_LENGTH = 8192;
/** RFC 6750 §2.1 b64token. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const TOKEN_CACHE_SIZE = 10_000;
/** A verified token is trusted again without a check for at most this long, even if it expires later (keys rotate). */
const MAX_CACHE_MS = 10 * 60_000;

const missing = new SvcError(Errors.UNAUTHORIZED, ['The request has no bearer token.'], undefined, { 'www-authenticate': 'Bearer' });
const invalidRequest = (detail: string): SvcError => new SvcError(Errors.TOKEN_REQUEST_INVALID, [detail], undefined, { 'www-authenticate': 'Bearer error="invalid_request"' });
// error_description holds no quote or backslash (RFC 6750 §3): these texts are fixed, never token content.
const invalidToken = (description: string): SvcError =>
  new SvcError(Errors.UNAUTHORIZED, [description], undefined, { 'www-authenticate': `Bearer error="invalid_token", error_description="${description}"` });

const SEVERAL = invalidRequest('The request has more than one Authorization header.');
const TOO_LONG = invalidRequest(`The Authorization header is longer than ${MAX_AUTHORIZATION_LENGTH} characters.`);
const NOT_BEARER = invalidRequest('The Authorization header is not of the form: Bearer <token>.');
const MALFORMED = invalidRequest('The bearer token has characters outside the b64token syntax (RFC 6750).');
const TWO_TOKENS = invalidRequest('The Authorization header has more than one token.');
const REJECTIONS = {
  signature: invalidToken('The token signature is invalid.'),
  expired: invalidToken('The token has expired.'),
  early: invalidToken('The token is not yet valid.'),
  noExpiry: invalidToken('The token has no expiry (exp claim); this issuer profile requires one.'),
  subject: invalidToken('The token subject (sub claim) is not a string.'),
  issuer: invalidToken('The token issuer is not accepted.'),
  audience: invalidToken('The token audience is not accepted.'),
  claims: invalidToken('The token claims are invalid.'),
  algorithm: invalidToken('The token algorithm is not allowed.'),
  unknownKey: invalidToken('No key of the issuer matches the token.'),
  wrongKey: invalidToken('The token cannot be verified with the key of the issuer.'),
  malformed: invalidToken('The token is not a valid JWT.'),
  scope: invalidToken('The token lacks a required scope.'),
};

/** The token of an `Authorization: Bearer <token>` field; throws the 401/400 answer otherwise. Not syntax-checked yet. */
function bearerToken(authorization: string | readonly string[] | undefined): string {
  if (authorization === undefined) throw missing;
  if (typeof authorization !== 'string') throw SEVERAL;
  if (authorization.length > MAX_AUTHORIZATION_LENGTH) throw TOO_LONG;
  // The scheme in any case (RFC 9110 §11.1), then one or more spaces, then the token.
  if (authorization.length < 8 || authorization.charCodeAt(6) !== 0x20 || !isBearerScheme(authorization)) throw NOT_BEARER;
  let start = 7;
  while (authorization.charCodeAt(start) === 0x20) start++;
  return authorization.slice(start);
}

const BEARER = 'bearer';

/** Whether a field is `Bearer <b64token>` (one field, one token): what the contract's security checks without a profile. */
export function isWellFormedBearer(authorization: string | readonly string[] | undefined): boolean {
  let token: string;
  try {
    token = bearerToken(authorization);
  } catch {
    return false;
  }
  return B64TOKEN.test(token);
}

/** `Bearer` in any letter case at the start, compared in place (no lower-cased copy per request). */
function isBearerScheme(authorization: string): boolean {
  for (let i = 0; i < BEARER.length; i++) if ((authorization.charCodeAt(i) | 0x20) !== BEARER.charCodeAt(i)) return false;
  return true;
}

/** The authenticate stage of a profile: checks run before the body is read; the key is made now (startup). */
export function bearerAuthenticator(profile: OAuthProfile, logger: Logger): Authenticate {
  const key = verificationKey(profile, logger);
  const options: JWTVerifyOptions = { issuer: profile.issuer, algorithms: profile.algorithms, clockTolerance: profile.clockTolerance };
  if (profile.audience !== undefined) options.audience = profile.audience;
  // Without exp a token never expires, and stays cached: refused unless the profile says require-exp: false.
  if (profile.requireExp) options.requiredClaims = ['exp'];
  const cache = new TokenCache<TokenValidationResult>(TOKEN_CACHE_SIZE);
  const toleranceMs = profile.clockTolerance * 1000;

  const verify = async (token: string): Promise<TokenValidationResult> => {
    let payload: JWTPayload;
    try {
      // One call shape for the three key kinds; jose picks the overload at run time.
      ({ payload } = await jwtVerify(token, key as Uint8Array, options));
    } catch (err) {
      throw rejection(err);
    }
    // RFC 7519 §4.1.2: a StringOrURI. jose checks it only against an expected subject; routes read it as a string.
    if (payload.sub !== undefined && typeof payload.sub !== 'string') throw REJECTIONS.subject;
    const result = validationResult(payload);
    if (!profile.requiredScopes.every((s) => result.scopes.includes(s))) throw REJECTIONS.scope;
    const now = Date.now();
    const until = typeof payload.exp === 'number' ? Math.min(payload.exp * 1000 + toleranceMs, now + MAX_CACHE_MS) : now + MAX_CACHE_MS;
    cache.set(token, result, until);
    return result;
  };

  return (authorization) => {
    const token = bearerToken(authorization);
    // A cached token passed the syntax check when it was verified.
    const cached = cache.get(token, Date.now());
    if (cached !== undefined) return cached;
    if (!B64TOKEN.test(token)) throw token.includes(' ') ? TWO_TOKENS : MALFORMED;
    return verify(token);
  };
}

/** The answer for what jose (or the key source) threw; the key source's own 503 passes through. */
function rejection(err: unknown): SvcError {
  if (err instanceof SvcError) return err;
  if (err instanceof errors.JWTExpired) return REJECTIONS.expired;
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return REJECTIONS.early;
    if (err.claim === 'exp' && err.reason === 'missing') return REJECTIONS.noExpiry;
    if (err.claim === 'iss') return REJECTIONS.issuer;
    if (err.claim === 'aud') return REJECTIONS.audience;
    return REJECTIONS.claims;
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return REJECTIONS.signature;
  if (err instanceof errors.JOSEAlgNotAllowed) return REJECTIONS.algorithm;
  if (err instanceof errors.JWKSNoMatchingKey) return REJECTIONS.unknownKey;
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWTInvalid) return REJECTIONS.malformed;
  // An allowed algorithm the key cannot do (an ES256 token against an RSA key): jose's JOSENotSupported or TypeError.
  return REJECTIONS.wrongKey;
}

function validationResult(payload: JWTPayload): TokenValidationResult {
  const aud = payload.aud;
  return deepFreeze({
    subject: payload.sub,
    issuer: payload.iss,
    audiences: aud === undefined ? [] : Array.isArray(aud) ? aud : [aud],
    scopes: scopesOf(payload),
    claims: payload,
  });
}

/** `scope` (a space-separated string, RFC 8693) and `scp` (a list, or a string, as some issuers send it). */
function scopesOf(payload: JWTPayload): string[] {
  const scopes: string[] = [];
  for (const claim of [payload.scope, payload.scp]) {
    if (typeof claim === 'string') scopes.push(...claim.split(' ').filter((s) => s !== ''));
    else if (Array.isArray(claim)) for (const s of claim) if (typeof s === 'string') scopes.push(s);
  }
  return [...new Set(scopes)];
}
