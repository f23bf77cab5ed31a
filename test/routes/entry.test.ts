// SPEC §4 exchange on entry: a path parameter is the value the router matched (and validation checked);
// a query parameter of the same name must not replace it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Exchange } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';

test('a query parameter named like a path parameter does not replace it, with or without validation', async () => {
  const route = (ex: Exchange) => void (ex.message.body = { petId: ex.header('petId'), svcHttpQuery: ex.header('SvcHttpQuery') });
  for (const clientRequestValidation of [true, false]) {
    const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { clientRequestValidation }, routes: { getPetById: route } });
    try {
      for (const query of ['petId=abc', 'petId=abc&petId=def', 'PETID=x&petId=']) {
        const res = await fetch(`${running.origin}/api/v3/pet/5?${query}`);
        assert.equal(res.status, 200, query);
        // Validated, the path value is typed as the contract says (an integer); otherwise it is the text.
        assert.deepEqual(await res.json(), { petId: clientRequestValidation ? 5 : '5', svcHttpQuery: query }, `validation ${clientRequestValidation}: ${query}`);
      }
      const invalid = await fetch(`${running.origin}/api/v3/pet/abc?petId=5`);
      assert.equal(invalid.status, clientRequestValidation ? 400 : 200, 'the path value is the one checked');
      if (!clientRequestValidation) assert.equal(((await invalid.json()) as { petId: string }).petId, 'abc');
    } finally {
      await running.close();
    }
  }
});
