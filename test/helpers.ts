// Shared test helpers: real facades on real loopback ports, real files.
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFacade, type CreateFacadeOptions, type Facade, type FacadeInput, type Logger } from '../lib/index.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Third-party contracts kept in the repository (see test/corpus/MANIFEST.md). */
export const CORPUS = join(ROOT, 'test/corpus');
export const PETSTORE = join(ROOT, 'spec/petstore-v3.json');

/** A logger that remembers what it was told, for assertions. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return { lines, info: (m) => void lines.push(`INFO ${m}`), warn: (m) => void lines.push(`WARN ${m}`), error: (m) => void lines.push(`ERROR ${m}`) };
}

export interface Running {
  facade: Facade;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  logger: ReturnType<typeof memoryLogger>;
  close(): Promise<void>;
}

/** Builds a facade and serves it on 127.0.0.1 with an ephemeral port. */
export async function serve(input: FacadeInput, options: CreateFacadeOptions = {}): Promise<Running> {
  const logger = memoryLogger();
  const facade = await createFacade(input, { logger, ...options });
  const address = await facade.listen(0, '127.0.0.1');
  return { facade, origin: `http://127.0.0.1:${address.port}`, logger, close: () => facade.stop() };
}

/** A fresh temporary directory with the given files (paths relative to it). */
export function tempDir(files: Record<string, string | Buffer> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-facade-'));
  for (const [name, content] of Object.entries(files)) {
    const path = join(dir, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  return dir;
}
