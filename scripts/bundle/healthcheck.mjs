// dist/healthcheck.js (copied there by scripts/build.mjs): the container image's HEALTHCHECK. It asks the
// address the running CLI wrote to $SVC_HEALTHCHECK_FILE (lib/observe/healthcheck-file.ts), so it finds the
// management port however it was configured. Exit 0: healthy; 1: not (no file yet, no answer, not 2xx).
import { readFileSync } from 'node:fs';

let target;
try {
  target = JSON.parse(readFileSync(process.env.SVC_HEALTHCHECK_FILE ?? '', 'utf8'));
} catch {
  process.exit(1);
}
const url = target.health ?? target.listening;
const res = await fetch(url, { signal: AbortSignal.timeout(2500) }).catch(() => undefined);
await res?.arrayBuffer().catch(() => undefined);
process.exit(res !== undefined && (target.health === undefined || res.ok) ? 0 : 1);
