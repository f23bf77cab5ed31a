// Bench setup for "GET with a valid RS256 token": a fresh RSA key pair, its public key in a temp dir for the
// facade's profile (environment variables), and one token the load generator sends on every request.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exportSPKI, generateKeyPair, SignJWT } from 'jose';

const ISSUER = 'https://issuer.bench';
const AUDIENCE = 'svc-facade-bench';

/** Sets the scenario's environment (profile `bench`) and its request's Authorization header. */
export async function prepareOAuth(scenario) {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const dir = mkdtempSync(join(tmpdir(), 'svc-facade-bench-'));
  const pem = join(dir, 'public.pem');
  writeFileSync(pem, await exportSPKI(publicKey));
  const token = await new SignJWT({ scope: 'pets:read' })
    .setProtectedHeader({ alg: 'RS256', kid: 'bench' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject('bench')
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(privateKey);
  scenario.env = {
    ...scenario.env,
    SVC_REST_ENDPOINTPROPERTY_OAUTHPROFILE: 'bench',
    SVC_OAUTH_BENCH_ISSUER: ISSUER,
    SVC_OAUTH_BENCH_AUDIENCE: AUDIENCE,
    SVC_OAUTH_BENCH_PUBLIC_KEY_FILE: pem,
    SVC_OAUTH_BENCH_REQUIRED_SCOPES: 'pets:read',
  };
  scenario.request = { ...scenario.request, headers: { ...scenario.request.headers, authorization: `Bearer ${token}` } };
}

/** The profile must be on in the measured facade: without the token it refuses. */
export async function verifyOAuth(port) {
  const res = await fetch(`http://127.0.0.1:${port}/api/v3/pet/1`);
  await res.arrayBuffer();
  if (res.status !== 401) throw new Error(`GET with a valid RS256 token: without a token the facade answered ${res.status}, not 401`);
}
