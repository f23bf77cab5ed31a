// Where a health check finds this process: with SVC_HEALTHCHECK_FILE set (the container image sets it), the
// CLI writes, once listening, the URL of its health endpoint there, management port and health path as the
// configuration resolved them. The image's HEALTHCHECK (dist/healthcheck.js) reads it, so the check asks the
// right port whether the port came from the environment, a properties file, YAML or the command line.
import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { FacadeConfig } from '../config/model.js';
import { observeOptions } from './observation.js';

export interface HealthcheckTarget {
  /** The health endpoint, when health is served; an HTTP 2xx from it is healthy. */
  health?: string;
  /** Else the main listener: any HTTP answer from it is healthy. */
  listening?: string;
}

export function writeHealthcheckFile(file: string, config: FacadeConfig, main: AddressInfo, management: AddressInfo | undefined): void {
  const observe = observeOptions(config);
  // The scheme of the port asked: the management port has TLS with svc.observe.tls, the main one with svc.server.tls.
  const mainSecure = config.tls.certFile !== undefined;
  const asked = management === undefined ? reachable(main, mainSecure) : reachable(management, config.observeTls.certFile !== undefined);
  const target: HealthcheckTarget = observe.health ? { health: `${asked}${observe.healthPath.replace(/\/+$/, '')}` } : { listening: `${reachable(main, mainSecure)}/` };
  writeFileSync(file, `${JSON.stringify(target)}\n`);
}

/** An origin a process on the same host can connect to: the wildcard addresses become loopback. */
function reachable(address: AddressInfo, secure: boolean): string {
  const host = address.address === '0.0.0.0' ? '127.0.0.1' : address.address === '::' ? '::1' : address.address;
  return `${secure ? 'https' : 'http'}://${address.family === 'IPv6' ? `[${host}]` : host}:${address.port}`;
}
