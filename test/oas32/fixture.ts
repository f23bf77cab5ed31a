// The 3.2 contract of our own for the content features (test/fixtures/oas32-content), served as a mock or
// with routes, with or without validation and binding.
import { join } from 'node:path';
import type { FacadeObjectConfig } from '../../lib/index.js';
import { ROOT, serve, type Running } from '../helpers.js';

export const CONTENT_32 = join(ROOT, 'test/fixtures/oas32-content');

type Options = Omit<FacadeObjectConfig, 'specification' | 'baseDir'>;

export function serveContract32(options: Options = {}): Promise<Running> {
  return serve({ specification: 'openapi.yaml', baseDir: CONTENT_32, missingOperation: 'mock', ...options });
}

/** Serves the contract for `fn` (given the origin with the base path `/v1`), then stops it. */
export async function withContract32(options: Options, fn: (v1: string) => Promise<void>): Promise<void> {
  const running = await serveContract32(options);
  try {
    await fn(`${running.origin}/v1`);
  } finally {
    await running.close();
  }
}

export async function text(res: Response): Promise<{ status: number; type: string | null; body: string }> {
  return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
}
