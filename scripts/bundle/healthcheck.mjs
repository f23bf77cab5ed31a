// dist/healthcheck.js (copied there by scripts/build.mjs): the container image's HEALTHCHECK. It asks the
// address the running CLI wrote to $SVC_HEALTHCHECK_FILE (lib/observe/healthcheck-file.ts), so it finds the
// management port however it was configured. Exit 0: healthy; 1: not (no file yet, no answer, not 2xx).
import { readFileSync } from 'node:fs';
import { get } from 'node:https';

let target;
try {
  target = JSON.parse(readFileSync(process.env.SVC_HEALTHCHECK_FILE ?? '', 'utf8'));
} catch {
  process.exit(1);
}
const url = target.health ?? target.listening;
// Over TLS (svc.server.tls, svc.observe.tls) the process asks itself on loopback: whether it answers is the
// question, not who it is, so its certificate is not verified (it may be for a public name, or self-signed).
const status = url.startsWith('https:') ? await httpsStatus(url) : await fetch(url, { signal: AbortSignal.timeout(2500) }).then(async (res) => (await res.arrayBuffer().catch(() => undefined), res.status), () => undefined);
process.exit(status !== undefined && (target.health === undefined || (status >= 200 && status < 300)) ? 0 : 1);

function httpsStatus(url) {
  return new Promise((resolve) => {
    const req = get(url, { rejectUnauthorized: false, timeout: 2500 }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode)).on('error', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy()).on('error', () => resolve(undefined));
  });
}
