// Certificates renewed on disk are served without a restart. cert-manager and Let's Encrypt clients replace
// the files by an atomic rename, Kubernetes secret volumes by swapping a symlink: stat() follows the links, so
// a new inode, size or modification time is a change. The files are polled (fs.watch misses a swapped
// symlink's target), a change is loaded once the files have stayed the same for one more poll (a pair
// written one file at a time is read whole), and the new context goes to server.setSecureContext: only new
// handshakes get it; open connections, and the requests on them, keep theirs.
import { statSync } from 'node:fs';
import type { Server as TlsServer } from 'node:tls';
import type { Logger } from '../util/log.js';
import type { Exposition } from '../util/exposition.js';
import { readTlsMaterial, type TlsFiles, type TlsMaterial } from './tls.js';
import type { TlsListenerOptions } from './tls-options.js';

/** Poll interval: a renewal is served within two of them (the change, then one poll of stability). */
const POLL_MS = 500;

export class CertificateReloader {
  /** The files' state when the served certificate was read (or when a bad pair was refused). */
  private settled: string;
  /** A state seen once; loaded if the next poll sees it again. */
  private pending: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private expiresAt: number;
  private reloads = 0;
  private failures = 0;

  constructor(
    private readonly server: TlsServer,
    private readonly files: TlsFiles,
    private readonly options: Partial<TlsListenerOptions>,
    /** `svc.server.tls`, `svc.observe.tls`: in log lines. */
    private readonly where: string,
    /** The `listener` label of the metrics: `server` or `management`. */
    private readonly listener: string,
    private readonly logger: Logger,
    served: TlsMaterial,
  ) {
    this.settled = fileState(files);
    this.expiresAt = served.expiresAt;
  }

  start(): this {
    this.timer ??= setInterval(() => this.poll(), POLL_MS);
    this.timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One poll; public so a test (or an operator's signal handler) need not wait for the timer. */
  poll(): void {
    const state = fileState(this.files);
    if (state === this.settled) {
      this.pending = undefined;
      return;
    }
    if (state !== this.pending) {
      this.pending = state;
      return;
    }
    this.pending = undefined;
    this.settled = state;
    let material: TlsMaterial;
    try {
      material = readTlsMaterial(this.files, this.options, this.where);
      this.server.setSecureContext(material.context);
    } catch (err) {
      this.failures++;
      this.logger.error(`${(err as Error).message}; still serving the previous certificate`);
      return;
    }
    this.reloads++;
    this.expiresAt = material.expiresAt;
    this.logger.info(`${this.where}: certificate reloaded from ${this.files.cert}, valid until ${new Date(material.expiresAt * 1000).toISOString()}`);
  }

  /** This listener's samples of the families certificateMetrics writes. */
  get samples(): { labels: string; expiresAt: number; reloads: number; failures: number } {
    return { labels: `listener="${this.listener}"`, expiresAt: this.expiresAt, reloads: this.reloads, failures: this.failures };
  }
}

/** The certificate families of /observe/metrics, one sample per TLS listener; nothing without TLS. */
export function certificateMetrics(out: Exposition, reloaders: readonly CertificateReloader[]): void {
  if (reloaders.length === 0) return;
  const samples = reloaders.map((r) => r.samples);
  out.family('svc_tls_certificate_expiry_timestamp_seconds', 'gauge', 'When the served certificate expires (notAfter), in seconds since the Unix epoch.');
  for (const s of samples) out.sample('svc_tls_certificate_expiry_timestamp_seconds', s.labels, s.expiresAt);
  out.family('svc_tls_certificate_reloads_total', 'counter', 'Certificates reloaded after their files changed.');
  for (const s of samples) out.sample('svc_tls_certificate_reloads_total', s.labels, s.reloads);
  out.family('svc_tls_certificate_reload_failures_total', 'counter', 'Changed certificate files that could not be used (the previous certificate is still served).');
  for (const s of samples) out.sample('svc_tls_certificate_reload_failures_total', s.labels, s.failures);
}

/** Inode, size and modification time of each file, links followed; `-` for a file that is not there (mid-swap). */
function fileState(files: TlsFiles): string {
  let state = '';
  for (const file of [files.cert, files.key, files.ca]) {
    if (file === undefined) continue;
    try {
      const s = statSync(file);
      state += `${s.ino}:${s.size}:${s.mtimeMs};`;
    } catch {
      state += '-;';
    }
  }
  return state;
}
