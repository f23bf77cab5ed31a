// The cost of the protocol (issue 31): the same small GET (route.yaml's getPetById) over plaintext HTTP/1.1
// (autocannon), HTTP/2 with prior knowledge on the same port (h2load, from the Debian package
// nghttp2-client, when installed), and HTTP/1.1 over TLS (autocannon). One facade per protocol setup, the
// figures are medians of the rounds. `node scripts/bench.mjs --only protocols`.
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeExamplePki } from '../../examples/https-mtls/make-certs.mjs';

const PATH = '/api/v3/pet/1';

/** h2load's path when installed; undefined (and a note) when not. */
function h2loadBinary() {
  const found = spawnSync('h2load', ['--version'], { encoding: 'utf8' });
  return found.status === 0 ? 'h2load' : undefined;
}

/** req/s of h2load over `connections` connections, 10 streams each at a time, for `seconds`. */
function h2load(port, connections, seconds) {
  return new Promise((resolve, reject) => {
    const child = spawn('h2load', ['-c', String(connections), '-m', '10', '-D', String(seconds), `http://127.0.0.1:${port}${PATH}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('close', () => {
      const rps = /finished in [^,]+, ([\d.]+) req\/s/.exec(out)?.[1];
      const ok = /requests: .* (\d+) succeeded, (\d+) failed/.exec(out);
      if (rps === undefined || ok === null) return reject(new Error(`h2load: ${out}`));
      resolve({ rps: Number(rps), failed: Number(ok[2]) });
    });
  });
}

async function h1(scheme, port, connections, seconds) {
  const result = await autocannon({ url: `${scheme}://127.0.0.1:${port}${PATH}`, connections, duration: seconds });
  return { rps: result.requests.average, failed: result.errors + result.timeouts + result.non2xx };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function protocolFigures({ main, files, startFacade, duration, rounds, connections }) {
  const h2 = h2loadBinary();
  const certs = mkdtempSync(join(tmpdir(), 'svc-bench-tls-'));
  await makeExamplePki(certs);
  const tlsEnv = { SVC_SERVER_TLS_CERTFILE: join(certs, 'server.pem'), SVC_SERVER_TLS_KEYFILE: join(certs, 'server.key') };
  const plain = await startFacade(main, files, {});
  const secure = await startFacade(main, files, tlsEnv);
  const figures = { h1: [], h2: [], tls: [] };
  try {
    // Warm-up, not measured.
    await h1('http', plain.port, connections, 1);
    await h1('https', secure.port, connections, 1);
    for (let r = 0; r < rounds; r++) {
      figures.h1.push(await h1('http', plain.port, connections, duration));
      if (h2) figures.h2.push(await h2load(plain.port, connections, duration));
      figures.tls.push(await h1('https', secure.port, connections, duration));
    }
  } finally {
    plain.child.kill('SIGTERM');
    secure.child.kill('SIGTERM');
    rmSync(certs, { recursive: true, force: true });
  }
  const rps = (runs) => median(runs.map((x) => x.rps));
  const failed = (runs) => runs.reduce((n, x) => n + x.failed, 0);
  console.log(`\nprotocols: GET ${PATH} (route.yaml), ${connections} connections, medians of ${rounds} rounds of ${duration} s`);
  console.log(`  HTTP/1.1 plaintext (autocannon)          ${rps(figures.h1).toFixed(0)} req/s  (failed ${failed(figures.h1)})`);
  if (h2) console.log(`  HTTP/2 prior knowledge (h2load -m 10)    ${rps(figures.h2).toFixed(0)} req/s  (failed ${failed(figures.h2)})  h2/h1 ${(rps(figures.h2) / rps(figures.h1)).toFixed(2)}`);
  else console.log('  HTTP/2: h2load is not installed (Debian package nghttp2-client); no HTTP/2 figure');
  console.log(`  HTTP/1.1 over TLS (autocannon)           ${rps(figures.tls).toFixed(0)} req/s  (failed ${failed(figures.tls)})  tls/plaintext ${(rps(figures.tls) / rps(figures.h1)).toFixed(2)}`);
}
