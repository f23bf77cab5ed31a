// An empty body sent as a form (issue 29, family 8: Twilio's `POST .../AssignedAddOns.json` with
// `Content-Type: application/x-www-form-urlencoded` and no bytes, `requestBody.required: false`): the
// request says it sends a form, so it is the empty form, whose required fields are missing — 400, never
// forwarded. A request without a body media type still has no body.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, tempDir } from '../helpers.js';
import { rawBackend, rawSend } from './raw-peers.js';

const CONTRACT = `openapi: 3.0.1
info: { title: addons, version: '1' }
paths:
  /AssignedAddOns.json:
    post:
      operationId: createAssignedAddOn
      requestBody:
        required: false
        content:
          application/x-www-form-urlencoded:
            schema: { type: object, required: [InstalledAddOnSid], properties: { InstalledAddOnSid: { type: string } } }
      responses: { '201': { description: created } }
`;

const post = (lines: string): string => `POST /AssignedAddOns.json HTTP/1.1\r\nHost: x\r\n${lines}Connection: close\r\n\r\n`;

test('an empty form is validated as the empty form (400 naming its missing fields); no body without a media type stays no body', async () => {
  const backend = await rawBackend(() => ({ status: 201, body: '' }));
  const dir = tempDir({ 'openapi.yaml': CONTRACT });
  const running = await serve({ specification: join(dir, 'openapi.yaml'), restConfiguration: { clientRequestValidation: true }, routes: { createAssignedAddOn: [{ kind: 'to', uri: `${backend.origin}/add-ons` }] } });
  try {
    for (const lines of ['Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n', 'Content-Type: application/x-www-form-urlencoded; charset=utf-8\r\nContent-Length: 0\r\n']) {
      const empty = await rawSend(running.origin, post(lines));
      assert.equal(empty.status, 400, empty.body);
      assert.match(empty.body, /InstalledAddOnSid/);
    }
    assert.equal(backend.received.length, 0, 'never forwarded');
    const filled = await rawSend(running.origin, post('Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 23\r\n') + 'InstalledAddOnSid=XE123');
    assert.equal(filled.status, 201, filled.body);
    const none = await rawSend(running.origin, post('Content-Length: 0\r\n'));
    assert.equal(none.status, 201, `no body media type: no body (${none.body})`);
    assert.equal(backend.received.length, 2);
  } finally {
    await running.close();
    await backend.close();
  }
});
