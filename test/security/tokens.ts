// Real keys, real tokens and a real JWKS server on loopback for the bearer-token tests.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';

export const ISSUER = 'https://issuer.test';
export const AUDIENCE = 'svc-facade';

export interface SigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  publicPem: string;
}

export async function signingKey(kid: string, alg = 'RS256'): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicJwk, publicPem: await exportSPKI(publicKey) };
}

export interface TokenOptions {
  claims?: JWTPayload;
  /** Seconds from now; negative: already expired. */
  expiresIn?: number;
  notBefore?: number;
  issuer?: string;
  audience?: string | string[];
  alg?: string;
  kid?: string | null;
}

/** A signed JWT with sensible defaults (the test issuer and audience, one hour of validity). */
export async function token(key: SigningKey | Uint8Array, options: TokenOptions = {}): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const alg = options.alg ?? (key instanceof Uint8Array ? 'HS256' : key.alg);
  const header: { alg: string; kid?: string } = { alg };
  const kid = options.kid === undefined ? (key instanceof Uint8Array ? undefined : key.kid) : options.kid;
  if (kid !== null && kid !== undefined) header.kid = kid;
  const jwt = new SignJWT({ sub: 'alice', ...options.claims })
    .setProtectedHeader(header)
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.expiresIn ?? 3600));
  if (options.notBefore !== undefined) jwt.setNotBefore(now + options.notBefore);
  return jwt.sign(key instanceof Uint8Array ? key : key.privateKey);
}

/** An unsigned token (`alg: none`) claiming to come from the test issuer. */
export function unsignedToken(): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'none' })}.${part({ sub: 'mallory', iss: ISSUER, aud: AUDIENCE, exp: now + 3600 })}.`;
}

/** A JWKS server whose keys can change and which can go down and come back on the same port. */
export class JwksServer {
  keys: JWK[];
  hits = 0;
  /** Replaces the key set answer (a broken key server). */
  answer: ((res: ServerResponse) => void) | undefined;
  private server: Server | undefined;
  private port = 0;

  constructor(keys: JWK[]) {
    this.keys = keys;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/.well-known/jwks.json`;
  }

  async up(): Promise<this> {
    this.server = createServer((req, res) => {
      this.hits++;
      if (this.answer) return this.answer(res);
      res.writeHead(200, { 'content-type': 'application/jwk-set+json' });
      res.end(JSON.stringify({ keys: this.keys }));
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
