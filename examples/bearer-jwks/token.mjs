// Prints a token signed with private-key.json: node token.mjs [SCOPE] (default pets:read), valid 1 hour.
import { readFileSync } from 'node:fs';
import { importJWK, SignJWT } from 'jose';

const jwk = JSON.parse(readFileSync('private-key.json', 'utf8'));
const key = await importJWK(jwk, 'ES256');
const token = await new SignJWT({ scope: process.argv[2] ?? 'pets:read' })
  .setProtectedHeader({ alg: 'ES256', kid: jwk.kid })
  .setIssuer('https://issuer.example')
  .setAudience('petstore')
  .setSubject('alice')
  .setIssuedAt()
  .setExpirationTime('1h')
  .sign(key);
console.log(token);
