// The cost of the protocol (issue 31): the same small GET (route.yaml's getPetById) over plaintext HTTP/1.1
// (autocannon), HTTP/2 with prior knowledge on the same port (h2load, from the Debian package
// nghttp2-client, when installed), and HTTP/1.1 over TLS (autocannon). One facade per protocol setup, the
// figures are medians of the rounds: req/s, and the facade process's CPU per request (from /proc). Before the
// loads, every protocol the facade serves (h2c, h2 over TLS and HTTP/1.1 over TLS, whether or not h2load
// is there) must answer the same status, Content-Type and body as plaintext HTTP/1.1.
// `node scripts/bench.mjs --only protocols`.
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:http2';
import { request } from 'node:https';
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
      resolve({ rps: Number(rps), requests: Number(ok[1]), failed: Number(ok[2]) });
    });
  });
}

async function h1(scheme, port, connections, seconds) {
  const result = await autocannon({ url: `${scheme}://127.0.0.1:${port}${PATH}`, connections, duration: seconds });
  return { rps: result.requests.average, requests: result.requests.total, failed: result.errors + result.timeouts + result.non2xx };
}

/** A load, with the CPU time the facade process `pid` spent on it per request answered. */
async function measured(pid, cpuMicros, run) {
  const cpu0 = cpuMicros(pid);
  const figures = await run();
  return { ...figures, cpu: (cpuMicros(pid) - cpu0) / Math.max(figures.requests, 1) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One answer over HTTP/1.1 (plaintext, or TLS trusting `ca`): status, Content-Type and body. */
function getH1(port, ca) {
  if (ca === undefined) return fetch(`http://127.0.0.1:${port}${PATH}`).then(async (res) => ({ status: res.status, type: res.headers.get('content-type'), body: await res.text() }));
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: PATH, ca, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, type: res.headers['content-type'] ?? null, body, alpn: res.socket.alpnProtocol || 'none' }));
      res.on('error', reject);
    });
    req.on('error', reject).end();
  });
}

/** One answer over HTTP/2: prior knowledge on a plaintext port, or ALPN `h2` over TLS trusting `ca`. */
function getH2(port, ca) {
  return new Promise((resolve, reject) => {
    const session = connect(ca === undefined ? `http://127.0.0.1:${port}` : `https://127.0.0.1:${port}`, ca === undefined ? {} : { ca });
    session.on('error', reject);
    const stream = session.request({ ':method': 'GET', ':path': PATH });
    let head;
    let body = '';
    stream.on('response', (headers) => (head = headers));
    stream.setEncoding('utf8').on('data', (d) => (body += d));
    stream.on('end', () => {
      session.close();
      resolve({ status: head?.[':status'], type: head?.['content-type'] ?? null, body });
    });
    stream.on('error', (err) => {
      session.destroy();
      reject(err);
    });
  });
}

/** Every protocol's answer must be the same bytes as plaintext HTTP/1.1's, or the figures compare nothing. */
async function checkSameAnswers(plainPort, securePort, ca) {
  const reference = await getH1(plainPort);
  if (reference.status !== 200) throw new Error(`HTTP/1.1 plaintext answered ${reference.status}: ${reference.body.slice(0, 300)}`);
  const others = {
    'HTTP/2 prior knowledge (h2c)': await getH2(plainPort),
    'HTTP/1.1 over TLS': await getH1(securePort, ca),
    'HTTP/2 over TLS (ALPN h2)': await getH2(securePort, ca),
  };
  for (const [what, answer] of Object.entries(others)) {
    for (const field of ['status', 'type', 'body']) {
      if (answer[field] !== reference[field]) throw new Error(`${what} answered ${field} ${JSON.stringify(answer[field])}, HTTP/1.1 plaintext ${JSON.stringify(reference[field])}`);
    }
  }
  const alpn = others['HTTP/1.1 over TLS'].alpn;
  if (alpn !== 'http/1.1' && alpn !== 'none') throw new Error(`HTTP/1.1 over TLS: the handshake chose ${alpn}`);
}

export async function protocolFigures({ main, files, startFacade, duration, rounds, connections, cpuMicros }) {
  const h2 = h2loadBinary();
  const certs = mkdtempSync(join(tmpdir(), 'svc-bench-tls-'));
  await makeExamplePki(certs);
  const ca = readFileSync(join(certs, 'ca.pem'), 'utf8');
  const tlsEnv = { SVC_SERVER_TLS_CERTFILE: join(certs, 'server.pem'), SVC_SERVER_TLS_KEYFILE: join(certs, 'server.key') };
  const plain = await startFacade(main, files, {});
  const secure = await startFacade(main, files, tlsEnv);
  const figures = { h1: [], h2: [], tls: [] };
  try {
    await checkSameAnswers(plain.port, secure.port, ca);
    // Warm-up, not measured.
    await h1('http', plain.port, connections, 1);
    await h1('https', secure.port, connections, 1);
    for (let r = 0; r < rounds; r++) {
      figures.h1.push(await measured(plain.child.pid, cpuMicros, () => h1('http', plain.port, connections, duration)));
      if (h2) figures.h2.push(await measured(plain.child.pid, cpuMicros, () => h2load(plain.port, connections, duration)));
      figures.tls.push(await measured(secure.child.pid, cpuMicros, () => h1('https', secure.port, connections, duration)));
    }
  } finally {
    plain.child.kill('SIGTERM');
    secure.child.kill('SIGTERM');
    rmSync(certs, { recursive: true, force: true });
  }
  const rps = (runs) => median(runs.map((x) => x.rps));
  const cpu = (runs) => median(runs.map((x) => x.cpu));
  const figuresOf = (runs) => `${rps(runs).toFixed(0).padStart(7)} req/s ${cpu(runs).toFixed(1).padStart(6)} µs CPU/req  (failed ${runs.reduce((n, x) => n + x.failed, 0)})`;
  console.log(`\nprotocols: GET ${PATH} (route.yaml), ${connections} connections, medians of ${rounds} rounds of ${duration} s; CPU: the facade process's, per request`);
  console.log('  same answer (status, Content-Type, body) over h2c, h2 over TLS and HTTP/1.1 over TLS as over HTTP/1.1: checked');
  console.log(`  HTTP/1.1 plaintext (autocannon)          ${figuresOf(figures.h1)}`);
  if (h2) console.log(`  HTTP/2 prior knowledge (h2load -m 10)    ${figuresOf(figures.h2)}  h2/h1 ${(rps(figures.h2) / rps(figures.h1)).toFixed(2)} req/s, ${(cpu(figures.h1) / cpu(figures.h2)).toFixed(2)} CPU (h1/h2)`);
  else console.log('  HTTP/2: h2load is not installed (Debian package nghttp2-client); no HTTP/2 figure');
  console.log(`  HTTP/1.1 over TLS (autocannon)           ${figuresOf(figures.tls)}  tls/plaintext ${(rps(figures.tls) / rps(figures.h1)).toFixed(2)} req/s, ${(cpu(figures.h1) / cpu(figures.tls)).toFixed(2)} CPU (plaintext/tls)`);
}
