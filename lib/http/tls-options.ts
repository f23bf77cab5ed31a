// The TLS options of a listener: `svc.server.tls.*` for the main port, `svc.observe.tls.*` for the management
// port (docs/security.md#tls). Every file is read at listen time and again when it changes (cert-reload.ts).

/** What the management port takes: a certificate of its own, or none (plaintext). */
export interface TlsListenerOptions {
  /** PEM certificate chain; with keyFile, turns TLS on for the port. */
  certFile: string | undefined;
  keyFile: string | undefined;
  /** PEM CA certificates that client certificates are verified against. */
  caFile: string | undefined;
  clientAuth: 'none' | 'request' | 'require';
  minVersion: 'TLSv1.2' | 'TLSv1.3';
}

/** The main port's: also whether a verified client certificate is described to `to:` backends. */
export interface TlsOptions extends TlsListenerOptions {
  /** `X-Forwarded-Client-Cert` on forwarded requests (a client's own copy is always removed). */
  forwardClientCert: boolean;
}

export const TLS_DEFAULTS: TlsOptions = {
  certFile: undefined,
  keyFile: undefined,
  caFile: undefined,
  clientAuth: 'none',
  minVersion: 'TLSv1.2',
  forwardClientCert: false,
};
