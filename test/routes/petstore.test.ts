// The Camel rest-openapi reference scenarios, adapted to our names, on the bundled Swagger Petstore v3.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createFacade, Errors, SvcError, type Exchange } from '../../lib/index.js';
import { PETSTORE, serve, tempDir, type Running } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

const PETSTORE_IDS = [
  'addPet', 'createUser', 'createUsersWithListInput', 'deleteOrder', 'deletePet', 'deleteUser', 'findPetsByStatus', 'findPetsByTags', 'getInventory',
  'getOrderById', 'getPetById', 'getUserByName', 'loginUser', 'logoutUser', 'placeOrder', 'updatePet', 'updatePetWithForm', 'updateUser', 'uploadFile',
];

test('startup fails listing the 19 unmapped operations, sorted, when no route exists and missingOperation is unset', async () => {
  await assert.rejects(createFacade({ specification: PETSTORE }), (err: SvcError) => {
    assert.ok(err instanceof SvcError);
    assert.equal(err.code, Errors.UNMAPPED_OPERATIONS.code);
    assert.equal(err.exitCode, 1);
    assert.equal(err.message, `OpenAPI specification has 19 unmapped operations to corresponding routes:${PETSTORE_IDS.map((id) => `\n\tdirect:${id}`).join('')}`);
    return true;
  });
});

test('the startup check counts only the operations without a route', async () => {
  const routes = Object.fromEntries(PETSTORE_IDS.filter((id) => id !== 'uploadFile' && id !== 'addPet').map((id) => [id, () => undefined]));
  await assert.rejects(createFacade({ specification: PETSTORE, routes }), {
    message: 'OpenAPI specification has 2 unmapped operations to corresponding routes:\n\tdirect:addPet\n\tdirect:uploadFile',
  });
});

let petstore: Running;
const echoHeaders = (ex: Exchange): void => {
  ex.message.body = { headers: ex.message.headers.toObject(), properties: { operationId: ex.properties.SvcOperationId, contractTitle: (ex.properties.SvcRestOpenApi as { info: { title: string } }).info.title } };
};

before(async () => {
  const dir = tempDir({
    'routes.yaml': `
- rest:
    openApi:
      specification: ${JSON.stringify(PETSTORE)}
      missingOperation: ignore
- route:
    from:
      uri: direct:getPetById
      steps:
        - setBody:
            simple: '{"id": "\${header.petId}", "name": "doggie"}'
        - setHeader:
            name: Content-Type
            constant: application/json
`,
  });
  petstore = await serve([join(dir, 'routes.yaml')], { env: {} });
});
after(() => petstore.close());

test('a YAML route reads the path parameter through ${header.petId}', async () => {
  const res = await fetch(`${petstore.origin}/api/v3/pet/42`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  assert.deepEqual(await res.json(), { id: '42', name: 'doggie' });
});

test('an unknown path is a 404 problem', async () => {
  for (const path of ['/api/v3/nope', '/pet/42', '/api/v3', '/api/v3/pet/42/extra/segments']) {
    const res = await fetch(petstore.origin + path);
    assert.equal(res.status, 404, path);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.deepEqual(await res.json(), { type: 'about:blank', title: 'Not Found', status: 404, detail: Errors.NOT_FOUND.message, code: 'SVC_NOT_FOUND', instance: res.headers.get('x-request-id') });
  }
});

test('a known path with another method is a 405 with Allow in the stated order', async () => {
  const cases: [string, string, string][] = [
    ['PATCH', '/api/v3/pet/42', 'GET, HEAD, POST, DELETE'],
    ['GET', '/api/v3/pet', 'POST, PUT'],
    ['DELETE', '/api/v3/user/login', 'GET, HEAD'],
    ['PUT', '/api/v3/store/order/7', 'GET, HEAD, DELETE'],
    ['GET', '/api/v3/user', 'POST'],
  ];
  for (const [method, path, allow] of cases) {
    const res = await fetch(petstore.origin + path, { method });
    assert.equal(res.status, 405, `${method} ${path}`);
    assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    const body = (await res.json()) as { status: number; title: string };
    assert.equal(body.status, 405);
    assert.equal(body.title, 'Method Not Allowed');
  }
});

test('the literal /pet/findByStatus beats the template /pet/{petId}; query defaults fill in', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      findPetsByStatus: (ex) => void (ex.message.body = { route: 'findPetsByStatus', status: ex.message.headers.get('status') }),
      getPetById: (ex) => void (ex.message.body = { route: 'getPetById', petId: ex.message.headers.get('petId') }),
    },
  });
  try {
    assert.deepEqual(await (await fetch(`${running.origin}/api/v3/pet/findByStatus`)).json(), { route: 'findPetsByStatus', status: 'available' });
    assert.deepEqual(await (await fetch(`${running.origin}/api/v3/pet/findByStatus?status=sold`)).json(), { route: 'findPetsByStatus', status: 'sold' });
    assert.deepEqual(await (await fetch(`${running.origin}/api/v3/pet/findByStatuses`)).json(), { route: 'getPetById', petId: 'findByStatuses' });
    assert.deepEqual(await (await fetch(`${running.origin}/api/v3/pet/findbystatus`)).json(), { route: 'getPetById', petId: 'findbystatus' }, 'matching is case-sensitive');
  } finally {
    await running.close();
  }
});

test('201 via SvcHttpResponseCode, 204 on an empty body, 200 otherwise', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      addPet: [
        { kind: 'setHeader', name: 'SvcHttpResponseCode', expression: { constant: 201 } },
        { kind: 'setBody', expression: { json: { id: 10 } } },
      ],
      deletePet: [{ kind: 'setBody', expression: { constant: '' } }],
      logoutUser: [{ kind: 'setBody', expression: { constant: 'bye' } }],
      getInventory: (ex) => {
        ex.message.headers.set('SvcHttpResponseCode', '202');
      },
    },
  });
  try {
    const created = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', body: '{"name":"x"}', headers: { 'content-type': 'application/json' } });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('content-type'), 'application/json');
    assert.deepEqual(await created.json(), { id: 10 });
    const deleted = await fetch(`${running.origin}/api/v3/pet/3`, { method: 'DELETE' });
    assert.equal(deleted.status, 204);
    assert.equal(await deleted.text(), '');
    const text = await fetch(`${running.origin}/api/v3/user/logout`);
    assert.equal(text.status, 200);
    assert.equal(text.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(await text.text(), 'bye');
    const accepted = await fetch(`${running.origin}/api/v3/store/inventory`);
    assert.equal(accepted.status, 202, 'a string status code works too, and an empty body keeps it');
    assert.equal(await accepted.text(), '');
  } finally {
    await running.close();
  }
});

test('a throwing route is a 500 problem without the stack; the stack goes to the logger', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      deletePet: () => {
        throw new Error('database exploded at secret-host:5432');
      },
      getPetById: async () => {
        await new Promise((r) => setTimeout(r, 1));
        throw new TypeError('async failure');
      },
      getInventory: (ex) => void ex.message.headers.set('SvcHttpResponseCode', 'not-a-status'),
      logoutUser: (ex) => {
        // An informational code cannot end an exchange: the client would wait for the final response forever.
        ex.message.headers.set('SvcHttpResponseCode', 100);
        ex.message.body = 'x';
      },
      loginUser: (ex) => {
        ex.message.headers.set('X-Fine', 'ok');
        ex.message.headers.set('X-Broken', 'line\nbreak');
        ex.message.body = 'x';
      },
    },
  });
  try {
    const paths = [['DELETE', '/api/v3/pet/1'], ['GET', '/api/v3/pet/1'], ['GET', '/api/v3/store/inventory'], ['GET', '/api/v3/user/logout']] as const;
    for (const [method, path] of paths) {
      const res = await rawRequest(running.origin, path, { method });
      assert.equal(res.status, 500, path);
      assert.equal(res.statusMessage, 'Internal Server Error', path);
      assert.equal(res.headers['content-type'], 'application/problem+json');
      assert.equal(res.headers['x-fine'], undefined, 'headers of the failed answer are not sent with the problem');
      const text = res.body;
      assert.deepEqual(JSON.parse(text), { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: Errors.ROUTE_FAILED.message, code: 'SVC_ROUTE_FAILED', instance: res.headers['x-request-id'] });
      assert.doesNotMatch(text, /exploded|secret-host|async failure|at .*\.ts/);
    }
    // A header no answer can carry (docs/security.md) is left out with a WARN; the route's answer stands.
    const login = await rawRequest(running.origin, '/api/v3/user/login');
    assert.equal(login.status, 200);
    assert.equal(login.headers['x-fine'], 'ok');
    assert.equal(login.headers['x-broken'], undefined);
    assert.equal(running.logger.lines.filter((l) => l.startsWith('WARN GET /user/login (direct:loginUser): response header x-broken not sent')).length, 1);
    const errors = running.logger.lines.filter((l) => l.startsWith('ERROR'));
    assert.equal(errors.length, paths.length);
    assert.match(errors[0]!, /DELETE \/pet\/\{petId\} \(direct:deletePet\) failed: Error: database exploded at secret-host:5432\n\s+at /);
    assert.match(errors[1]!, /TypeError: async failure\n\s+at /);
  } finally {
    await running.close();
  }
});

test('HEAD on a GET operation runs the GET route and sends no body; trailing slash is tolerated', async () => {
  const head = await rawRequest(petstore.origin, '/api/v3/pet/42', { method: 'HEAD' });
  assert.equal(head.status, 200);
  assert.equal(head.body, '');
  assert.equal(head.headers['content-type'], 'application/json');
  assert.equal(head.headers['content-length'], String(Buffer.byteLength('{"id": "42", "name": "doggie"}')));
  const slash = await fetch(`${petstore.origin}/api/v3/pet/42/`);
  assert.equal(slash.status, 200);
  assert.deepEqual(await slash.json(), { id: '42', name: 'doggie' });
});

test('matching is case-sensitive, in the base path too', async () => {
  assert.equal((await fetch(`${petstore.origin}/API/v3/pet/42`)).status, 404);
  assert.equal((await fetch(`${petstore.origin}/api/v3/Pet/42`)).status, 404);
  assert.equal((await fetch(`${petstore.origin}/api/v3/store/Inventory`)).status, 404);
});

test('on entry the exchange carries path, query and request headers plus the Svc* headers and properties', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { updatePetWithForm: echoHeaders } });
  try {
    const res = await fetch(`${running.origin}/api/v3/pet/7?name=rex&status=sold&extra=1&extra=2`, {
      method: 'POST',
      headers: { 'x-trace': 'abc', 'content-type': 'text/plain' },
      body: 'hello',
    });
    assert.equal(res.status, 200);
    const { headers, properties } = (await res.json()) as { headers: Record<string, unknown>; properties: Record<string, unknown> };
    assert.equal(headers.petid, '7');
    assert.equal(headers.name, 'rex');
    assert.equal(headers.status, 'sold');
    assert.deepEqual(headers.extra, ['1', '2']);
    assert.equal(headers['x-trace'], 'abc');
    assert.equal(headers['content-type'], 'text/plain');
    assert.equal(headers.svchttpmethod, 'POST');
    assert.equal(headers.svchttppath, '/pet/7');
    assert.equal(headers.svchttpuri, '/api/v3/pet/7');
    assert.equal(headers.svchttpquery, 'name=rex&status=sold&extra=1&extra=2');
    assert.deepEqual(properties, { operationId: 'updatePetWithForm', contractTitle: 'Swagger Petstore - OpenAPI 3.0' }, 'SvcRestOpenApi is the parsed contract');
  } finally {
    await running.close();
  }
});

test('request headers are not echoed back and Svc* headers are never sent', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getPetById: (ex) => {
        ex.message.headers.set('SvcCustomMarker', 'internal');
        ex.message.headers.set('X-Pet', String(ex.message.headers.get('petId')));
        ex.message.body = 'ok';
      },
    },
  });
  try {
    const res = await rawRequest(running.origin, '/api/v3/pet/5', { headers: { 'x-secret-token': 'abc', cookie: 'session=1', 'x-trace': 't' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-pet'], '5');
    for (const name of Object.keys(res.headers)) assert.ok(!name.startsWith('svc'), `${name} must not be sent`);
    assert.equal(res.headers['x-secret-token'], undefined);
    assert.equal(res.headers['x-trace'], undefined);
    assert.equal(res.headers['set-cookie'], undefined);
    assert.equal(res.headers.petid, undefined);
  } finally {
    await running.close();
  }
});

test('a client cannot set Svc* exchange headers (such as the response code) through request headers or the query', async () => {
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { getPetById: echoHeaders } });
  try {
    const viaHeader = await rawRequest(running.origin, '/api/v3/pet/5', { headers: { SvcHttpResponseCode: '418', 'svc-anything': 'x', SvcHttpPath: '/forged' } });
    assert.equal(viaHeader.status, 200);
    const seen = (JSON.parse(viaHeader.body) as { headers: Record<string, unknown> }).headers;
    assert.equal(seen.svchttpresponsecode, undefined);
    assert.equal(seen['svc-anything'], undefined);
    assert.equal(seen.svchttppath, '/pet/5');
    const viaQuery = await rawRequest(running.origin, '/api/v3/pet/5?SvcHttpResponseCode=299&svcHttpMethod=DELETE');
    assert.equal(viaQuery.status, 200);
    const fromQuery = (JSON.parse(viaQuery.body) as { headers: Record<string, unknown> }).headers;
    assert.equal(fromQuery.svchttpresponsecode, undefined);
    assert.equal(fromQuery.svchttpmethod, 'GET');
  } finally {
    await running.close();
  }
});

test('an ignored operation echoes the request body with its content type (200), or answers 204 when empty', async () => {
  const echoed = await fetch(`${petstore.origin}/api/v3/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"id":1}' });
  assert.equal(echoed.status, 200);
  assert.equal(echoed.headers.get('content-type'), 'application/json');
  assert.equal(await echoed.text(), '{"id":1}');
  const empty = await fetch(`${petstore.origin}/api/v3/user/logout`);
  assert.equal(empty.status, 204);
});

test('query and header names like __proto__ and constructor are plain headers, never prototypes', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      findPetsByStatus: (ex) => {
        const all = ex.message.headers.toObject();
        ex.message.body = {
          plainObject: Object.getPrototypeOf(all) === Object.prototype,
          proto: Object.getOwnPropertyDescriptor(all, '__proto__')?.value,
          constructorHeader: ex.message.headers.get('constructor') ?? null,
          viaGet: ex.message.headers.get('__proto__'),
        };
      },
      getPetById: [{ kind: 'setBody', expression: { simple: '${headers}' } }],
    },
  });
  try {
    const res = await fetch(`${running.origin}/api/v3/pet/findByStatus?__proto__=a&__proto__=b`);
    assert.deepEqual(await res.json(), { plainObject: true, proto: ['a', 'b'], constructorHeader: null, viaGet: ['a', 'b'] });
    const all = (await (await fetch(`${running.origin}/api/v3/pet/1?__proto__=x&constructor=c`)).json()) as Record<string, unknown>;
    assert.equal(Object.getOwnPropertyDescriptor(all, '__proto__')?.value, 'x', '${headers} keeps the __proto__ header as data');
    assert.equal(all.constructor, 'c');
  } finally {
    await running.close();
  }
});
