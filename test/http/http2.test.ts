// HTTP/2 (lib/http/http2.ts) with node's http2 client, on cleartext with prior knowledge and over TLS by
// ALPN, through the main request paths: routing, 404 and 405 with Allow, validation problems, the mock, an
// SSE answer item by item, the spec endpoint, forwarding to an HTTP/1.1 backend (whose connection-specific
// fields never reach the h2 client), a request whose content-length its DATA disagrees with never reaching
// the backend whole, the stream limit; and a rapid-reset flood (CVE-2023-44487).
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { once } from 'node:events';
import assert from 'node:assert/strict';
import { connect, constants, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { createConnection, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import type { Exchange, FacadeObjectConfig } from '../../lib/index.js';
import { http2Answer, memoryLogger, PETSTORE, ROOT, serve, type Running } from '../helpers.js';
import { createListener } from '../../lib/http/listener.js';
import { SERVER_DEFAULTS } from '../../lib/config/model.js';
import { makePki, type TestPki } from './pki.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Transport {
  name: string;
  start(input: FacadeObjectConfig): Promise<{ running: Running; session: () => ClientHttp2Session }>;
}

let pki: TestPki | undefined;

const TRANSPORTS: Transport[] = [
  {
    name: 'h2c prior knowledge',
    async start(input) {
      const running = await serve(input);
      return { running, session: () => connect(running.origin) };
    },
  },
  {
    name: 'h2 over TLS (ALPN)',
    async start(input) {
      pki ??= await makePki();
      const running = await serve({ ...input, baseDir: pki.dir, server: { ...input.server, tls: { certFile: 'server.pem', keyFile: 'server.key' } } });
      const origin = running.origin.replace('http:', 'https:');
      return { running, session: () => connect(origin, { ca: pki!.ca.cert }) };
    },
  },
];

function send(session: ClientHttp2Session, headers: Record<string, string>, body?: string): Promise<Answer> {
  const stream = session.request(headers);
  const answer = http2Answer(stream);
  stream.end(body);
  return answer;
}

/** A backend that records each request's head and whether its body arrived whole, and answers with HTTP/1.1 hop-by-hop fields. */
async function rawBackend(): Promise<{ origin: string; requests: { head: string; complete: boolean }[]; close(): void }> {
  const requests: { head: string; complete: boolean }[] = [];
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    let data = '';
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    socket.on('data', (chunk) => {
      data += chunk.toString('latin1');
      const end = data.indexOf('\r\n\r\n');
      if (end === -1) return;
      const head = data.slice(0, end);
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (data.length - end - 4 < length) return;
      requests.push({ head, complete: true });
      data = '';
      const body = '{"id":7,"name":"rex","photoUrls":[]}';
      socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: keep-alive, X-Hop\r\nKeep-Alive: timeout=5\r\nX-Hop: hop\r\nProxy-Connection: keep-alive\r\nUpgrade: h2c\r\nTransfer-Encoding: chunked\r\n\r\n${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close() {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

for (const transport of TRANSPORTS) {
  test(`${transport.name}: routing, 404, 405 with Allow, validation problem, mock, spec endpoint, forwarding`, async () => {
    const backend = await rawBackend();
    const { running, session } = await transport.start({
      specification: PETSTORE,
      missingOperation: 'mock',
      restConfiguration: { clientRequestValidation: true, apiContextPath: '/api-doc', hostNameResolver: 'none' },
      routes: {
        getPetById: (ex: Exchange) => {
          ex.message.headers.set('content-type', 'application/json');
          // A route's connection-specific fields are HTTP/1.1's business: left out of an h2 answer, never a failure.
          ex.message.headers.set('keep-alive', 'timeout=5');
          ex.body = { id: Number(ex.header('petId')), name: 'doggie', photoUrls: [], protocol: ex.request?.httpVersion };
        },
        addPet: [{ kind: 'to', uri: `${backend.origin}/pets` }],
      },
    });
    const client = session();
    try {
      const pet = await send(client, { ':path': '/api/v3/pet/5' });
      assert.equal(pet.status, 200);
      assert.deepEqual(JSON.parse(pet.body), { id: 5, name: 'doggie', photoUrls: [], protocol: '2.0' });
      assert.equal(pet.headers['keep-alive'], undefined);

      const missing = await send(client, { ':path': '/api/v3/nowhere' });
      assert.equal(missing.status, 404);
      assert.equal(missing.headers['content-type'], 'application/problem+json');

      const wrongMethod = await send(client, { ':method': 'DELETE', ':path': '/api/v3/store/inventory' });
      assert.equal(wrongMethod.status, 405);
      assert.equal(wrongMethod.headers.allow, 'GET, HEAD');

      const invalid = await send(client, { ':path': '/api/v3/pet/abc' });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.headers['content-type'], 'application/problem+json');
      assert.equal(JSON.parse(invalid.body).errors[0].in, 'path');

      const mocked = await send(client, { ':path': '/api/v3/store/inventory' });
      assert.equal(mocked.status, 200);
      assert.equal(typeof JSON.parse(mocked.body), 'object');

      const spec = await send(client, { ':path': '/api-doc' });
      assert.equal(spec.status, 200);
      assert.match(JSON.parse(spec.body).openapi, /^3\.0\./);

      const created = await send(client, { ':method': 'POST', ':path': '/api/v3/pet', 'content-type': 'application/json' }, '{"name":"rex","photoUrls":[]}');
      assert.equal(created.status, 200);
      assert.deepEqual(JSON.parse(created.body), { id: 7, name: 'rex', photoUrls: [] });
      for (const name of ['connection', 'keep-alive', 'proxy-connection', 'upgrade', 'transfer-encoding', 'x-hop']) assert.equal(created.headers[name], undefined, name);
      assert.equal(backend.requests.length, 1);
      assert.match(backend.requests[0]!.head, /^POST \/pets HTTP\/1\.1\r\n/);
      assert.doesNotMatch(backend.requests[0]!.head, /^:/m, 'no pseudo-header reaches the backend');
      assert.match(backend.requests[0]!.head, /\r\nhost: 127\.0\.0\.1:\d+\r\n/i);

      // DATA shorter than the content-length it announced: the stream is reset, nothing complete reaches the backend.
      const short = client.request({ ':method': 'POST', ':path': '/api/v3/pet', 'content-type': 'application/json', 'content-length': '100' });
      short.on('error', () => undefined);
      const closed = new Promise<number>((resolve) => short.on('close', () => resolve(short.rstCode ?? -1)));
      short.resume();
      short.end('{"name":"rex","photoUrls":[]}');
      assert.notEqual(await closed, constants.NGHTTP2_NO_ERROR);
      assert.equal(backend.requests.length, 1, 'the short request never reached the backend whole');

      assert.equal(client.remoteSettings.maxConcurrentStreams, 100);
      assert.ok(client.remoteSettings.maxHeaderListSize! <= 64 * 1024, 'the header list is bounded');
    } finally {
      client.close();
      await running.close();
      backend.close();
    }
  });

  test(`${transport.name}: an SSE answer arrives item by item`, async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { running, session } = await transport.start({
      specification: join(ROOT, 'test/fixtures/streams/streams.yaml'),
      missingOperation: 'ignore',
      routes: {
        watchPrices: (ex: Exchange) => {
          ex.body = (async function* () {
            yield { event: 'tick', data: { symbol: 'A', price: 1 } };
            await released; // the second event waits until the client has the first
            yield { event: 'tick', data: { symbol: 'B', price: 2 } };
          })();
        },
      },
    });
    const client = session();
    try {
      const stream = client.request({ ':path': '/api/prices' });
      const head = await new Promise<IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
      assert.equal(head[':status'], 200);
      assert.equal(head['content-type'], 'text/event-stream');
      let text = '';
      stream.setEncoding('utf8');
      await new Promise<void>((resolve) => {
        const onData = (d: string): void => {
          text += d;
          if (text.endsWith('\n\n')) {
            stream.off('data', onData);
            resolve();
          }
        };
        stream.on('data', onData);
      });
      assert.equal(text, 'event: tick\ndata: {"symbol":"A","price":1}\n\n');
      release();
      const rest = await new Promise<string>((resolve) => {
        let more = '';
        stream.on('data', (d: string) => (more += d)).on('end', () => resolve(more));
      });
      assert.equal(rest, 'event: tick\ndata: {"symbol":"B","price":2}\n\n');
    } finally {
      release();
      client.close();
      await running.close();
    }
  });
}

test('h2 over TLS with clientAuth require: the client certificate is on the exchange, as over HTTP/1.1', async () => {
  pki ??= await makePki();
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'mock',
    baseDir: pki.dir,
    server: { tls: { certFile: 'server.pem', keyFile: 'server.key', caFile: 'ca.pem', clientAuth: 'require' } },
    routes: {
      getInventory: (ex: Exchange) => {
        ex.message.headers.set('content-type', 'application/json');
        ex.body = { subject: ex.clientCertificate?.subject, authorized: ex.clientCertificate?.authorized, protocol: ex.request?.httpVersion };
      },
    },
  });
  const client = connect(running.origin.replace('http:', 'https:'), { ca: pki.ca.cert, cert: pki.client.cert, key: pki.client.key });
  try {
    for (let i = 0; i < 2; i++) {
      const answer = await send(client, { ':path': '/api/v3/store/inventory' });
      assert.deepEqual(JSON.parse(answer.body), { subject: 'CN=alice,O=Example', authorized: true, protocol: '2.0' });
    }
  } finally {
    client.close();
    await running.close();
  }
});

test('connection-specific fields a listener sets (setHeader or writeHead) are left out of an HTTP/2 answer, never a failed stream', { timeout: 30_000 }, async () => {
  const listener = createListener(
    (_req, res) => {
      res.setHeader('keep-alive', 'timeout=5');
      res.setHeader('x-kept', 'yes');
      res.writeHead(200, 'OK', { 'transfer-encoding': 'chunked', connection: 'close', upgrade: 'h2c', 'proxy-connection': 'keep-alive', 'content-type': 'text/plain' });
      res.end('ok');
    },
    SERVER_DEFAULTS,
    { tls: {}, baseDir: ROOT, where: 'svc.server.tls', label: 'server', http2: true },
    memoryLogger(),
  );
  await new Promise<void>((resolve) => listener.server.listen(0, '127.0.0.1', resolve));
  const client = connect(`http://127.0.0.1:${(listener.server.address() as AddressInfo).port}`);
  try {
    const answer = await send(client, { ':path': '/' });
    assert.equal(answer.status, 200);
    assert.equal(answer.body, 'ok');
    assert.equal(answer.headers['x-kept'], 'yes');
    for (const name of ['keep-alive', 'transfer-encoding', 'connection', 'upgrade', 'proxy-connection']) assert.equal(answer.headers[name], undefined, name);
  } finally {
    client.close();
    listener.server.closeAllConnections();
    listener.server.close();
  }
});

/** The attacker, in a process of its own so that the RSS measured here is the facade's: sessions of HEADERS each cancelled at once, for 3 s. */
const FLOOD = `
import { connect, constants } from 'node:http2';
let sent = 0;
for (const deadline = Date.now() + 3000; Date.now() < deadline; ) {
  const attacker = connect(process.argv[1]);
  attacker.on('error', () => undefined);
  await new Promise((resolve) => attacker.once('connect', resolve).once('close', resolve));
  for (let i = 0; i < 2000 && !attacker.destroyed && !attacker.closed; i++) {
    try {
      const stream = attacker.request({ ':path': '/api/v3/pet/1' });
      stream.on('error', () => undefined);
      stream.close(constants.NGHTTP2_CANCEL);
      sent++;
    } catch {
      break;
    }
  }
  await new Promise((resolve) => setImmediate(resolve));
  attacker.destroy();
}
console.log(sent);
`;

test('a graceful stop closes a cleartext connection that has not sent a byte yet, even with the headers timeout off', { timeout: 30_000 }, async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'mock', server: { headersTimeout: 0, requestTimeout: 0, shutdownTimeout: '1s' } });
  const { port } = new URL(running.origin);
  const silent = createConnection({ host: '127.0.0.1', port: Number(port) });
  await new Promise((resolve) => silent.once('connect', resolve));
  const closed = new Promise((resolve) => silent.once('close', resolve));
  silent.resume();
  try {
    await running.close();
    await closed;
  } finally {
    silent.destroy();
  }
});

test('rapid reset (CVE-2023-44487): thousands of HEADERS then RST_STREAM leave the process serving others, RSS growth under 50 MiB', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'mock' });
  const other = connect(running.origin);
  try {
    assert.equal((await send(other, { ':path': '/api/v3/pet/1' })).status, 200);
    const rssBefore = process.memoryUsage().rss;
    const flood = spawn(process.execPath, ['--input-type=module', '-e', FLOOD, running.origin], { stdio: ['ignore', 'pipe', 'inherit'] });
    let printed = '';
    flood.stdout!.on('data', (d: Buffer) => (printed += d.toString()));
    // Served while the flood goes on.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    assert.equal((await send(other, { ':path': '/api/v3/pet/1' })).status, 200, 'another client is served during the flood');
    await new Promise((resolve) => flood.on('close', resolve));
    const sent = Number(printed.trim());
    assert.ok(sent > 5000, `the flood sent ${sent} resets`);
    assert.equal((await send(other, { ':path': '/api/v3/pet/1' })).status, 200, 'another client is served after it');
    const growth = (process.memoryUsage().rss - rssBefore) / 2 ** 20;
    assert.ok(growth < 50, `RSS grew ${growth.toFixed(1)} MiB`);
  } finally {
    other.close();
    await running.close();
  }
});

test('h2c: the request a route sees is shaped as IncomingMessage; CONNECT gets 405, an unknown expectation 417, 100-continue an interim 100', async () => {
  let seen: Record<string, unknown> | undefined;
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      addPet: (ex: Exchange) => {
        const req = ex.request!;
        seen = { method: req.method, url: req.url, httpVersion: req.httpVersion, major: req.httpVersionMajor, host: req.headers.host, address: req.socket.remoteAddress, stream: typeof (req as { stream?: object }).stream, complete: req.complete, rawHeaders: req.rawHeaders.includes(':path'), connection: req.connection === req.socket, setTimeout: req.setTimeout(60_000) === req };
        ex.message.headers.set('content-type', 'application/json');
        ex.body = { id: 1, name: 'rex', photoUrls: [] };
      },
    },
  });
  const client = connect(running.origin);
  try {
    const created = await send(client, { ':method': 'POST', ':path': '/api/v3/pet?x=1', 'content-type': 'application/json' }, '{"name":"rex","photoUrls":[]}');
    assert.equal(created.status, 200);
    assert.deepEqual(seen, { method: 'POST', url: '/api/v3/pet?x=1', httpVersion: '2.0', major: 2, host: new URL(running.origin).host, address: '127.0.0.1', stream: 'object', complete: true, rawHeaders: true, connection: true, setTimeout: true });

    const tunnel = await send(client, { ':method': 'CONNECT', ':authority': 'example.com:443' });
    assert.equal(tunnel.status, 405);

    const unknown = await send(client, { ':method': 'POST', ':path': '/api/v3/pet', 'content-type': 'application/json', expect: 'teapot' }, '{}');
    assert.equal(unknown.status, 417);

    const stream = client.request({ ':method': 'POST', ':path': '/api/v3/pet', 'content-type': 'application/json', expect: '100-continue' }, { endStream: false });
    await once(stream, 'continue');
    stream.end('{"name":"rex","photoUrls":[]}');
    const [head] = (await once(stream, 'response')) as [IncomingHttpHeaders];
    assert.equal(head[':status'], 200);
    stream.resume();
    await once(stream, 'end');
  } finally {
    client.close();
    await running.close();
  }
});
