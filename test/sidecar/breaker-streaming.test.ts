// A circuitBreaker or a loadBalance that ends its route streams the backend's answer once its status is judged:
// the client has the head and the first bytes while the backend is still writing. A failed answer the fallback
// replaces is dropped (its connection closed when it was still arriving); a breaker that is not its route's
// last step still reads the answer whole. The backend is raw `net`: it writes exact bytes when told to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request, type IncomingMessage } from 'node:http';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import type { StepDefinition } from '../../lib/index.js';
import { serve, tempDir, type Running } from '../helpers.js';
import { join } from 'node:path';
import { signal, within, type Signal } from './backends.js';

const CONTRACT = `openapi: 3.0.3
info: { title: breaker streaming, version: '1' }
paths:
  /items:
    get:
      operationId: getItems
      responses:
        '200': { description: ok, content: { text/plain: { schema: { type: string } } } }
`;

interface SlowBackend {
  origin: string;
  /** Each request's socket, in order of arrival; `closed` fires when the facade closes it. */
  requests: { socket: Socket; closed: Signal }[];
  arrived: Signal[];
  close(): void;
}

/** Answers each GET with `head` and `first` at once, and keeps the socket for the test to finish (or not). */
async function slowBackend(head: (index: number) => string, first: string): Promise<SlowBackend> {
  const requests: SlowBackend['requests'] = [];
  const arrived = Array.from({ length: 8 }, () => signal());
  const server = createServer((socket) => {
    const closed = signal();
    socket.on('close', () => closed.fire());
    socket.on('error', () => undefined);
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      while (text.includes('\r\n\r\n')) {
        text = text.slice(text.indexOf('\r\n\r\n') + 4);
        const index = requests.push({ socket, closed }) - 1;
        socket.write(head(index) + first);
        arrived[index]!.fire();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    arrived,
    close: () => {
      for (const { socket } of requests) socket.destroy();
      server.close();
    },
  };
}

/** Sends GET /items; resolves with the answer once its head is in, and the first body chunk. */
function getItems(running: Running, agent: Agent | false = false): Promise<{ res: IncomingMessage; first: Promise<string>; rest: Promise<string> }> {
  const { port } = new URL(running.origin);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/items', agent }, (res) => {
      let body = '';
      const first = new Promise<string>((r) => res.once('data', (c: Buffer) => r(c.toString())));
      const rest = new Promise<string>((r, j) => {
        res.on('data', (c: Buffer) => void (body += c.toString()));
        res.on('end', () => r(body));
        res.on('error', j);
      });
      resolve({ res, first, rest });
    });
    req.on('error', reject);
    req.end();
  });
}

const CHUNKED_200 = 'HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n';
const chunk = (text: string): string => `${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`;
const BREAKER = { failureRateThreshold: 50, slidingWindowSize: 4, minimumNumberOfCalls: 4 };

function facade(steps: StepDefinition[]): Promise<Running> {
  const specification = join(tempDir({ 'openapi.yaml': CONTRACT }), 'openapi.yaml');
  return serve({ specification, backend: { retries: 0 }, routes: { getItems: steps } });
}

test('a circuitBreaker ending its route streams the answer: the client reads the first bytes while the backend has not finished', async () => {
  const backend = await slowBackend(() => CHUNKED_200, chunk('first '));
  const running = await facade([{ kind: 'circuitBreaker', configuration: BREAKER, steps: [{ kind: 'to', uri: `${backend.origin}/items` }] }]);
  try {
    const { res, first, rest } = await within(getItems(running), 'the head while the backend still writes');
    assert.equal(res.statusCode, 200);
    assert.equal(await within(first, 'the first chunk'), 'first ');
    backend.requests[0]!.socket.write(chunk('last') + '0\r\n\r\n');
    assert.equal(await within(rest, 'the end'), 'first last');
    const metrics = await (await fetch(`${running.origin}/observe/metrics`)).text();
    assert.match(metrics, /^svc_circuit_breaker_state\{route="getItems",state="closed"\} 1$/m);
  } finally {
    await running.close();
    backend.close();
  }
});

test('a loadBalance ending its route streams the answer of the endpoint it chose', async () => {
  const backend = await slowBackend(() => CHUNKED_200, chunk('first '));
  const to = (path: string): StepDefinition => ({ kind: 'to', uri: `${backend.origin}${path}` });
  const running = await facade([{ kind: 'loadBalance', strategy: { kind: 'roundRobin' }, steps: [to('/a'), to('/b')] }]);
  try {
    const { first, rest } = await within(getItems(running), 'the head while the backend still writes');
    assert.equal(await within(first, 'the first chunk'), 'first ');
    backend.requests[0]!.socket.write(chunk('last') + '0\r\n\r\n');
    assert.equal(await within(rest, 'the end'), 'first last');
  } finally {
    await running.close();
    backend.close();
  }
});

test('a failed answer still arriving is dropped for the fallback: the client gets the fallback, the backend connection is closed', async () => {
  const backend = await slowBackend(() => 'HTTP/1.1 500 X\r\ncontent-type: text/plain\r\ncontent-length: 100000\r\n\r\n', 'x'.repeat(1000));
  const running = await facade([{ kind: 'circuitBreaker', configuration: BREAKER, steps: [{ kind: 'to', uri: `${backend.origin}/items` }], onFallback: [{ kind: 'setBody', expression: { constant: 'fallback' } }] }]);
  try {
    const { res, rest } = await within(getItems(running), 'the fallback');
    assert.equal(res.statusCode, 200);
    assert.equal(await within(rest, 'the fallback\'s body'), 'fallback');
    await within(backend.requests[0]!.closed.fired, 'the failed answer\'s connection closed');
  } finally {
    await running.close();
    backend.close();
  }
});

test('a failed answer that arrived whole is dropped for the fallback and its connection kept for the next call', async () => {
  const backend = await slowBackend(() => 'HTTP/1.1 500 X\r\ncontent-type: text/plain\r\ncontent-length: 4\r\n\r\n', 'oops');
  const running = await facade([{ kind: 'circuitBreaker', configuration: BREAKER, steps: [{ kind: 'to', uri: `${backend.origin}/items` }], onFallback: [{ kind: 'setBody', expression: { constant: 'fallback' } }] }]);
  try {
    for (let i = 0; i < 2; i++) {
      const { rest } = await within(getItems(running), 'the fallback');
      assert.equal(await within(rest, 'the fallback\'s body'), 'fallback');
    }
    assert.equal(backend.requests.length, 2);
    assert.equal(backend.requests[1]!.socket, backend.requests[0]!.socket, 'one kept-alive connection for both calls');
  } finally {
    await running.close();
    backend.close();
  }
});

test('a circuitBreaker followed by another step reads the answer whole: the client has nothing until the backend ends', async () => {
  const backend = await slowBackend(() => CHUNKED_200, chunk('first '));
  const running = await facade([
    { kind: 'circuitBreaker', configuration: BREAKER, steps: [{ kind: 'to', uri: `${backend.origin}/items` }] },
    { kind: 'setHeader', name: 'x-after', expression: { simple: '${body}' } },
  ]);
  try {
    let headed = false;
    const answer = getItems(running).then((a) => ((headed = true), a));
    await within(backend.arrived[0]!.fired, 'the backend call');
    // The backend has sent its head and first chunk; the facade holds them until the body ends.
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(headed, false, 'no head before the whole answer is read');
    backend.requests[0]!.socket.write(chunk('last') + '0\r\n\r\n');
    const { res, rest } = await within(answer, 'the answer');
    assert.equal(res.headers['x-after'], 'first last');
    assert.equal(await rest, 'first last');
  } finally {
    await running.close();
    backend.close();
  }
});

test('an answer arriving after the breaker\'s timeoutDuration is dropped: its connection is closed, not held unread', async () => {
  let release!: () => void;
  const late = new Promise<void>((r) => (release = r));
  const backend = await slowBackend(() => '', '');
  const running = await facade([
    {
      kind: 'circuitBreaker',
      configuration: { ...BREAKER, timeoutEnabled: true, timeoutDuration: 200 },
      steps: [{ kind: 'to', uri: `${backend.origin}/items` }],
      onFallback: [{ kind: 'setBody', expression: { constant: 'fallback' } }],
    },
  ]);
  // The client stays connected (its connection closing would abort the call by itself).
  const agent = new Agent({ keepAlive: true });
  try {
    const { rest } = await within(getItems(running, agent), 'the fallback');
    assert.equal(await within(rest, 'the fallback\'s body'), 'fallback');
    release();
    await late;
    backend.requests[0]!.socket.write(CHUNKED_200 + chunk('late'));
    await within(backend.requests[0]!.closed.fired, 'the late answer\'s connection closed');
  } finally {
    agent.destroy();
    await running.close();
    backend.close();
  }
});

test('a client that resets mid-answer through a streaming breaker: the backend connection is closed, the breaker counts nothing, the facade answers on', async () => {
  const backend = await slowBackend(() => CHUNKED_200, chunk('x'.repeat(64 * 1024)));
  const running = await facade([{ kind: 'circuitBreaker', configuration: { ...BREAKER, slidingWindowSize: 1, minimumNumberOfCalls: 1 }, steps: [{ kind: 'to', uri: `${backend.origin}/items` }] }]);
  try {
    const { res, first, rest } = await within(getItems(running), 'the head');
    rest.catch(() => undefined);
    await within(first, 'the first bytes');
    res.socket.resetAndDestroy();
    await within(backend.requests[0]!.closed.fired, 'the backend connection closed after the client reset');
    // One failure would have opened this breaker (window 1): the next call goes through to the backend.
    const next = await within(getItems(running), 'the next answer');
    assert.equal(next.res.statusCode, 200);
    backend.requests[1]!.socket.write('0\r\n\r\n');
    assert.equal((await within(next.rest, 'the next body')).length, 64 * 1024);
    const metrics = await (await fetch(`${running.origin}/observe/metrics`)).text();
    assert.match(metrics, /^svc_circuit_breaker_state\{route="getItems",state="closed"\} 1$/m);
  } finally {
    await running.close();
    backend.close();
  }
});
