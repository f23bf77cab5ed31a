// Starts a bench server (the facade, a peer, a bare server, a backend) as a node child process and waits for
// its "listening on http://host:port" line: every server the bench runs prints one.
import { spawn } from 'node:child_process';

/**
 * Resolves to the child and the port it listens on; rejects if it exits first or says nothing for 30 s.
 * `pinTo`: a CPU to run it on (through taskset).
 */
export function start(command, commandArgs, env = {}, { pinTo } = {}) {
  return new Promise((resolve, reject) => {
    const argv = [process.execPath, command, ...commandArgs];
    if (pinTo !== undefined) argv.unshift('taskset', '-c', String(pinTo));
    const child = spawn(argv[0], argv.slice(1), { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`timeout starting ${command}: ${err || out}`)), 30_000);
    const onData = (d) => {
      out += d;
      const m = /listening on https?:\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout.off('data', onData).resume(); // keep draining (Prism logs every request)
        resolve({ child, port: Number(m[1]) });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited ${code}: ${err}`));
    });
  });
}
