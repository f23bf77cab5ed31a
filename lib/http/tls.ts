// A listener's TLS (svc.server.tls.*, svc.observe.tls.*): the certificate files read and checked at startup,
// and the options node's TLS server takes. TLS 1.0 and 1.1 are never offered (minVersion is 1.2 or 1.3).
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createSecureContext, type SecureContextOptions, type TlsOptions as NodeTlsOptions } from 'node:tls';
import { Errors, svcError } from '../util/errors.js';
import type { TlsListenerOptions } from './tls-options.js';

/** The certificate files of a listener, resolved against the configuration's folder. */
export interface TlsFiles {
  cert: string;
  key: string;
  ca: string | undefined;
}

/** The files' contents as node takes them, and when the certificate expires. */
export interface TlsMaterial {
  context: SecureContextOptions;
  /** The leaf certificate's notAfter, in seconds since the epoch. */
  expiresAt: number;
}

/** Whether the listener serves TLS; a half-configured one (a key and no certificate, a CA without either) fails startup. */
export function tlsFiles(options: Partial<TlsListenerOptions>, baseDir: string, where: string): TlsFiles | undefined {
  const { certFile, keyFile, caFile, clientAuth = 'none' } = options;
  if (certFile === undefined && keyFile === undefined) {
    if (caFile !== undefined || clientAuth !== 'none') throw svcError(Errors.TLS_CONFIG, where, 'caFile and clientAuth need certFile and keyFile (the server certificate) too');
    return undefined;
  }
  if (certFile === undefined || keyFile === undefined) throw svcError(Errors.TLS_CONFIG, where, `${certFile === undefined ? 'certFile' : 'keyFile'} is not set; certFile and keyFile go together`);
  // Fail closed: without the CA to check them against, node would accept any certificate a public CA signed.
  if (clientAuth !== 'none' && caFile === undefined) throw svcError(Errors.TLS_CONFIG, where, `clientAuth ${clientAuth} needs caFile, the CA certificates that client certificates are checked against`);
  return { cert: resolve(baseDir, certFile), key: resolve(baseDir, keyFile), ca: caFile === undefined ? undefined : resolve(baseDir, caFile) };
}

/**
 * Reads and checks the files: PEM that parses, a key that belongs to the certificate. Throws TLS_FILES
 * naming the file and what is wrong; the caller keeps whatever it served before.
 */
export function readTlsMaterial(files: TlsFiles, options: Partial<TlsListenerOptions>, where: string): TlsMaterial {
  const read = (file: string): Buffer => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw svcError(Errors.TLS_FILES, where, file, (err as NodeJS.ErrnoException).code ?? (err as Error).message);
    }
  };
  const cert = read(files.cert);
  const key = read(files.key);
  const ca = files.ca === undefined ? undefined : read(files.ca);
  let expiresAt: number;
  try {
    expiresAt = Math.floor(Date.parse(new X509Certificate(cert).validTo) / 1000);
  } catch (err) {
    throw svcError(Errors.TLS_FILES, where, files.cert, `not a PEM certificate (${(err as Error).message})`);
  }
  const context: SecureContextOptions = { cert, key, minVersion: options.minVersion ?? 'TLSv1.2', ...(ca === undefined ? {} : { ca }) };
  try {
    createSecureContext(context);
  } catch (err) {
    const reason = (err as Error).message;
    const file = /ca|certificate authority/i.test(reason) && files.ca !== undefined ? files.ca : /key values mismatch/i.test(reason) ? `${files.key} with ${files.cert}` : /key/i.test(reason) ? files.key : files.cert;
    throw svcError(Errors.TLS_FILES, where, file, /key values mismatch/i.test(reason) ? 'the key does not belong to the certificate' : reason);
  }
  return { context, expiresAt };
}

/** The server options: the certificate, whether a client certificate is asked for, and the ALPN protocols. */
export function serverTlsOptions(material: TlsMaterial, options: Partial<TlsListenerOptions>, http2: boolean): NodeTlsOptions {
  const clientAuth = options.clientAuth ?? 'none';
  return {
    ...material.context,
    requestCert: clientAuth !== 'none',
    // `request`: the handshake completes with no or an unverified certificate; ex.clientCertificate.authorized says which.
    rejectUnauthorized: clientAuth === 'require',
    ALPNProtocols: http2 ? ['h2', 'http/1.1'] : ['http/1.1'],
  };
}
