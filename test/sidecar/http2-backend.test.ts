// svc.backend.http2: an https:// backend is offered h2 by ALPN and spoken to over HTTP/2 when it chooses it;
// off (the default), the facade speaks HTTP/1.1 only. The backend is node's own HTTP/2 server with
// allowHTTP1 false, its certificate from a CA the route trusts with caFile.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createFacade, RouteBuilder, type FacadeInput } from '../../lib/index.js';
import { memoryLogger, PETSTORE, serve, tempDir } from '../helpers.js';
import { makePki, type Pem } from '../http/pki.js';

interface Seen {
  version: string;
  method: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** An h2-only backend recording what each stream carried, answering its body back as JSON. */
async function h2Backend(pem: Pem): Promise<{ origin: string; seen: Seen[]; handshakeErrors: Error[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const handshakeErrors: Error[] = [];
  const server = createSecureServer({ key: pem.key, cert: pem.cert, allowHTTP1: false }, (req: Http2ServerRequest, res: Http2ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ version: req.httpVersion, method: req.method, headers: { ...req.headers }, body });
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ version: req.httpVersion, echoed: body }));
    });
  });
  server.on('tlsClientError', (err: Error) => handshakeErrors.push(err));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    seen,
    handshakeErrors,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A POST through the facade with node's HTTP/1.1 client: hop-by-hop fields included, chunked when no length is given. */
function post(origin: string, path: string, body: string, headers: Record<string, string>, pause = 0): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    // Two writes without a Content-Length: the client sends it chunked, and the facade streams it on.
    // With a pause, the body is still arriving when the facade forwards it: streamed, without a length.
    req.write(body.slice(0, 5));
    setTimeout(() => req.end(body.slice(5)), pause);
  });
}

const PET = JSON.stringify({ id: 7, name: 'doggie', photoUrls: ['https://example.org/d.png'], status: 'available' });
const HOP_BY_HOP = { connection: 'keep-alive, x-hop', 'keep-alive': 'timeout=5', 'x-hop': 'only for this connection', 'proxy-connection': 'keep-alive', te: 'trailers' };

test('svc.backend.http2: an https backend that chooses h2 gets the request over HTTP/2, body and answer intact, no hop-by-hop field', async () => {
  const pki = await makePki();
  const backend = await h2Backend(pki.server);
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    backend: { http2: true },
    routes: { addPet: [{ kind: 'to', uri: `${backend.origin}/pets`, parameters: { caFile: join(pki.dir, 'ca.pem') } }] },
  });
  try {
    for (const [headers, pause] of [[HOP_BY_HOP, 0], [{ ...HOP_BY_HOP, 'content-length': String(Buffer.byteLength(PET)) }, 0], [HOP_BY_HOP, 100]] as const) {
      const answer = await post(running.origin, '/api/v3/pet', PET, headers, pause);
      assert.equal(answer.status, 201, answer.body);
      assert.deepEqual(JSON.parse(answer.body), { version: '2.0', echoed: PET });
    }
    assert.equal(backend.seen.length, 3);
    for (const seen of backend.seen) {
      assert.equal(seen.version, '2.0');
      assert.equal(seen.method, 'POST');
      assert.equal(seen.headers[':path'], '/pets');
      assert.equal(seen.headers[':authority'], new URL(backend.origin).host);
      for (const name of ['connection', 'keep-alive', 'x-hop', 'proxy-connection', 'transfer-encoding', 'te', 'upgrade', 'host']) assert.equal(seen.headers[name], undefined, name);
      assert.match(String(seen.headers.via), /svc-facade/);
    }
    // A chunked body that arrived whole before it was forwarded is sent with its length; one still streaming
    // is framed by its DATA frames alone (no Transfer-Encoding, which HTTP/2 forbids).
    assert.deepEqual(backend.seen.map((seen) => seen.headers['content-length']), [String(Buffer.byteLength(PET)), String(Buffer.byteLength(PET)), undefined]);
  } finally {
    await running.close();
    await backend.close();
  }
});

test('svc.backend.http2 off (the default): an h2-only backend refuses the HTTP/1.1-only handshake and the client gets a 502; the route option turns it on', async () => {
  const pki = await makePki();
  const backend = await h2Backend(pki.server);
  const caFile = join(pki.dir, 'ca.pem');
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      addPet: [{ kind: 'to', uri: `${backend.origin}/pets`, parameters: { caFile } }],
      updatePet: [{ kind: 'to', uri: `${backend.origin}/pets?http2=true`, parameters: { caFile } }],
    },
  });
  try {
    const refused = await post(running.origin, '/api/v3/pet', PET, {});
    assert.equal(refused.status, 502, refused.body);
    assert.equal(JSON.parse(refused.body).detail, 'The backend could not be reached.');
    assert.equal(backend.seen.length, 0);
    assert.match(String(backend.handshakeErrors[0]?.message), /no application protocol|ALPN/i);
    assert.match(running.logger.lines.join('\n'), /Caused by: ERR_SSL_TLSV1_ALERT_NO_APPLICATION_PROTOCOL/);

    const put = await new Promise<number>((resolve, reject) => {
      const req = request(`${running.origin}/api/v3/pet`, { method: 'PUT', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end(PET);
    });
    assert.equal(put, 201);
    assert.equal(backend.seen.length, 1);
    assert.equal(backend.seen[0]!.version, '2.0');
  } finally {
    await running.close();
    await backend.close();
  }
});

test('http2 on an http:// endpoint fails startup (h2 is chosen by ALPN); svc.backend.http2 leaves http:// backends on HTTP/1.1', async () => {
  await assert.rejects(
    serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { addPet: [{ kind: 'to', uri: 'http://127.0.0.1:9/x?http2=true' }] } }),
    /http2 applies to https:\/\/ backends only/,
  );
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', properties: { 'svc.backend.http2': 'true' }, routes: { addPet: [{ kind: 'to', uri: 'http://127.0.0.1:9/x' }] } });
  await running.close();
});

test('svc.backend.http2 on every surface: YAML backend:, XML <backend/>, properties, environment, fluent API, createFacade', async () => {
  const pki = await makePki();
  const backend = await h2Backend(pki.server);
  const to = `${backend.origin}/pets?caFile=${encodeURIComponent(join(pki.dir, 'ca.pem'))}`;
  const yaml = (settings: string): string => `- rest:\n    openApi:\n      specification: ${JSON.stringify(PETSTORE)}\n      missingOperation: ignore\n${settings}- route:\n    from:\n      uri: direct:addPet\n      steps:\n        - to: ${JSON.stringify(to)}\n`;
  const dir = tempDir({
    'yaml.yaml': yaml('- backend:\n    http2: true\n'),
    'plain.yaml': yaml(''),
    'svc.properties': 'svc.backend.http2=true\n',
    'sidecar.xml': `<svc><rest><openApi specification=${JSON.stringify(PETSTORE)} missingOperation="ignore"/></rest><backend http2="true"/><route><from uri="direct:addPet"/><to uri="${to.replace(/&/g, '&amp;')}"/></route></svc>`,
  });
  class Fluent extends RouteBuilder {
    override configure(): void {
      this.rest().openApi().specification(PETSTORE).missingOperation('ignore');
      this.backend().http2(true);
      this.from('direct:addPet').to(to);
    }
  }
  class FluentOptions extends Fluent {
    override configure(): void {
      super.configure();
      this.backend().http2(false).options({ http2: true });
    }
  }
  const surfaces: [string, FacadeInput, NodeJS.ProcessEnv][] = [
    ['YAML', [join(dir, 'yaml.yaml')], {}],
    ['XML', [join(dir, 'sidecar.xml')], {}],
    ['properties', [join(dir, 'plain.yaml'), join(dir, 'svc.properties')], {}],
    ['environment', [join(dir, 'plain.yaml')], { SVC_BACKEND_HTTP2: 'true' }],
    ['fluent', Fluent, {}],
    ['fluent options', FluentOptions, {}],
    ['createFacade', { specification: PETSTORE, missingOperation: 'ignore', backend: { http2: true }, routes: { addPet: [{ kind: 'to', uri: to }] } }, {}],
  ];
  try {
    for (const [surface, input, env] of surfaces) {
      const facade = await createFacade(input, { logger: memoryLogger(), env });
      try {
        const { port } = await facade.listen(0, '127.0.0.1');
        const answer = await post(`http://127.0.0.1:${port}`, '/api/v3/pet', PET, {});
        assert.equal(answer.status, 201, `${surface}: ${answer.body}`);
        assert.equal(JSON.parse(answer.body).version, '2.0', surface);
      } finally {
        await facade.stop();
      }
    }
    // And without any of them, the same route stays on HTTP/1.1 (refused by this h2-only backend).
    const facade = await createFacade([join(dir, 'plain.yaml')], { logger: memoryLogger(), env: {} });
    try {
      const { port } = await facade.listen(0, '127.0.0.1');
      assert.equal((await post(`http://127.0.0.1:${port}`, '/api/v3/pet', PET, {})).status, 502);
    } finally {
      await facade.stop();
    }
  } finally {
    await backend.close();
  }
});
