// Real backends on 127.0.0.1 for the sidecar tests: plain node:http servers, and https ones with a CA and
// certificates generated at test time by openssl (nothing secret is committed).
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers.js';

export interface Backend {
  origin: string;
  server: Server;
  /** TCP connections accepted so far. */
  connections(): number;
  close(): Promise<void>;
}

async function start(server: Server, scheme: string): Promise<Backend> {
  let connections = 0;
  server.on('connection', () => void connections++);
  server.on('secureConnection', () => void connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `${scheme}://127.0.0.1:${port}`,
    server,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function httpBackend(handler: RequestListener): Promise<Backend> {
  return start(createServer(handler), 'http');
}

export function httpsBackend(options: ServerOptions, handler: RequestListener): Promise<Backend> {
  return start(createHttpsServer(options, handler) as unknown as Server, 'https');
}

export interface TestPki {
  dir: string;
  /** File names inside `dir`. */
  files: { ca: string; serverCert: string; serverKey: string; clientCert: string; clientKey: string };
  read(name: string): Buffer;
}

/** A CA, a server certificate for 127.0.0.1 and a client certificate (CN=facade-client), all signed by the CA. */
export function generatePki(): TestPki {
  const dir = tempDir();
  const run = (...args: string[]): void => void execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run('req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=svc-facade test CA', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  writeFileSync(join(dir, 'server.ext'), 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  writeFileSync(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const [name, cn] of [['server', '127.0.0.1'], ['client', 'facade-client']] as const) {
    run('req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`);
    run('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', `${name}.pem`, '-days', '2', '-extfile', `${name}.ext`);
  }
  return {
    dir,
    files: { ca: 'ca.pem', serverCert: 'server.pem', serverKey: 'server.key', clientCert: 'client.pem', clientKey: 'client.key' },
    read: (name) => readFileSync(join(dir, name)),
  };
}

/** Something a test waits for (a request arrived, a connection closed) instead of sleeping. */
export interface Signal {
  fired: Promise<void>;
  fire(): void;
}

export function signal(): Signal {
  let fire!: () => void;
  const fired = new Promise<void>((resolve) => (fire = resolve));
  return { fired, fire };
}
