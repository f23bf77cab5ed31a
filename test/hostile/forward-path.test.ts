// forwardPath against segments that common backends (Tomcat, Jetty, Spring, IIS, double-decoding proxies)
// resolve as `.` or `..`: each is refused with 400 and the raw backend receives not one byte of it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Errors } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';
import { rawBackend, rawGet } from './raw-peers.js';

/** Every form docs/security.md lists, as the petId segment of GET /pet/{petId}. */
const DOT_SEGMENTS = [
  '..', '.', '%2e%2e', '%2E.', '.%2e', // plain and percent-encoded
  '..;', '.;', '%2e%2e;', '..%3B', '..%3b', '..;jsessionid=x', '.;a=b', // path parameters dropped before resolution
  '..%3f', '..%3Fx=1', '..%23', '.%2523', // a query or fragment, for servers that decode before splitting the target
  '%252e%252e', '%252e%252e%252f', '%25252e%25252e', // decoded twice (or three times)
  '%25c0%25ae%25c0%25ae', '%25e0%2580%25ae.', '%25c0%25af', // overlong UTF-8 (decoded twice: once they are not UTF-8, see below)
  '%25u002e%25u002e', // IIS %u escapes (likewise)
  '%ef%bc%8e%ef%bc%8e', '%E2%80%A4%E2%80%A4', '%25uFF0E%25uFF0E', '%ef%bc%8f', // fullwidth dots (NFKC), one dot leaders, IIS %u; a fullwidth slash
  '...', '..%20', '.%09', // trailing dots and blanks Windows trims
  '..%00', '..%2500', // NUL, where C-based servers stop reading
  '..%5c', '%5c..', 'a%5cb', '%255c', 'a\\b', '..%2f', 'a%2fb', // a backslash or slash inside the segment
];

test('forwardPath: every segment a common backend resolves as a dot segment (or splits) is refused with 400; the backend receives nothing', async () => {
  const backend = await rawBackend();
  const running = await serve({ specification: PETSTORE, missingOperation: 'ignore', routes: { getPetById: [{ kind: 'to', uri: `${backend.origin}/api/v3?forwardPath=true` }] } });
  try {
    for (const segment of DOT_SEGMENTS) {
      const answer = await rawGet(running.origin, `/api/v3/pet/${segment}`);
      assert.equal(answer.status, 400, `${segment}: ${answer.head}\n${answer.body}`);
      assert.equal(JSON.parse(answer.body).detail, Errors.FORWARD_PATH_UNSAFE.message, segment);
    }
    // Sent raw (UTF-8 bytes in the request line), fullwidth dots never get past node's parser.
    for (const segment of ['\uff0e\uff0e', '\uff0f']) assert.equal((await rawGet(running.origin, `/api/v3/pet/${segment}`)).status, 400, segment);
    // Sent once-encoded, these are not UTF-8: the router already finds no operation for them.
    for (const segment of ['%c0%ae%c0%ae', '%c0%af', '%u002e%u002e']) {
      assert.equal((await rawGet(running.origin, `/api/v3/pet/${segment}`)).status, 404, segment);
    }
    assert.deepEqual(backend.received.map((r) => r.target), []);
    // Names that merely contain dots, semicolons or escapes still go through, byte for byte.
    for (const segment of ['a.b', '.hidden', 'a..b', 'v1.2', '100%25', 'caf%C3%A9', 'a;b', '..a', '%41', 'what%3F']) {
      const answer = await rawGet(running.origin, `/api/v3/pet/${segment}`);
      assert.equal(answer.status, 200, `${segment}: ${answer.body}`);
    }
    assert.deepEqual(backend.received.map((r) => r.target), ['a.b', '.hidden', 'a..b', 'v1.2', '100%25', 'caf%C3%A9', 'a;b', '..a', '%41', 'what%3F'].map((s) => `/api/v3/pet/${s}`));
  } finally {
    await running.close();
    await backend.close();
  }
});
