// Makes an ES256 key pair for the example: jwks.json (the public key set the facade checks tokens against)
// and private-key.json (what token.mjs signs with; in real life only the identity provider has it).
import { writeFileSync } from 'node:fs';
import { exportJWK, generateKeyPair } from 'jose';

const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
const kid = 'example-1';
writeFileSync('jwks.json', `${JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' }] }, null, 2)}\n`);
writeFileSync('private-key.json', `${JSON.stringify({ ...(await exportJWK(privateKey)), kid, alg: 'ES256' })}\n`);
console.log('wrote jwks.json and private-key.json');
