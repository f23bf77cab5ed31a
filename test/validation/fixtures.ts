// Shared by the validation tests: a contract written to a temp file and served with validation on, and a
// small client that returns status, parsed body and headers.
import { join } from 'node:path';
import type { Exchange } from '../../lib/index.js';
import { serve, tempDir, type Running } from '../helpers.js';
import { rawRequest } from '../fixtures/http.js';

export interface ServeOptions {
  routes?: Record<string, (ex: Exchange) => unknown>;
  /** clientResponseValidation (default false). */
  responses?: boolean;
  /** clientRequestValidation (default true). */
  requests?: boolean;
  missingOperation?: 'ignore' | 'mock' | 'fail';
  /** More files beside the contract (relative `$ref`s). */
  files?: Record<string, string>;
}

/** Serves a contract (an object, written as JSON, or YAML text) with request validation on. */
export async function serveContract(doc: object | string, options: ServeOptions = {}): Promise<Running> {
  const name = typeof doc === 'string' ? 'contract.yaml' : 'contract.json';
  const dir = tempDir({ [name]: typeof doc === 'string' ? doc : JSON.stringify(doc), ...options.files });
  return serveFile(join(dir, name), options);
}

export async function serveFile(specification: string, options: ServeOptions = {}): Promise<Running> {
  return serve(
    {
      specification,
      missingOperation: options.missingOperation ?? 'ignore',
      restConfiguration: { clientRequestValidation: options.requests ?? true, clientResponseValidation: options.responses ?? false },
      routes: options.routes ?? {},
    },
    { env: {} },
  );
}

export interface Answer {
  status: number;
  /** Parsed JSON when the response is JSON (problem bodies included), else the text. */
  body: any;
  type: string | undefined;
}

export async function call(r: Running, method: string, path: string, options: { body?: string | Buffer; headers?: Record<string, string> } = {}): Promise<Answer> {
  // Node's client sends no Content-Length for a GET or DELETE body unless told; say it for every body.
  const length = options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) };
  const res = await rawRequest(r.origin, path, { method, body: options.body, headers: { ...length, ...options.headers } });
  const type = res.headers['content-type'];
  const json = type !== undefined && /json/.test(type) && res.body !== '';
  return { status: res.status, body: json ? JSON.parse(res.body) : res.body, type };
}

/** `{in, name}` of each violation, for compact assertions. */
export function where(answer: Answer): string[] {
  return (answer.body.errors ?? []).map((e: { in: string; name: string; pointer: string }) => `${e.in}:${e.name}${e.pointer ? ` ${e.pointer}` : ''}`);
}

export const json = (value: unknown): { body: string; headers: Record<string, string> } => ({ body: JSON.stringify(value), headers: { 'content-type': 'application/json' } });
