// A route's answer in a media type its status does not declare (issue 29, family 7): a 404 declared only as
// application/problem+json and application/problem+xml went out as application/json. The type of an object
// answer is negotiated among those its status declares (then `default`), as the mock does; response
// validation checks the body as that type; XML is written as XML. Over a raw client.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { HeaderNames } from '../../lib/message/exchange.js';
import { serve, tempDir } from '../helpers.js';
import { rawGet } from './raw-peers.js';

const CONTRACT = `openapi: 3.1.0
info: { title: bookings, version: '1' }
paths:
  /bookings/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
    get:
      operationId: getBooking
      responses:
        '200':
          description: ok
          content:
            application/json: { schema: { $ref: '#/components/schemas/Booking' } }
            application/xml: { schema: { $ref: '#/components/schemas/Booking' } }
        '404':
          description: not found
          content:
            application/problem+json: { schema: { $ref: '#/components/schemas/Problem' } }
            application/problem+xml: { schema: { $ref: '#/components/schemas/Problem' } }
        default:
          description: error
          content:
            application/problem+json: { schema: { $ref: '#/components/schemas/Problem' } }
components:
  schemas:
    Booking: { type: object, required: [id], properties: { id: { type: string } }, xml: { name: booking } }
    Problem: { type: object, required: [title], properties: { title: { type: string }, status: { type: integer } }, xml: { name: problem } }
`;

test('an object answer takes a media type its status declares, negotiated by Accept; validation checks it as that type', async () => {
  const dir = tempDir({ 'openapi.yaml': CONTRACT });
  let answer: { status: number; body: unknown } = { status: 404, body: { title: 'Not Found', status: 404 } };
  const running = await serve({
    specification: join(dir, 'openapi.yaml'),
    restConfiguration: { clientRequestValidation: true, clientResponseValidation: true },
    routes: {
      getBooking: [{ kind: 'process', fn: (ex) => {
        ex.message.headers.set(HeaderNames.RESPONSE_CODE, answer.status);
        ex.message.body = answer.body;
      } }],
    },
  });
  const contentType = (head: string): string | undefined => /^content-type: (.*)$/im.exec(head)?.[1];
  try {
    const plain = await rawGet(running.origin, '/bookings/1');
    assert.equal(plain.status, 404, plain.body);
    assert.equal(contentType(plain.head), 'application/problem+json');
    assert.deepEqual(JSON.parse(plain.body), { title: 'Not Found', status: 404 });

    const xml = await rawGet(running.origin, '/bookings/1', ['Accept: application/problem+xml']);
    assert.equal(xml.status, 404, xml.body);
    assert.equal(contentType(xml.head), 'application/problem+xml');
    assert.match(xml.body, /<problem><title>Not Found<\/title><status>404<\/status><\/problem>$/);

    const preferXml = await rawGet(running.origin, '/bookings/1', ['Accept: application/problem+json;q=0.5, application/problem+xml']);
    assert.equal(contentType(preferXml.head), 'application/problem+xml');

    answer = { status: 200, body: { id: 'b1' } };
    const ok = await rawGet(running.origin, '/bookings/1', ['Accept: application/xml']);
    assert.equal(ok.status, 200, ok.body);
    assert.equal(contentType(ok.head), 'application/xml');
    assert.match(ok.body, /<booking><id>b1<\/id><\/booking>/);

    // `default` declares only problem+json: a 500 the route chose is written as it.
    answer = { status: 503, body: { title: 'Busy' } };
    const fallback = await rawGet(running.origin, '/bookings/1');
    assert.equal(fallback.status, 503, fallback.body);
    assert.equal(contentType(fallback.head), 'application/problem+json');

    // The check reads the chosen type: a body that is no Problem is refused (500), not sent as application/json.
    answer = { status: 404, body: { reason: 'gone' } };
    const invalid = await rawGet(running.origin, '/bookings/1');
    assert.equal(invalid.status, 500, invalid.body);
    assert.match(invalid.body, /title/);
  } finally {
    await running.close();
  }
});
