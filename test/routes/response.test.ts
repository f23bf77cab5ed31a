// SPEC §4 response: 200 for a non-empty body, 204 for an empty one — also when the empty body is bytes
// (a route's empty Buffer or Uint8Array, or an empty chunked upload echoed by an ignored operation).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PETSTORE, serve } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

test('an empty byte body is a 204 without Content-Type, as an empty string is; non-empty bytes are 200', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getPetById: (ex) => void (ex.body = Buffer.alloc(0)),
      getInventory: (ex) => void (ex.body = new Uint8Array(0)),
      getOrderById: (ex) => void (ex.body = new Uint8Array([104, 105])),
    },
  });
  try {
    for (const path of ['/api/v3/pet/1', '/api/v3/store/inventory']) {
      const res = await rawRequest(running.origin, path);
      assert.equal(res.status, 204, path);
      assert.equal(res.headers['content-type'], undefined, path);
      assert.equal(res.body, '');
    }
    const bytes = await rawRequest(running.origin, '/api/v3/store/order/1');
    assert.equal(bytes.status, 200);
    assert.equal(bytes.headers['content-type'], 'application/octet-stream');
    assert.equal(bytes.body, 'hi');
    // An ignored operation echoes an empty chunked upload of a binary type: nothing to echo, so 204.
    const echo = await rawRequest(running.origin, '/api/v3/pet/1/uploadImage', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
    });
    assert.equal(echo.status, 204);
    assert.equal(echo.body, '');
  } finally {
    await running.close();
  }
});

test('an async iterable answered on an operation with no sequential media type is a 500 saying why, never "{}"', async () => {
  const running = await serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    routes: {
      getPetById: (ex) => void (ex.body = (async function* () {
        yield { id: 1 };
      })()),
    },
  });
  try {
    const res = await rawRequest(running.origin, '/api/v3/pet/1');
    assert.equal(res.status, 500);
    assert.equal(res.headers['content-type'], 'application/problem+json');
    assert.doesNotMatch(res.body, /async iterable|at .*\.ts/, 'the reason goes to the log, not to the client');
    assert.ok(running.logger.lines.some((l) => /getPetById\) failed: (Error: )?the route answered with an async iterable, but no response of the operation declares a sequential media type/.test(l)), running.logger.lines.join('\n'));
  } finally {
    await running.close();
  }
});
