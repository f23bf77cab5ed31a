// The real CLI (`node dist/main.js`, built by `npm run build`) as a child process for the edge tests, so a
// crash is seen as an exit and its file descriptors are counted in /proc apart from the clients'.
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PETSTORE, ROOT, startCli, tempDir, type StartedCli } from '../helpers.js';
import { until } from './raw-client.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS'));

export interface Service {
  cli: StartedCli;
  pid: number;
  /** `http://127.0.0.1:PORT` of the main port. */
  origin: string;
  /** The management port's origin, when `svc.observe.port` is set. */
  management: string | undefined;
}

/** Starts the CLI on the Petstore contract (operations without a route echo) with these `svc.*` properties. */
export function startPetstoreCli(properties: Record<string, string | number>): StartedCli {
  if (!existsSync(MAIN)) throw new Error('dist/main.js is missing: run `npm run build` first');
  const props = { 'svc.server.host': '127.0.0.1', 'svc.server.port': 0, ...properties };
  const dir = tempDir({
    'app.yaml': `- rest:\n    openApi:\n      specification: ${JSON.stringify(PETSTORE)}\n      missingOperation: ignore\n`,
    'app.properties': Object.entries(props).map(([k, v]) => `${k}=${v}\n`).join(''),
  });
  return startCli(process.execPath, [MAIN, join(dir, 'app.yaml'), join(dir, 'app.properties')], { cwd: dir, env: ENV });
}

/** startPetstoreCli, once it listens. */
export async function startService(properties: Record<string, string | number>): Promise<Service> {
  const cli = startPetstoreCli(properties);
  const origin = await cli.listening();
  const port = /^health and metrics on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(cli.output.stdout)?.[1];
  return { cli, pid: cli.child.pid!, origin, management: port === undefined ? undefined : `http://127.0.0.1:${port}` };
}

/** The pids of `pid`'s child processes (the cluster workers of a primary). */
export function childPids(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number).sort();
}

/** Sends SIGTERM and waits for the exit code (SIGKILL after 10 s). */
export async function stopService(service: Service): Promise<number | null> {
  service.cli.child.kill('SIGTERM');
  const killer = setTimeout(() => service.cli.child.kill('SIGKILL'), 10_000);
  const code = await service.cli.exited;
  clearTimeout(killer);
  return code;
}

export { until };
