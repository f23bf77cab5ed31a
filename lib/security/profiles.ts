// OAuth profiles (`svc.oauth.<profile>.*`, docs/bearer-tokens.md): read once at startup and checked, so that a profile a
// request would find incomplete fails startup instead, naming the profile and the key.
import { resolve } from 'node:path';
import { Errors, svcError } from '../util/errors.js';

const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'] as const;
/** HMAC algorithms and the shortest secret each accepts (RFC 7518 §3.2: at least the hash size). */
const HMAC_MIN_BYTES: Readonly<Record<string, number>> = { HS256: 32, HS384: 48, HS512: 64 };

export type KeySource =
  | { kind: 'jwks-uri'; url: URL }
  | { kind: 'jwks-file'; path: string }
  | { kind: 'public-key-file'; path: string }
  | { kind: 'secret'; secret: Uint8Array };

export interface OAuthProfile {
  name: string;
  issuer: string;
  keySource: KeySource;
  /** Accepted audiences (the token must name one); undefined: any. */
  audience: string[] | undefined;
  algorithms: string[];
  /** Seconds of clock skew allowed on `exp` and `nbf`. */
  clockTolerance: number;
  requiredScopes: string[];
  /** jwks-uri: least time between two fetches an unknown `kid` (or a failed fetch) may trigger, in ms. */
  jwksCooldown: number;
  /** jwks-uri: how long fetched keys are used before they are fetched again, in ms. */
  jwksMaxAge: number;
  /** Tokens must carry `exp` (default): one without would be accepted for ever. `require-exp: false` allows them. */
  requireExp: boolean;
}

const KEY_SOURCES = ['jwks-uri', 'jwks-file', 'public-key-file', 'secret'] as const;
const KEYS = ['issuer', ...KEY_SOURCES, 'audience', 'algorithms', 'clock-tolerance', 'required-scopes', 'jwks-cooldown', 'jwks-max-age', 'require-exp'] as const;
type Key = (typeof KEYS)[number];

/** Checks a profile's keys (kebab-case or camelCase) and resolves file paths against `baseDir`. */
export function readProfile(name: string, properties: Readonly<Record<string, string>>, baseDir: string): OAuthProfile {
  const fail = (detail: string): never => {
    throw svcError(Errors.OAUTH_PROFILE, name, detail);
  };
  const keys = new Map<Key, string>();
  for (const [raw, value] of Object.entries(properties)) {
    const key = KEYS.find((k) => k.replace(/-/g, '') === raw.replace(/[-_]/g, '').toLowerCase());
    if (key === undefined) fail(`unknown key svc.oauth.${name}.${raw}; allowed: ${KEYS.join(', ')}`);
    keys.set(key!, value.trim());
  }
  const issuer = keys.get('issuer');
  if (!issuer) fail(`missing key issuer (svc.oauth.${name}.issuer)`);
  const sources = KEY_SOURCES.filter((k) => keys.get(k));
  if (sources.length === 0) fail(`missing key source: set one of ${KEY_SOURCES.map((k) => `svc.oauth.${name}.${k}`).join(', ')}`);
  if (sources.length > 1) fail(`more than one key source (${sources.join(', ')}); set exactly one`);
  const kind = sources[0]!;
  const value = keys.get(kind)!;
  const keySource = readKeySource(kind, value, baseDir, fail);

  const hmac = kind === 'secret';
  const secretBytes = keySource.kind === 'secret' ? keySource.secret.length : 0;
  const allowed = hmac ? Object.keys(HMAC_MIN_BYTES) : [...ASYMMETRIC_ALGORITHMS];
  const listed = keys.get('algorithms');
  const algorithms = listed ? list(listed) : hmac ? allowed.filter((a) => secretBytes >= HMAC_MIN_BYTES[a]!) : allowed;
  for (const alg of algorithms) {
    // `none` and the RS/HS confusion (a public key used as an HMAC secret) are refused by construction.
    if (!allowed.includes(alg)) fail(`algorithms has ${alg}, which a ${kind} profile cannot use; allowed: ${allowed.join(', ')}`);
    if (hmac && secretBytes < HMAC_MIN_BYTES[alg]!) fail(`secret has ${secretBytes} bytes; ${alg} needs at least ${HMAC_MIN_BYTES[alg]}`);
  }
  if (algorithms.length === 0) fail(hmac ? `secret has ${secretBytes} bytes; HS256 needs at least 32` : `algorithms is empty; allowed: ${allowed.join(', ')}`);

  const audience = keys.get('audience');
  return {
    name,
    issuer: issuer!,
    keySource,
    audience: audience ? list(audience) : undefined,
    algorithms,
    clockTolerance: seconds(keys, 'clock-tolerance', 0, fail),
    requiredScopes: list(keys.get('required-scopes') ?? ''),
    jwksCooldown: seconds(keys, 'jwks-cooldown', 30, fail) * 1000,
    jwksMaxAge: seconds(keys, 'jwks-max-age', 600, fail) * 1000,
    requireExp: flag(keys, 'require-exp', true, fail),
  };
}

function readKeySource(kind: (typeof KEY_SOURCES)[number], value: string, baseDir: string, fail: (detail: string) => never): KeySource {
  switch (kind) {
    case 'jwks-uri': {
      const url = URL.canParse(value) ? new URL(value) : undefined;
      if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) fail(`jwks-uri has invalid value ${JSON.stringify(value)}; allowed: an http:// or https:// URL`);
      return { kind, url: url! };
    }
    case 'secret':
      return { kind, secret: new TextEncoder().encode(value) };
    default:
      return { kind, path: resolve(baseDir, value) };
  }
}

/** A list given as one value: items separated by commas and/or spaces. */
function list(value: string): string[] {
  return value.split(/[\s,]+/).filter((s) => s !== '');
}

function flag(keys: ReadonlyMap<Key, string>, key: Key, fallback: boolean, fail: (detail: string) => never): boolean {
  const value = keys.get(key);
  if (value === undefined || value === '') return fallback;
  if (value === 'true' || value === 'false') return value === 'true';
  return fail(`${key} has invalid value ${JSON.stringify(value)}; allowed: true, false`);
}

function seconds(keys: ReadonlyMap<Key, string>, key: Key, fallback: number, fail: (detail: string) => never): number {
  const value = keys.get(key);
  if (value === undefined || value === '') return fallback;
  const n = /^\d+(\.\d+)?$/.test(value) ? Number(value) : NaN;
  if (!Number.isFinite(n)) fail(`${key} has invalid value ${JSON.stringify(value)}; allowed: seconds (a number of at least 0)`);
  return n;
}
