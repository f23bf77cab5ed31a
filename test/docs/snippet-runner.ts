// Runs the snippets of a Markdown page as a reader would (issue 24): README.md, docs/*.md (test/docs/snippets.test.ts)
// and examples/*/README.md (test/examples/examples.test.ts). A page's fenced blocks are read in order, with an
// optional marker on the line before a block, `<!-- snippet: KIND ARG -->`:
//   (none)          a ```yaml/```xml/```properties configuration (a YAML list, <svc>, properties) is written to
//                   a scratch folder and started by the real CLI (`--dev`, so operations without a route are
//                   mocked); a contract (YAML or JSON with `openapi`) is checked by `svc-facade validate`;
//                   other blocks (output, shell sessions, fragments of code) are text
//   file NAME       written to the page's scratch folder under NAME (a contract is also validated)
//   start NAME      written as NAME, then started by the CLI as `svc-facade NAME`
//   run NAME        written as NAME, then run with node (tsx for .ts); it must exit 0
//   same-as PATH    must equal the repository's file PATH (an example, which test/examples runs)
//   sh              run with bash in the scratch folder; it must exit 0
//   serve           run with bash in the scratch folder until it prints `listening on` (replaces the previous one)
//   serve: CMD      (no block) CMD run in the repository root, as the README's first commands are
//   curl            each line run with bash against the server; `# TEXT` after it is its first line of output
//                   (`...` matches anything)
//   skip REASON     not run (a fragment; REASON says where it runs)
// The README's scratch folder is a reader's project: node_modules/svc-facade is this repository (as `npm install
// ../svc-facade` makes it), node_modules/tsx and node_modules/.bin/svc-facade are there. A docs page's scratch
// folder stands for the root of a clone (dist/, spec/, svc-mock/, config.yaml linked). Commands run with the
// facade's port given by SVC_SERVER_PORT and PORT (curl's localhost:8080 is rewritten to it), and ports 9000,
// 9001 and 9876 replaced by free ones, so pages never need fixed ports and tests can run side by side.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { ROOT, tempDir } from '../helpers.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|SVC_|NODE_OPTIONS$)/i.test(k)));

interface Block {
  lang: string;
  text: string;
  /** The marker's kind and argument, when the block has one. */
  kind?: string;
  arg?: string;
  line: number;
}

/** The fenced blocks of a page, each with the marker written on the line before it (blank lines between allowed). */
export function snippets(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  let marker: { kind: string; arg: string } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const m = /^<!-- snippet: ([a-z-]+)(:?)\s*(.*?)\s*-->$/.exec(line);
    if (m) {
      if (m[1] === 'serve' && m[2] === ':') blocks.push({ lang: 'sh', text: m[3]!, kind: 'serve-root', line: i + 1 });
      else marker = { kind: m[1]!, arg: m[3]! };
      continue;
    }
    const fence = /^(`{3,})(\S*)/.exec(line);
    if (fence) {
      const start = i;
      const body: string[] = [];
      while (++i < lines.length && !lines[i]!.startsWith(fence[1]!)) body.push(lines[i]!);
      blocks.push({ lang: fence[2]!, text: `${body.join('\n')}\n`, kind: marker?.kind, arg: marker?.arg, line: start + 1 });
      marker = undefined;
    } else if (line.trim() !== '') marker = undefined;
  }
  return blocks;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function run(command: string, args: string[], cwd: string, env = ENV, timeout = 300_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Resolves once 127.0.0.1:port accepts a connection (a ceiling of 60 s against a hang, not a measure). */
async function accepting(port: number): Promise<void> {
  for (const deadline = Date.now() + 60_000; ; ) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.setTimeout(1000, () => socket.destroy());
      socket.once('connect', () => socket.end());
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing accepts connections on port ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A process group started with bash, until its `listening on` line; stop() ends the whole group. */
async function serve(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ origin: string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn('bash', ['-c', script], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const closed = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const stop = async (): Promise<void> => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    await closed;
  };
  for (const deadline = Date.now() + 120_000; ; ) {
    const port = /listening on https?:\/\/[^:\s]+:(\d+)/.exec(output)?.[1];
    if (port !== undefined) return { origin: `http://127.0.0.1:${port}`, stop };
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`\`${script}\` did not start: ${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Starts `svc-facade FILE` and asks its readiness probe, then stops it. */
async function startsAndServes(file: string, cwd: string, dev: boolean): Promise<void> {
  const script = `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(MAIN)} ${JSON.stringify(file)} --port 0 --host 127.0.0.1${dev ? ' --dev' : ''}`;
  const server = await serve(script, cwd, ENV);
  try {
    const ready = await fetch(`${server.origin}/observe/health/ready`);
    assert.equal(ready.status, 200, `${file} is ready`);
  } finally {
    await server.stop();
  }
}

type Kind = 'config' | 'contract' | 'text';

function kindOf(block: Block): Kind {
  if (block.lang === 'properties') return 'config';
  if (block.lang === 'xml') return /^\s*<svc[\s>]/.test(block.text) ? 'config' : 'text';
  if (block.lang === 'yaml' || block.lang === 'yml' || block.lang === 'json') {
    const value: unknown = parseYaml(block.text);
    if (value && typeof value === 'object' && !Array.isArray(value) && 'openapi' in value) return 'contract';
    // A JSON block is a body or an answer; any other YAML is a configuration (or needs a marker saying what it is).
    return block.lang === 'json' ? 'text' : 'config';
  }
  return 'text';
}

/** The README's reader's project (`npm init -y && npm pkg set type=module`): svc-facade installed from this clone (a link, as `npm install ../svc-facade` makes it), and tsx. */
export function project(): string {
  const dir = tempDir({ 'package.json': '{"name":"my-api","version":"1.0.0","type":"module"}\n' });
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules/svc-facade'), 'dir');
  symlinkSync(join(ROOT, 'node_modules/tsx'), join(dir, 'node_modules/tsx'), 'dir');
  symlinkSync('../svc-facade/dist/main.js', join(dir, 'node_modules/.bin/svc-facade'));
  return dir;
}

/** The reference pages' clone: what their snippets read from the root of a clone, linked, so what they write stays out of it. */
export function cloneView(): string {
  const dir = tempDir();
  for (const name of ['package.json', 'config.yaml', 'dist', 'spec', 'svc-mock', 'deploy', 'node_modules']) symlinkSync(join(ROOT, name), join(dir, name));
  return dir;
}

/** The fixed ports pages name (a backend's 9000, a second backend's 9001, the Kubernetes manifest's management port 9876), each with a free one. */
export type FixedPorts = Readonly<Record<string, string>>;

export async function fixedPorts(): Promise<FixedPorts> {
  return { '9000': String(await freePort()), '9001': String(await freePort()), '9876': String(await freePort()) };
}

export function withFreePorts(text: string, fixed: FixedPorts): string {
  return text.replace(/\b(9000|9001|9876)\b/g, (port) => fixed[port]!);
}

/** Runs the snippets of one page in `dir` (written files go there, commands run there); resolves to how many ran. */
export async function runSnippets(page: string, markdown: string, dir: string, fixed?: FixedPorts): Promise<number> {
  let ran = 0;
  const facadePort = await freePort();
  const free = fixed ?? (await fixedPorts());
  const env = { ...ENV, PATH: `${join(dir, 'node_modules/.bin')}:${ENV.PATH ?? ''}`, SVC_SERVER_PORT: String(facadePort), SVC_SERVER_HOST: '127.0.0.1', PORT: String(facadePort) };
  const ports = (text: string): string => withFreePorts(text, free);
  let server: Awaited<ReturnType<typeof serve>> | undefined;
  let unnamed = 0;
  const write = (name: string, text: string): string => {
    const path = join(dir, name);
    // Never through a link into the clone (a snippet named config.yaml would overwrite the real one).
    assert.ok(!existsSync(path) || !lstatSync(path).isSymbolicLink(), `${page}: a snippet may not be named ${name}, a file of the clone`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, ports(text));
    return path;
  };
  try {
    for (const block of snippets(markdown)) {
      const where = `${page}:${block.line}`;
      const kind = block.kind ?? '';
      if (kind === 'skip') {
        assert.ok(block.arg, `${where}: a skipped snippet says why`);
        continue;
      }
      if (kind !== '' || kindOf(block) !== 'text') ran++;
      if (kind === 'same-as') {
        assert.equal(block.text, readFileSync(join(ROOT, block.arg!), 'utf8'), `${where} is ${block.arg} as it is`);
        continue;
      }
      if (kind === 'sh') {
        const { code, stdout, stderr } = await run('bash', ['-c', ports(block.text)], dir, env);
        assert.equal(code, 0, `${where}: ${stdout}${stderr}`);
        continue;
      }
      if (kind === 'serve' || kind === 'serve-root') {
        await server?.stop();
        const script = ports(block.text);
        server = await serve(script, kind === 'serve' ? dir : ROOT, env);
        // A backend the block starts beside the facade is up before the first curl, as it is for a reader
        // who types the next command: wait for every replaced port the block names to accept connections.
        for (const port of Object.values(free).filter((p) => new RegExp(`\\b${p}\\b`).test(script))) await accepting(Number(port));
        continue;
      }
      if (kind === 'curl') {
        assert.ok(server, `${where}: a server runs (a serve snippet before it)`);
        for (const line of block.text.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'))) {
          const host = (text: string): string => ports(text.replaceAll('localhost:8080', new URL(server!.origin).host));
          const [command, expected] = line.split(/\s+# /, 2).map(host) as [string, string | undefined];
          const { code, stdout, stderr } = await run('bash', ['-c', command], dir, env, 10_000);
          assert.equal(code, 0, `${where}: ${command}: ${stderr}`);
          if (expected === undefined) continue;
          const first = stdout.split(/\r?\n/)[0]!.trim();
          const pattern = new RegExp(`^${expected.trim().split('...').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
          assert.match(first, pattern, `${where}: ${command}`);
        }
        continue;
      }
      const type = kindOf(block);
      if (kind === 'file' || kind === 'start' || kind === 'run') {
        const path = write(block.arg!, block.text);
        if (type === 'contract' || kind === 'file') {
          if (type === 'contract') {
            const { code, stderr } = await run(process.execPath, [MAIN, 'validate', path], dir, ENV);
            assert.equal(code, 0, `${where}: ${stderr}`);
          }
          continue;
        }
        if (kind === 'start') await startsAndServes(path, dir, false);
        else {
          const { code, stdout, stderr } = await run(process.execPath, [...(/\.m?ts$/.test(path) ? ['--import', 'tsx'] : []), path], dir, ENV);
          assert.equal(code, 0, `${where}: ${stdout}${stderr}`);
        }
        continue;
      }
      assert.equal(kind, '', `${where}: unknown snippet marker ${kind}`);
      if (type === 'contract') {
        const path = write(`snippet-${++unnamed}.${block.lang === 'json' ? 'json' : 'yaml'}`, block.text);
        const { code, stderr } = await run(process.execPath, [MAIN, 'validate', path], dir, ENV);
        assert.equal(code, 0, `${where}: ${stderr}`);
      } else if (type === 'config') {
        const ext = block.lang === 'yml' ? 'yaml' : block.lang;
        await startsAndServes(write(`snippet-${++unnamed}.${ext}`, block.text), dir, true);
      }
    }
  } finally {
  await server?.stop();
  }
  return ran;
}
