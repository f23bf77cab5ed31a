// The embedding tests' facade: one contract with a JSON-or-form body, a raw body, a text body and a body
// forwarded to a backend, every route answering with the body exactly as it reached it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFacade, type Exchange, type Facade } from '../../lib/index.js';
import { memoryLogger, tempDir } from '../helpers.js';

const item = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1 }, count: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
};

const CONTRACT = {
  openapi: '3.0.3',
  info: { title: 'embedding', version: '1' },
  paths: {
    '/items': {
      post: {
        operationId: 'addItem',
        requestBody: { required: true, content: { 'application/json': { schema: item }, 'application/x-www-form-urlencoded': { schema: item } } },
        responses: { '200': { description: 'the body as the route got it' } },
      },
    },
    '/blobs': {
      post: {
        operationId: 'addBlob',
        requestBody: { required: true, content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
        responses: { '200': { description: 'the body as the route got it' } },
      },
    },
    '/notes': {
      post: {
        operationId: 'addNote',
        requestBody: { required: true, content: { 'text/plain': { schema: { type: 'string', maxLength: 20 } } } },
        responses: { '200': { description: 'the body as the route got it' } },
      },
    },
    '/forwarded': {
      post: {
        operationId: 'forward',
        requestBody: { required: true, content: { 'application/json': { schema: item } } },
        responses: { '200': { description: 'the backend answer' } },
      },
    },
  },
};

/** What a route saw: the body's JavaScript type and its text (bytes as base64). */
export interface Seen {
  type: string;
  text: string;
}

const echo = (ex: Exchange): void => {
  const body = ex.message.body;
  const seen: Seen = Buffer.isBuffer(body) ? { type: 'Buffer', text: body.toString('base64') } : { type: typeof body, text: String(body) };
  ex.message.body = seen;
};

export interface EmbeddedFacade {
  facade: Facade;
  logger: ReturnType<typeof memoryLogger>;
  /** The bytes the backend of operation `forward` received, one entry per request. */
  backendReceived: string[];
  close(): Promise<void>;
}

/**
 * A facade (not listening: the test mounts it) whose `forward` route sends its body to a real backend on
 * 127.0.0.1. Without validation that route streams the body to the backend as it arrives.
 */
export async function embeddedFacade(validation = true): Promise<EmbeddedFacade> {
  const backendReceived: string[] = [];
  const backend: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      backendReceived.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ backend: 'got it' }));
    });
  });
  await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
  const port = (backend.address() as AddressInfo).port;
  const dir = tempDir({ 'contract.json': JSON.stringify(CONTRACT) });
  const logger = memoryLogger();
  const facade = await createFacade(
    {
      specification: `${dir}/contract.json`,
      restConfiguration: { clientRequestValidation: validation },
      routes: { addItem: echo, addBlob: echo, addNote: echo, forward: [{ kind: 'to', uri: `http://127.0.0.1:${port}/in` }] },
    },
    { logger, env: {} },
  );
  return {
    facade,
    logger,
    backendReceived,
    async close() {
      await facade.stop();
      await new Promise((resolve) => backend.close(resolve));
    },
  };
}

/** A POST with a deadline: a request that would hang fails the test instead of the run. */
export async function post(origin: string, path: string, contentType: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': contentType, ...headers }, body, signal: AbortSignal.timeout(5000) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body: parsed };
}
