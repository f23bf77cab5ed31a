// Cross-origin answers (issue 30, docs/cors.md): preflights answered from the compiled router on every path of
// real contracts with exactly the declared methods; the full exchange a browser makes (preflight, call, error
// body read); the policy's fields on every answer (errors, the published contract, a backend's answer whose
// own Access-Control-* fields are replaced); and the options on every configuration surface.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createFacade, RouteBuilder, silentLogger, type ServedOperation } from '../../lib/index.js';
import { loadConfigFiles } from '../../lib/config/load.js';
import { CORPUS, PETSTORE, serve, tempDir } from '../helpers.js';
import { mapLimit, rawRequest } from '../fixtures/http.js';

const agent = new Agent({ keepAlive: true, maxSockets: 8 });
after(() => agent.destroy());

const APP = 'https://app.example';
const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'QUERY'];

/** A request path that reaches `op`'s path: parameters filled with a value no literal segment uses. */
function requestPath(op: ServedOperation): string {
  const path = op.path.replace(/\{[^{}]+\}/g, 'zq9');
  const d = op.operation.queryDiscriminator;
  return d === undefined ? path : `${path}?${encodeURIComponent(d.name)}${d.value === undefined ? '' : `=${encodeURIComponent(d.value)}`}`;
}

/** The router's key for a served path: parameter names do not tell paths apart, nor a trailing slash. */
const routeKey = (path: string): string => path.replace(/\{[^{}]+\}/g, '{}').replace(/(.)\/+$/, '$1');

const CONTRACTS = ['petstore-v3', 'github-rest-2020', 'twilio-api-v2010', 'discord', 'kubernetes-v3-core', 'readme-3.0-parameters-style', 'oai-v3.2-tags-example'];

test('preflights over corpus contracts: every path grants exactly its declared methods, never a 404', async (t) => {
  const manifest = JSON.parse(readFileSync(join(CORPUS, 'manifest.json'), 'utf8')) as { name: string; entry: string }[];
  for (const name of CONTRACTS) {
    const entry = manifest.find((e) => e.name === name)!;
    await t.test(name, async () => {
      const facade = await createFacade({ specification: join(CORPUS, entry.entry), missingOperation: 'ignore', restConfiguration: { enableCORS: true } }, { logger: silentLogger });
      const { port } = await facade.listen(0, '127.0.0.1');
      const origin = `http://127.0.0.1:${port}`;
      try {
        const declared = new Map<string, Set<string>>();
        for (const op of facade.operations) {
          const key = routeKey(op.path);
          if (!declared.has(key)) declared.set(key, new Set());
          declared.get(key)!.add(op.operation.method);
        }
        const wrong = (await mapLimit(facade.operations, 8, async (op) => {
          const methods = declared.get(routeKey(op.path))!;
          const path = requestPath(op);
          const problems: string[] = [];
          const granted = await rawRequest(origin, path, { method: 'OPTIONS', agent, headers: { origin: APP, 'access-control-request-method': op.operation.method } });
          if (granted.status !== 204) return [`${op.operation.method} ${path}: ${granted.status} ${granted.body}`];
          const listed = new Set(String(granted.headers['access-control-allow-methods']).split(', '));
          if ([...listed].sort().join() !== [...methods].sort().join()) problems.push(`${path}: allows ${[...listed]} but declares ${[...methods]}`);
          if (granted.headers['access-control-allow-origin'] !== '*') problems.push(`${path}: Access-Control-Allow-Origin ${granted.headers['access-control-allow-origin']}`);
          if (!/X-Request-Id/.test(String(granted.headers['access-control-allow-headers']))) problems.push(`${path}: no X-Request-Id in the allowed headers`);
          const undeclared = METHODS.find((m) => !methods.has(m) && !(m === 'HEAD' && methods.has('GET')));
          if (undeclared !== undefined) {
            const refused = await rawRequest(origin, path, { method: 'OPTIONS', agent, headers: { origin: APP, 'access-control-request-method': undeclared } });
            if (refused.status !== 403 || refused.headers['access-control-allow-origin'] !== undefined || refused.headers['content-type'] !== 'application/problem+json') problems.push(`${undeclared} ${path}: ${refused.status}, ${JSON.stringify(refused.headers)}`);
          }
          return problems;
        })).flat();
        assert.deepEqual(wrong.slice(0, 10), [], `${wrong.length} wrong preflight answers`);
      } finally {
        await facade.stop();
      }
    });
  }
});

test('allowed headers come from the operation: header parameters, Content-Type for a JSON body, the security schemes', async () => {
  const app = await serve({ specification: join(CORPUS, 'petstore-v3/openapi.yaml'), missingOperation: 'mock', restConfiguration: { enableCORS: true } });
  try {
    const preflight = (path: string, method: string) => rawRequest(app.origin, path, { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': method } });
    // DELETE /pet/{petId}: header parameter api_key; security petstore_auth (oauth2).
    const del = await preflight('/api/v3/pet/7', 'DELETE');
    assert.equal(del.status, 204);
    assert.deepEqual(String(del.headers['access-control-allow-headers']).split(', ').sort(), ['Authorization', 'X-Request-Id', 'api_key', 'traceparent', 'tracestate'].sort());
    assert.equal(del.headers['access-control-allow-methods'], 'GET, POST, DELETE');
    assert.equal(del.headers['access-control-max-age'], '3600');
    assert.equal(del.headers.vary, 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
    assert.equal(del.headers['access-control-allow-credentials'], undefined);
    // GET /pet/{petId}: security api_key (an apiKey in the header api_key) and petstore_auth.
    const get = await preflight('/api/v3/pet/7', 'GET');
    assert.deepEqual(String(get.headers['access-control-allow-headers']).split(', ').sort(), ['Authorization', 'X-Request-Id', 'api_key', 'traceparent', 'tracestate'].sort());
    // PUT /pet: a JSON body needs Content-Type; POST /pet/{petId} takes only query parameters.
    assert.match(String((await preflight('/api/v3/pet', 'PUT')).headers['access-control-allow-headers']), /(^|, )Content-Type(,|$)/);
    assert.doesNotMatch(String((await preflight('/api/v3/pet/7', 'POST')).headers['access-control-allow-headers']), /Content-Type/);
    // A path outside the contract is a 404 as before; an OPTIONS without Access-Control-Request-Method is no preflight.
    assert.equal((await preflight('/api/v3/nowhere', 'GET')).status, 404);
    const plain = await rawRequest(app.origin, '/api/v3/pet/7', { method: 'OPTIONS', headers: { origin: APP } });
    assert.equal(plain.status, 405);
    assert.equal(plain.headers.allow, 'GET, HEAD, POST, DELETE');
  } finally {
    await app.close();
  }
});

/** A backend that answers with its own CORS policy, which the facade must replace. */
async function permissiveBackend(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, PUT, DELETE', vary: 'Accept' });
    res.end('{"id":7,"name":"doggie","photoUrls":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))) };
}

test('a browser-like exchange: preflight, the call, an error body read; the policy on every answer', async () => {
  const backend = await permissiveBackend();
  const app = await serve({
    specification: PETSTORE,
    missingOperation: 'mock',
    restConfiguration: { enableCORS: true, clientRequestValidation: true, apiContextPath: '/api-doc' },
    cors: { allowOrigins: `${APP}, https://admin.example`, allowCredentials: true, maxAge: 600 },
    routes: { getPetById: [{ kind: 'to', uri: `${backend.url}/pet` }] },
  });
  try {
    // 1. The preflight for a JSON PUT.
    const preflight = await rawRequest(app.origin, '/api/v3/pet', { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type' } });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], APP);
    assert.equal(preflight.headers['access-control-allow-credentials'], 'true');
    assert.equal(preflight.headers['access-control-max-age'], '600');
    assert.equal(preflight.body, '');
    // 2. The call, refused by validation: the page reads the problem and the request id.
    const bad = await fetch(`${app.origin}/api/v3/pet`, { method: 'PUT', headers: { origin: APP, 'content-type': 'application/json' }, body: '{"name": 7}' });
    assert.equal(bad.status, 400);
    assert.equal(bad.headers.get('access-control-allow-origin'), APP);
    assert.equal(bad.headers.get('access-control-allow-credentials'), 'true');
    assert.match(bad.headers.get('vary') ?? '', /Origin/);
    assert.match(bad.headers.get('access-control-expose-headers') ?? '', /X-Request-Id/);
    assert.equal(((await bad.json()) as { status: number }).status, 400);
    // 3. Every other answer carries it too: 404, 405, 415, the published contract.
    for (const [path, init, status] of [
      ['/api/v3/nowhere', {}, 404],
      ['/api/v3/pet', { method: 'PATCH' }, 405],
      ['/api/v3/pet', { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: 'a,b' }, 415],
      ['/api-doc', {}, 200],
    ] as const) {
      const res = await fetch(`${app.origin}${path}`, { ...init, headers: { ...('headers' in init ? init.headers : {}), origin: 'https://admin.example' } });
      await res.arrayBuffer();
      assert.equal(res.status, status, path);
      assert.equal(res.headers.get('access-control-allow-origin'), 'https://admin.example', `${status} ${path}`);
    }
    // 4. A forwarded answer: the backend's own Access-Control-* fields are replaced by the facade's, its Vary kept.
    const forwarded = await fetch(`${app.origin}/api/v3/pet/7`, { headers: { origin: APP } });
    assert.equal(forwarded.status, 200);
    assert.equal(forwarded.headers.get('access-control-allow-origin'), APP);
    assert.equal(forwarded.headers.get('access-control-allow-methods'), null);
    assert.equal(forwarded.headers.get('vary'), 'Accept, Origin');
    await forwarded.arrayBuffer();
    // 5. An origin not allowed: its preflight is a 403 problem, its call gets no grant.
    const stranger = await rawRequest(app.origin, '/api/v3/pet', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'PUT' } });
    assert.equal(stranger.status, 403);
    assert.equal(stranger.headers['content-type'], 'application/problem+json');
    assert.equal(stranger.headers['access-control-allow-origin'], undefined);
    assert.match(JSON.parse(stranger.body).detail, /origin "https:\/\/evil\.example" are not allowed/);
    const call = await fetch(`${app.origin}/api/v3/pet/7`, { headers: { origin: 'https://evil.example' } });
    await call.arrayBuffer();
    assert.equal(call.headers.get('access-control-allow-origin'), null);
    // 6. A method the path does not declare.
    const method = await rawRequest(app.origin, '/api/v3/pet', { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'DELETE' } });
    assert.equal(method.status, 403);
    assert.match(JSON.parse(method.body).detail, /does not declare method "DELETE".*it declares POST, PUT/);
    // 7. No Origin: no grant, and still none of the backend's (a cache must not serve its `*` to a page); Vary: Origin.
    const sameOrigin = await fetch(`${app.origin}/api/v3/pet/7`);
    await sameOrigin.arrayBuffer();
    assert.equal(sameOrigin.headers.get('access-control-allow-origin'), null);
    assert.equal(sameOrigin.headers.get('vary'), 'Accept, Origin');
  } finally {
    await app.close();
    await backend.close();
  }
});

test('CORS off (the default): no preflight answered, no field added', async () => {
  const app = await serve({ specification: PETSTORE, missingOperation: 'mock' });
  try {
    const preflight = await rawRequest(app.origin, '/api/v3/pet/7', { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'PUT' } });
    assert.equal(preflight.status, 405);
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  } finally {
    await app.close();
  }
});

class CorsRoutes extends RouteBuilder {
  override configure(): void {
    this.rest().openApi().specification(PETSTORE).missingOperation('mock');
    this.restConfiguration().enableCORS(true).corsHeaders('Access-Control-Max-Age', '60');
    this.cors().allowOrigins(APP).allowCredentials(true).exposeHeaders('X-Request-Id', 'X-Rate-Limit');
  }
}

test('the options on every surface: YAML, XML, properties, environment, fluent, createFacade', async () => {
  const dir = tempDir({
    'a.yaml': `- restConfiguration:\n    enableCORS: true\n    corsHeaders:\n      - key: Access-Control-Max-Age\n        value: 60\n- cors:\n    allowOrigins: ${APP}\n    allowCredentials: true\n    exposeHeaders: X-Request-Id,X-Rate-Limit\n`,
    'a.xml': `<svc><restConfiguration enableCORS="true"><corsHeaders key="Access-Control-Max-Age" value="60"/></restConfiguration><cors allowOrigins="${APP}" allowCredentials="true" exposeHeaders="X-Request-Id,X-Rate-Limit"/></svc>`,
    'a.properties': `svc.rest.enableCORS=true\nsvc.rest.corsHeaders.Access-Control-Max-Age=60\nsvc.cors.allowOrigins=${APP}\nsvc.cors.allowCredentials=true\nsvc.cors.exposeHeaders=X-Request-Id,X-Rate-Limit\n`,
    'empty.properties': '',
  });
  const expected = { enableCORS: true, cors: { allowOrigins: APP, allowCredentials: true, exposeHeaders: 'X-Request-Id,X-Rate-Limit' }, corsHeaders: { 'Access-Control-Max-Age': '60' } };
  const env = { SVC_REST_ENABLECORS: 'true', SVC_REST_CORSHEADERS_ACCESS_CONTROL_MAX_AGE: '60', SVC_CORS_ALLOW_ORIGINS: APP, SVC_CORS_ALLOWCREDENTIALS: 'true', SVC_CORS_EXPOSE_HEADERS: 'X-Request-Id,X-Rate-Limit' };
  for (const [file, environment] of [['a.yaml', {}], ['a.xml', {}], ['a.properties', {}], ['empty.properties', env]] as const) {
    const config = await loadConfigFiles([join(dir, file)], environment);
    assert.deepEqual({ enableCORS: config.rest.enableCORS, cors: config.cors, corsHeaders: config.corsHeaders }, expected, file);
  }
  // Fluent and createFacade, seen at work.
  for (const input of [CorsRoutes, { specification: PETSTORE, missingOperation: 'mock' as const, restConfiguration: { enableCORS: true, corsHeaders: [{ key: 'Access-Control-Max-Age', value: '60' }] }, cors: { allowOrigins: APP, allowCredentials: true, exposeHeaders: 'X-Request-Id,X-Rate-Limit' } }]) {
    const app = await serve(input);
    try {
      const preflight = await rawRequest(app.origin, '/api/v3/pet/7', { method: 'OPTIONS', headers: { origin: APP, 'access-control-request-method': 'GET' } });
      assert.equal(preflight.headers['access-control-max-age'], '60');
      assert.equal(preflight.headers['access-control-allow-credentials'], 'true');
      const get = await fetch(`${app.origin}/api/v3/pet/7`, { headers: { origin: APP } });
      await get.arrayBuffer();
      assert.equal(get.headers.get('access-control-expose-headers'), 'X-Request-Id,X-Rate-Limit');
    } finally {
      await app.close();
    }
  }
});

test('refused at startup: credentials with any origin, a malformed origin, an unknown corsHeaders key', async () => {
  const start = (input: Parameters<typeof createFacade>[0]) => createFacade(input, { logger: silentLogger, env: {} });
  await assert.rejects(start({ specification: PETSTORE, missingOperation: 'mock', restConfiguration: { enableCORS: true }, cors: { allowCredentials: true } }), /allowCredentials true with any origin/);
  await assert.rejects(start({ specification: PETSTORE, missingOperation: 'mock', restConfiguration: { enableCORS: true, corsHeaders: { key: 'Access-Control-Allow-Origin', value: '*' } }, cors: { allowOrigins: APP, allowCredentials: true } }), /allowCredentials true with any origin/);
  await assert.rejects(start({ specification: PETSTORE, missingOperation: 'mock', restConfiguration: { enableCORS: true }, cors: { allowOrigins: 'app.example/x' } }), /"app\.example\/x" is not an origin/);
  await assert.rejects(start({ specification: PETSTORE, missingOperation: 'mock', restConfiguration: { enableCORS: true, corsHeaders: { key: 'X-Frame-Options', value: 'deny' } } }), /unknown option corsHeaders X-Frame-Options; allowed: Access-Control-Allow-Origin/);
  const dir = tempDir();
  writeFileSync(join(dir, 'c.yaml'), '- cors:\n    allowOrigin: x\n');
  await assert.rejects(loadConfigFiles([join(dir, 'c.yaml')], {}), /unknown option cors\.allowOrigin; allowed: allowOrigins, allowCredentials, maxAge, exposeHeaders/);
});
