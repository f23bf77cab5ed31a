// The key a profile verifies tokens with (docs/bearer-tokens.md), made once at startup: a secret's bytes, a PEM public
// key (or certificate), a JWKS file, or a JWKS fetched from `jwks-uri`.
import { createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { Errors, svcError } from '../util/errors.js';
import type { Logger } from '../util/log.js';
import { RemoteKeySet } from './jwks.js';
import type { OAuthProfile } from './profiles.js';

export type VerificationKey = Uint8Array | KeyObject | JWTVerifyGetKey;

export function verificationKey(profile: OAuthProfile, logger: Logger): VerificationKey {
  const source = profile.keySource;
  const fail = (detail: string): never => {
    throw svcError(Errors.OAUTH_PROFILE, profile.name, `${source.kind} ${'path' in source ? source.path : ''}: ${detail}`);
  };
  switch (source.kind) {
    case 'secret':
      return source.secret;
    case 'jwks-uri':
      return new RemoteKeySet(source.url, profile.jwksCooldown, profile.jwksMaxAge, logger).getKey;
    case 'jwks-file': {
      const text = readText(source.path, fail);
      try {
        return createLocalJWKSet(JSON.parse(text) as JSONWebKeySet);
      } catch (err) {
        return fail(`not a JSON Web Key Set: ${(err as Error).message}`);
      }
    }
    case 'public-key-file': {
      const pem = readText(source.path, fail);
      if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) fail('holds a private key; give the public key (or a certificate)');
      try {
        return /-----BEGIN CERTIFICATE-----/.test(pem) ? new X509Certificate(pem).publicKey : createPublicKey(pem);
      } catch (err) {
        return fail(`not a PEM public key or certificate: ${(err as Error).message}`);
      }
    }
  }
}

function readText(path: string, fail: (detail: string) => never): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    return fail(`cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
