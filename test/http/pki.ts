// Certificates for the TLS tests, made in-process by the https-mtls example's script (node's WebCrypto and
// @peculiar/x509): a CA, a server certificate for 127.0.0.1, client certificates signed by it and by another CA.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../helpers.js';
// @ts-ignore: a JavaScript module without declarations
import { issue, makeCa } from '../../examples/https-mtls/make-certs.mjs';

export interface Pem {
  cert: string;
  key: string;
}

export interface TestPki {
  dir: string;
  ca: Pem;
  server: Pem;
  client: Pem;
  /** Signed by a CA the facade does not trust. */
  stranger: Pem;
  /** A second server certificate (another subject), for reloads. */
  issueServer(cn: string, days?: number): Promise<Pem>;
}

/** Writes ca.pem, server.pem, server.key into a temporary folder; everything else stays in memory. */
export async function makePki(): Promise<TestPki> {
  const ca = await makeCa('svc-facade test CA');
  const other = await makeCa('somebody else');
  const issueServer = (cn: string, days = 30): Promise<Pem> => issue(ca, { subject: `CN=${cn}`, names: [{ type: 'ip', value: '127.0.0.1' }], usage: 'server', days });
  const server = await issueServer('first');
  const client = await issue(ca, { subject: 'O=Example,CN=alice', names: [{ type: 'url', value: 'spiffe://example.org/alice' }, { type: 'dns', value: 'alice.example.org' }], usage: 'client' });
  const stranger = await issue(other, { subject: 'CN=mallory', usage: 'client' });
  const dir = tempDir({ 'ca.pem': ca.cert, 'server.pem': server.cert, 'server.key': server.key });
  return { dir, ca, server, client, stranger, issueServer };
}

export function writePem(dir: string, name: string, pem: Pem): void {
  writeFileSync(join(dir, `${name}.pem`), pem.cert);
  writeFileSync(join(dir, `${name}.key`), pem.key);
}
