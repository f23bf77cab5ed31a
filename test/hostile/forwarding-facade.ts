// A facade that forwards every method of one path to one backend, for the framing and smuggling tests:
// /items/{id} with GET (so HEAD), POST, PUT, DELETE, OPTIONS and TRACE, each operation routed to
// `to: <backend>/<operationId>`, so the backend's request line says which operation sent it; and the
// requests those tests write byte by byte.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serve, tempDir, type Running } from '../helpers.js';
import { closedByServer, firstAnswer, rawSocket, until } from './raw-client.js';
import type { RawBackend } from './raw-peers.js';

export const FORWARDED_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS', 'TRACE'] as const;

/** The operation id of `method` on /items/{id}: `deleteItem`, ... (HEAD is served by GET's). */
export function operationOf(method: string): string {
  return `${(method === 'HEAD' ? 'GET' : method).toLowerCase()}Item`;
}

const operation = (method: string): string => {
  const body = method === 'GET' ? '' : `, requestBody: { content: { text/plain: { schema: { type: string } } } }`;
  return `    ${method.toLowerCase()}: { operationId: ${operationOf(method)}${body}, responses: { '200': { description: ok } } }\n`;
};

const CONTRACT = `openapi: 3.0.3
info: { title: forwarding, version: '1' }
paths:
  /items/{id}:
    parameters: [{ name: id, in: path, required: true, schema: { type: string } }]
${FORWARDED_METHODS.map(operation).join('')}`;

export interface ForwardingOptions {
  /** rest clientRequestValidation: bodies are read whole and checked before they are forwarded. */
  validate?: boolean;
  /** svc.backend.* options. */
  backend?: Record<string, unknown>;
}

export function forwardingFacade(backendOrigin: string, options: ForwardingOptions = {}): Promise<Running> {
  const dir = tempDir({ 'openapi.yaml': CONTRACT });
  const routes = Object.fromEntries(FORWARDED_METHODS.map((m) => [operationOf(m), [{ kind: 'to' as const, uri: `${backendOrigin}/${operationOf(m)}` }]]));
  return serve({
    specification: join(dir, 'openapi.yaml'),
    routes,
    ...(options.validate === true && { restConfiguration: { clientRequestValidation: true } }),
    ...(options.backend !== undefined && { backend: options.backend }),
  });
}

/** A request the backend would execute if it read a body as the next request on its connection. */
export const SMUGGLED = 'DELETE /internal/users/all HTTP/1.1\r\nHost: backend\r\n\r\n';

/** A request head for /items/1 with these header lines, asking the facade to close the connection after its answer. */
export function head(method: string, lines: readonly string[]): string {
  return `${method} /items/1 HTTP/1.1\r\nHost: facade\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`;
}

/** One chunk (RFC 9112 §7.1) carrying `data`. */
export function chunk(data: string): string {
  return `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
}

/**
 * Writes the head and the first part of a request, waits until the backend has that much (the facade is
 * streaming the body), then writes the rest: the body reaches the facade after its head was forwarded.
 */
export async function sendInTwo(running: Running, backend: RawBackend, first: string, rest: string): Promise<{ statusLine: string; body: string }> {
  const socket = await rawSocket(Number(new URL(running.origin).port));
  const before = backend.connections.reduce((n, c) => n + c.bytes.length, 0);
  socket.write(first);
  await until('the backend has the head', () => backend.connections.reduce((n, c) => n + c.bytes.length, 0) > before);
  socket.write(rest);
  await closedByServer(socket, 5000);
  return firstAnswer(socket.received());
}

/**
 * Nothing on any backend connection beyond the whole requests read off it: no body left to become a request.
 * With `cutAllowed`, a connection may end in part of a request (a client whose body turned out malformed
 * after its head was forwarded) if the facade closed it: a backend never reads that as a whole request.
 */
export function assertInStep(backend: RawBackend, cutAllowed = false): void {
  backend.connections.forEach((connection, i) => {
    const requests = backend.received.filter((r) => r.connection === i).map((r) => r.bytes).join('');
    if (cutAllowed && connection.closed && connection.bytes.startsWith(requests)) return;
    assert.equal(connection.bytes, requests, `backend connection ${i} carries only whole requests`);
  });
  assert.deepEqual(backend.received.filter((r) => r.target.startsWith('/internal')), [], 'no smuggled request reached the backend');
}
