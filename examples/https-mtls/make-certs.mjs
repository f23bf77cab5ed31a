// Makes a private CA, a server certificate and client certificates with node's WebCrypto and @peculiar/x509
// (npm install --save-dev @peculiar/x509 reflect-metadata): no openssl needed. For trying HTTPS and mutual TLS locally;
// production certificates come from your CA (cert-manager, Let's Encrypt, your company's PKI).
//
//   node make-certs.mjs [folder]   writes ca.pem, server.pem, server.key, client.pem, client.key into folder (default certs/)
import { webcrypto } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
// @peculiar/x509's dependency injection (tsyringe) needs the Reflect metadata API first.
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto);
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY = 24 * 3600 * 1000;

/** A key pair and its certificate, in PEM. */
async function pem(keys, cert) {
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64');
  return { cert: cert.toString('pem') + '\n', key: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g).join('\n')}\n-----END PRIVATE KEY-----\n`, keys, x509: cert };
}

/** A CA certificate, self-signed. */
export async function makeCa(name = 'svc-facade example CA', days = 30) {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    name: `CN=${name}`,
    keys,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + days * DAY),
    signingAlgorithm: ALGORITHM,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true)],
  });
  return pem(keys, cert);
}

/**
 * A certificate `ca` signs: `subject` in certificate order, least specific first (`O=Example,CN=alice`), `names` ({ type: 'dns' | 'ip' | 'url' | 'email', value }),
 * `usage` 'server' or 'client', valid for `days` (negative: already expired).
 */
export async function issue(ca, { subject, names = [], usage, days = 30 }) {
  const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.create({
    subject,
    issuer: ca.x509.subject,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + days * DAY),
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      ...(names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : []),
    ],
  });
  return pem(keys, cert);
}

/** The files of the example: a CA, a server certificate for localhost and 127.0.0.1, a client certificate for alice. */
export async function makeExamplePki(dir) {
  mkdirSync(dir, { recursive: true });
  const ca = await makeCa();
  const server = await issue(ca, { subject: 'CN=localhost', names: [{ type: 'dns', value: 'localhost' }, { type: 'ip', value: '127.0.0.1' }], usage: 'server' });
  const client = await issue(ca, { subject: 'O=Example,CN=alice', names: [{ type: 'url', value: 'spiffe://example.org/alice' }, { type: 'dns', value: 'alice.example.org' }], usage: 'client' });
  const files = { 'ca.pem': ca.cert, 'server.pem': server.cert, 'server.key': server.key, 'client.pem': client.cert, 'client.key': client.key };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text, { mode: name.endsWith('.key') ? 0o600 : 0o644 });
  return Object.keys(files).map((name) => join(dir, name));
}

if (import.meta.url === pathToFileURL(resolve(process.argv[1] ?? '')).href) {
  const written = await makeExamplePki(resolve(process.argv[2] ?? 'certs'));
  console.log(`wrote ${written.length} files: ${written.map((f) => f.split(/[\\/]/).pop()).join(', ')}`);
}
