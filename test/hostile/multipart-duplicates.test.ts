// multipart/form-data read differently by the facade and by busboy (multer, @fastify/multipart): a parameter
// or field given twice is read first-wins by one and last-wins by another, so the facade would validate
// `role=user` while the backend reads `role=admin`. With validation on, each is a 400 naming it, and the
// backend is never asked; a well-formed body still reaches it byte for byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, tempDir } from '../helpers.js';
import { rawBackend, rawSend } from './raw-peers.js';

const CONTRACT = `openapi: 3.0.3
info: { title: upload, version: '1' }
paths:
  /users:
    post:
      operationId: createUser
      requestBody:
        required: true
        content:
          multipart/form-data:
            schema:
              type: object
              required: [name, role]
              properties:
                name: { type: string }
                role: { type: string, enum: [user] }
      responses: { '200': { description: ok } }
`;

function post(contentType: string, body: string): string {
  return `POST /users HTTP/1.1\r\nHost: facade\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

const part = (disposition: string, value: string, extra = ''): string => `--B\r\nContent-Disposition: ${disposition}\r\n${extra}\r\n${value}\r\n`;

test('a duplicated Content-Disposition parameter, two Content-Disposition fields or two boundary parameters are a 400, never forwarded', async () => {
  const backend = await rawBackend();
  const dir = tempDir({ 'openapi.yaml': CONTRACT });
  const running = await serve({ specification: join(dir, 'openapi.yaml'), restConfiguration: { clientRequestValidation: true }, routes: { createUser: [{ kind: 'to', uri: `${backend.origin}/users` }] } });
  const name = part('form-data; name="name"', 'ann');
  try {
    const good = `${name}${part('form-data; name="role"', 'user')}--B--\r\n`;
    const accepted = await rawSend(running.origin, post('multipart/form-data; boundary=B', good));
    assert.equal(accepted.status, 200, accepted.body);
    assert.equal(backend.received.length, 1);
    assert.equal(backend.received[0]!.body, good, 'a well-formed body is forwarded as sent');

    const hostile: [string, string, string, RegExp][] = [
      ['name given twice', 'multipart/form-data; boundary=B', `${name}${part('form-data; name="role"; name="admin"', 'user')}--B--\r\n`, /Content-Disposition gives name twice/],
      ['name given twice in another case', 'multipart/form-data; boundary=B', `${name}${part('form-data; name="role"; NAME=admin', 'user')}--B--\r\n`, /gives name twice/],
      ['filename given twice', 'multipart/form-data; boundary=B', `${name}${part('form-data; name="role"; filename="a"; filename="b"', 'user')}--B--\r\n`, /gives filename twice/],
      ['two Content-Disposition fields', 'multipart/form-data; boundary=B', `${name}${part('form-data; name="role"', 'user', 'Content-Disposition: form-data; name="admin"\r\n')}--B--\r\n`, /field given twice/],
      ['two Content-Type fields in a part', 'multipart/form-data; boundary=B', `${name}${part('form-data; name="role"', 'user', 'Content-Type: text/plain\r\ncontent-type: application/json\r\n')}--B--\r\n`, /field given twice/],
      ['two boundary parameters', 'multipart/form-data; boundary=B; boundary=C', `${name}${part('form-data; name="role"', 'user')}--B--\r\n`, /two boundary parameters/],
      ['two boundary parameters, the second quoted', 'multipart/form-data; boundary="C"; Boundary=B', `${name}${part('form-data; name="role"', 'user')}--B--\r\n`, /two boundary parameters/],
    ];
    for (const [what, contentType, body, message] of hostile) {
      const answer = await rawSend(running.origin, post(contentType, body));
      assert.equal(answer.status, 400, `${what}: ${answer.body}`);
      assert.match(answer.head, /content-type: application\/problem\+json/i, what);
      assert.match(answer.body, message, what);
      assert.equal(backend.received.length, 1, `${what}: never forwarded`);
    }
  } finally {
    await running.close();
    await backend.close();
  }
});
