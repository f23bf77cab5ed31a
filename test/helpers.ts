// Shared test helpers: real facades on real loopback ports, real files.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request, type Agent } from 'node:http';
import type { ClientHttp2Stream, IncomingHttpHeaders } from 'node:http2';
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

/** A CLI started as a child process (`node dist/main.js`, the packed bin): its output so far and its exit code. */
export interface StartedCli {
  child: ChildProcess;
  output: { stdout: string; stderr: string };
  exited: Promise<number | null>;
  /** Waits (at most 30 s) for its `listening on http://127.0.0.1:PORT` line; the origin. */
  listening(): Promise<string>;
}

export function startCli(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): StartedCli {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d: Buffer) => (output.stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output.stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  const listening = async (): Promise<string> => {
    for (const deadline = Date.now() + 120_000; ; ) {
      const port = /^listening on http:\/\/127\.0\.0\.1:(\d+)$/m.exec(output.stdout)?.[1];
      if (port !== undefined) return `http://127.0.0.1:${port}`;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no listening line: ${output.stdout} ${output.stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { child, output, exited, listening };
}

/**
 * A type test's source without its `// @ts-expect-error` lines, and the 1-based lines (of that text) that
 * followed each: compiling the text must report an error on exactly those lines.
 */
export function withoutExpectErrors(source: string): { text: string; lines: number[] } {
  const kept: string[] = [];
  const lines: number[] = [];
  for (const line of source.split('\n')) {
    if (/^\s*\/\/ @ts-expect-error/.test(line)) lines.push(kept.length + 1);
    else kept.push(line);
  }
  return { text: kept.join('\n'), lines };
}

/** A contract whose GET operations (path → operationId) all answer the `Thing` of schemas.json, for reload tests. */
export function thingContract(title: string, paths: Record<string, string>): string {
  const ops = Object.fromEntries(
    Object.entries(paths).map(([path, id]) => [
      path,
      { get: { operationId: id, responses: { '200': { description: 'ok', content: { 'application/json': { schema: { $ref: 'schemas.json#/Thing' } } } } } } },
    ]),
  );
  return JSON.stringify({ openapi: '3.0.3', info: { title, version: '1' }, paths: ops });
}

/** schemas.json for thingContract: a Thing whose `v` has the given example. */
export const thingSchemas = (example: string): string => JSON.stringify({ Thing: { type: 'object', properties: { v: { type: 'string', example } }, required: ['v'] } });

/** A GET's status and body (text), on the given agent (`false`: a fresh connection). */
export function getText(origin: string, path: string, agent: Agent | false = false): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** What an HTTP/2 client stream was answered, once it ended: the status, the head, the body as text. */
export function http2Answer(stream: ClientHttp2Stream): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let headers: IncomingHttpHeaders = {};
    let body = '';
    stream.on('response', (head) => {
      status = Number(head[':status']);
      headers = head;
    });
    stream.setEncoding('utf8').on('data', (d: string) => (body += d));
    stream.on('end', () => resolve({ status, headers, body }));
    stream.on('error', reject);
  });
}
