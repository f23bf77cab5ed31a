// Bench scenario streams-relay (issue 13): the backend behind streams-relay.yaml, a bare node:http server
// answering the scenario's expected JSON Lines; it lives as long as the bench process.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BARE = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));

export function prepareRelay(scenario) {
  const { status, type, body } = scenario.expect;
  const child = spawn(process.execPath, [BARE], { env: { ...process.env, BARE_STATUS: String(status), BARE_TYPE: type, BARE_BODY: body }, stdio: ['ignore', 'pipe', 'inherit'] });
  process.once('exit', () => child.kill('SIGTERM'));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        // Not what keeps the bench running: it exits when its work is done, and the exit handler stops the backend.
        child.stdout.unref();
        child.unref();
        scenario.env = { ...scenario.env, BENCH_BACKEND_PORT: m[1] };
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`streams-relay backend exited ${code}`)));
  });
}
