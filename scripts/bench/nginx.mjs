// Issue 25's anchor for forwarding: nginx in front of the scenario's backend, one process (`master_process
// off`: the master is the only worker, so the bench's CPU figure for its PID is all of nginx's work), upstream
// keep-alive, its own prefix and config in a temporary folder. Optional: without `nginx` on PATH (Debian's
// nginx-light) the bench prints a note and leaves it out.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The nginx binary on PATH (or in /usr/sbin, where Debian puts it), else undefined. */
export function nginxBinary() {
  for (const candidate of ['nginx', '/usr/sbin/nginx']) {
    if (spawnSync(candidate, ['-v'], { stdio: 'ignore' }).status === 0) return candidate;
  }
  return undefined;
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

const accepting = (port) =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });

function config(port, backendPort, prefix) {
  return `daemon off;
master_process off;
worker_processes 1;
error_log ${join(prefix, 'error.log')} warn;
pid ${join(prefix, 'nginx.pid')};
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${join(prefix, 'body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};
  keepalive_requests 1000000;
  upstream backend { server 127.0.0.1:${backendPort}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://backend;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_set_header X-Forwarded-Proto $scheme;
      proxy_buffering on;
    }
  }
}
`;
}

/** Starts nginx in front of backendPort; resolves like start.mjs's start(): the process and its port. */
export async function startNginx(binary, backendPort) {
  const prefix = mkdtempSync(join(tmpdir(), 'svc-bench-nginx-'));
  mkdirSync(join(prefix, 'logs'));
  const port = await freePort();
  const conf = join(prefix, 'nginx.conf');
  writeFileSync(conf, config(port, backendPort, prefix));
  const child = spawn(binary, ['-p', prefix, '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  child.once('exit', () => rmSync(prefix, { recursive: true, force: true }));
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${err}`);
    if (await accepting(port)) return { child, port };
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGTERM');
  throw new Error(`nginx did not listen on ${port}: ${err}`);
}
