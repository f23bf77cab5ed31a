// SPEC §9: binding does not apply to mocked operations. A body binding would refuse (400) is not refused by
// the mock (it answers the response's example, SPEC §7 step 3), a valid one is echoed byte for byte (binding
// would have re-serialized it), while a routed operation of the same facade binds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PETSTORE, serve, tempDir } from '../helpers.js';

test('mocked operations are not bound: bodies binding would refuse are not refused, valid ones echoed as sent; routes still bind', async () => {
  const running = await serve({
    specification: PETSTORE,
    baseDir: tempDir(),
    missingOperation: 'mock',
    restConfiguration: { bindingMode: 'auto' },
    routes: { updatePet: (ex) => void (ex.message.body = { bound: typeof ex.message.body }) },
  });
  try {
    for (const [type, body] of [['application/json', '{ "name" : "x",  "photoUrls" : [ ] }'], ['application/xml', '<pet><name>x</name><photoUrls/></pet>']]) {
      const res = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', headers: { 'content-type': type! }, body });
      assert.equal(res.status, 200, `${type} ${body}`);
      assert.equal(res.headers.get('content-type'), type);
      assert.equal(await res.text(), body, 'echoed as sent');
    }
    for (const [type, body] of [['application/json', '{"name": '], ['application/xml', '<pet><name>x</pet>'], ['application/json', '{ "id" : 1 }']]) {
      const res = await fetch(`${running.origin}/api/v3/pet`, { method: 'POST', headers: { 'content-type': type! }, body });
      assert.equal(res.status, 200, `${type} ${body}: not refused`);
      assert.notEqual(await res.text(), body, 'not echoed: the Pet schema refuses it');
    }
    const routed = await fetch(`${running.origin}/api/v3/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"name": ' });
    assert.equal(routed.status, 400, 'the routed operation binds, and refuses what does not parse');
    assert.equal(((await routed.json()) as { detail: string }).detail, 'Invalid JSon payload.');
    const bound = await fetch(`${running.origin}/api/v3/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' });
    assert.deepEqual(await bound.json(), { bound: 'object' });
  } finally {
    await running.close();
  }
});
