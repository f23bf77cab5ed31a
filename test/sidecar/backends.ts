// Real backends on 127.0.0.1 for the sidecar tests: plain node:http servers, and https ones with a CA and
// certificates generated at test time with node's WebCrypto (nothing secret is committed).
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer, type ServerOptions } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { tempDir } from '../helpers.js';
// @ts-ignore: a JavaScript module without declarations
import { issue, makeCa } from '../../examples/https-mtls/make-certs.mjs';

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

/**
 * A CA, a server certificate for 127.0.0.1 and a client certificate (CN=facade-client), all signed by the CA,
 * written to a fresh folder: made with node's WebCrypto (examples/https-mtls/make-certs.mjs), no openssl.
 */
export async function generatePki(): Promise<TestPki> {
  const dir = tempDir();
  const ca = await makeCa('svc-facade test CA', 2);
  const server = await issue(ca, { subject: 'CN=127.0.0.1', names: [{ type: 'ip', value: '127.0.0.1' }], usage: 'server', days: 2 });
  const client = await issue(ca, { subject: 'CN=facade-client', usage: 'client', days: 2 });
  const files = { ca: 'ca.pem', serverCert: 'server.pem', serverKey: 'server.key', clientCert: 'client.pem', clientKey: 'client.key' };
  const texts = { ca: ca.cert, serverCert: server.cert, serverKey: server.key, clientCert: client.cert, clientKey: client.key };
  for (const [key, name] of Object.entries(files)) writeFileSync(join(dir, name), texts[key as keyof typeof texts]);
  return { dir, files, read: (name) => readFileSync(join(dir, name)) };
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

/** `what`, or a failure naming `label` after 10 s: a ceiling against a hang, never the assertion. */
export function within<T>(what: Promise<T>, label: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const ceiling = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`never came: ${label}`)), 10_000)));
  return Promise.race([what, ceiling]).finally(() => clearTimeout(timer));
}
