// The server a port is served by: plaintext or TLS (svc.server.tls.*, svc.observe.tls.*), HTTP/2 beside
// HTTP/1.1 or not (svc.server.http2), and the certificate reloader of a TLS one.
import type { Server } from 'node:http';
import type { Server as TlsServer } from 'node:tls';
import type { ServerOptions } from '../config/model.js';
import type { Logger } from '../util/log.js';
import { CertificateReloader } from './cert-reload.js';
import { attachHttp2 } from './http2.js';
import { createHttpServer, type RequestListener } from './server.js';
import { readTlsMaterial, serverTlsOptions, tlsFiles } from './tls.js';
import type { TlsListenerOptions } from './tls-options.js';

export interface Listener {
  server: Server;
  /** Watches the certificate files of a TLS listener; undefined on plaintext. */
  reloader: CertificateReloader | undefined;
}

export interface ListenerSpec {
  tls: Partial<TlsListenerOptions>;
  /** Relative certificate paths are found here (the configuration's folder). */
  baseDir: string;
  /** `svc.server.tls`: names the options in errors and log lines. */
  where: string;
  /** The `listener` label of the certificate metrics. */
  label: string;
  http2: boolean;
}

/** Throws (one line naming the file) when the TLS options or files cannot be used: startup fails. */
export function createListener(handler: RequestListener, options: ServerOptions, spec: ListenerSpec, logger: Logger): Listener {
  const files = tlsFiles(spec.tls, spec.baseDir, spec.where);
  if (files === undefined) {
    const server = createHttpServer(handler, options);
    if (spec.http2) attachHttp2(server, handler, options, false);
    return { server, reloader: undefined };
  }
  const material = readTlsMaterial(files, spec.tls, spec.where);
  const server = createHttpServer(handler, options, serverTlsOptions(material, spec.tls, spec.http2));
  if (spec.http2) attachHttp2(server, handler, options, true);
  const reloader = new CertificateReloader(server as unknown as TlsServer, files, spec.tls, spec.where, spec.label, logger, material);
  return { server, reloader };
}
