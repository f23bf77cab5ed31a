// The mock folder (docs/mocking.md): indexed once at startup, looked up per request by exact path segments.
//
// Safety by construction: a request can only ever select an entry of the startup index, a Map from relative
// paths (`pet/444.json`) to files that were inside the folder when it was walked. The request path is never
// joined onto a directory, so `..`, encoded slashes or absolute paths have nothing to escape from; the
// segment checks in `requestKey` are a second fence, and symlinks whose real path leaves the folder are
// never indexed.
import { closeSync, constants, fstatSync, openSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FacadeConfig } from '../config/model.js';
import { resourceRoots } from '../contract/resources.js';
import { Errors, svcError } from '../util/errors.js';
import { percentDecoded } from '../http/percent.js';
import type { Logger } from '../util/log.js';

/** Camel's default is `classpath:camel-mock/**`; ours follows the svc naming. */
const DEFAULT_MOCK_PATTERN = 'classpath:svc-mock/**';

const MAX_FILES = 10_000;
const MAX_DEPTH = 32;
const MAX_FILE_BYTES = 10 * 1024 * 1024;
const EXTENSIONS = ['.json', '.xml'];
// Refuse to follow a symlink swapped in after startup (the index holds real paths). Not on Windows.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** One indexed file; its content is read on first use and kept. */
export class MockFile {
  private content: string | Buffer | null | undefined;

  constructor(readonly realPath: string) {}

  /**
   * The file's content, or undefined when it can no longer be read as a regular file within the size cap:
   * a string when the bytes are UTF-8 (the response then goes out in one write), else the bytes as they are.
   */
  read(): string | Buffer | undefined {
    if (this.content === undefined) this.content = asText(readRegularFile(this.realPath));
    return this.content ?? undefined;
  }
}

function asText(bytes: Buffer | null): string | Buffer | null {
  if (bytes === null) return null;
  const text = bytes.toString('utf8');
  return Buffer.from(text).equals(bytes) ? text : bytes;
}

function readRegularFile(path: string): Buffer | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, OPEN_FLAGS);
    const stat = fstatSync(fd);
    if (!stat.isFile() || stat.size > MAX_FILE_BYTES) return null;
    return readFileSync(fd);
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export class MockFolder {
  private constructor(
    /** Relative path with `/` separators and extension → file. The first folder that has a path wins. */
    private readonly index: ReadonlyMap<string, MockFile>,
  ) {}

  /** Resolves `mockIncludePattern` and walks its folders once. */
  static open(config: FacadeConfig, logger: Logger): MockFolder {
    const folders = mockFolders(config, (part) => {
      if (config.openApi.mockIncludePattern !== undefined) logger.warn(`mockIncludePattern ${part}: no such folder; no mock files from it`);
    });
    const index = new Map<string, MockFile>();
    const budget = { left: MAX_FILES, truncated: false };
    for (const folder of folders) walk(folder, folder, '', 0, index, new Set([folder]), budget, logger);
    if (budget.truncated) logger.warn(`mock folder: more than ${MAX_FILES} files; only the first ${MAX_FILES} are served`);
    if (folders.length > 0) logger.info(`mock folder: ${folders.join(', ')} (${index.size} file(s))`);
    return new MockFolder(index);
  }

  /**
   * The files an operation can ever answer with: those whose path, without extension, fits the operation's
   * path template segment by segment. Computed once per operation so requests to operations without mock
   * files skip the file step entirely.
   */
  filesFor(template: string): ReadonlyMap<string, MockFile> {
    const matchers = templateSegments(template).map(segmentMatcher);
    const out = new Map<string, MockFile>();
    for (const [key, file] of this.index) {
      const segments = stripExtension(key).split('/');
      if (segments.length === matchers.length && segments.every((s, i) => matchers[i]!(s))) out.set(key, file);
    }
    return out;
  }
}

/** The folders `mockIncludePattern` names that exist (watch mode watches them too); `missing` hears of the others. */
export function mockFolders(config: FacadeConfig, missing: (part: string) => void = () => undefined): string[] {
  const pattern = config.openApi.mockIncludePattern ?? DEFAULT_MOCK_PATTERN;
  const folders: string[] = [];
  for (const part of pattern.split(',').map((p) => p.trim()).filter((p) => p !== '')) {
    const folder = resolvePatternFolder(part, config.baseDir);
    if (folder === undefined) missing(part);
    else folders.push(folder);
  }
  return folders;
}

/**
 * The index key (without extension) for a request path after the base path, or undefined when the path
 * is not a plain sequence of names: each segment is percent-decoded once, and a segment that is empty
 * (except a trailing one), `.`, `..`, or holds `/`, `\`, NUL or a drive letter selects no file.
 */
export function requestKey(pathAfterBase: string): string | undefined {
  // The usual path (`/pet/1`) passes every check as it is: no splitting and joining it per request.
  if (PLAIN_PATH.test(pathAfterBase)) return pathAfterBase.slice(1, pathAfterBase.endsWith('/') ? -1 : undefined);
  const raw = pathAfterBase.split('/');
  const start = raw[0] === '' ? 1 : 0;
  const end = raw.length > start + 1 && raw[raw.length - 1] === '' ? raw.length - 1 : raw.length;
  const segments: string[] = [];
  for (let i = start; i < end; i++) {
    const segment = percentDecoded(raw[i]!);
    if (segment === undefined || !isPlainName(segment)) return undefined;
    segments.push(segment);
  }
  return segments.length === 0 ? undefined : segments.join('/');
}

/** Segments of unreserved characters, none empty, `.` or `..`, none starting with a dot, a trailing slash allowed. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)+\/?$/;

/** The keys (paths without extension) that some of `files` answers, to skip requests none of them can. */
export function fileStems(files: ReadonlyMap<string, MockFile>): ReadonlySet<string> {
  return new Set([...files.keys()].map(stripExtension));
}

/** The index key of an operation's path template (`/pet/{petId}` → `pet/{petId}`). */
export function templateKey(template: string): string {
  return templateSegments(template).join('/');
}

const UNSAFE = /[/\\\0]|^[a-zA-Z]:/;

function isPlainName(segment: string): boolean {
  return segment !== '' && segment !== '.' && segment !== '..' && !UNSAFE.test(segment);
}

function templateSegments(template: string): string[] {
  return template.split('/').filter((s) => s !== '');
}

/** A template segment as a predicate on file-name segments: literal text must be equal, `{x}` matches anything. */
function segmentMatcher(segment: string): (name: string) => boolean {
  if (!segment.includes('{')) return (name) => name === segment;
  const source = segment
    .split(/\{[^{}]*\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  const re = new RegExp(`^${source}$`, 's');
  return (name) => re.test(name);
}

function stripExtension(key: string): string {
  const ext = EXTENSIONS.find((e) => key.endsWith(e));
  return ext === undefined ? key : key.slice(0, -ext.length);
}

/**
 * `classpath:<dir>/**` (or a bare `<dir>/**`): the first resource root holding `<dir>`; `file:<dir>/**` or an
 * absolute path: that folder. The trailing `/**` is optional; other wildcards are refused at startup.
 */
function resolvePatternFolder(pattern: string, baseDir: string): string | undefined {
  const location = pattern.replace(/\/\*\*$/, '').replace(/\/+$/, '');
  if (/[*?[\]{}]/.test(location) || location === '' || location === 'classpath:' || location === 'file:') {
    throw svcError(Errors.CONFIG_INVALID, 'rest.openApi', 'mockIncludePattern', pattern, 'classpath:<dir>/** or file:<dir>/** (comma-separated)');
  }
  let candidates: string[];
  if (location.startsWith('file:')) candidates = [resolve(location.startsWith('file://') ? fileURLToPath(location) : location.slice('file:'.length))];
  else if (isAbsolute(location)) candidates = [location];
  else {
    const name = location.replace(/^classpath:/, '').replace(/^\/+/, '');
    candidates = resourceRoots(baseDir).map((root) => join(root, name));
  }
  for (const candidate of candidates) {
    try {
      if (statSync(candidate).isDirectory()) return realpathSync(candidate);
    } catch {
      // not there: try the next root
    }
  }
  return undefined;
}

function isInside(folder: string, real: string): boolean {
  return real === folder || real.startsWith(folder.endsWith(sep) ? folder : folder + sep);
}

/** Records every `.json`/`.xml` regular file under `dir` (a real path inside `folder`). */
function walk(folder: string, dir: string, prefix: string, depth: number, index: Map<string, MockFile>, visited: Set<string>, budget: { left: number; truncated: boolean }, logger: Logger): void {
  if (depth > MAX_DEPTH) return;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const key = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    let real = join(dir, entry.name);
    let isDir = entry.isDirectory();
    let isFile = entry.isFile();
    if (entry.isSymbolicLink()) {
      try {
        real = realpathSync(real);
        const stat = statSync(real);
        [isDir, isFile] = [stat.isDirectory(), stat.isFile()];
      } catch {
        continue; // dangling
      }
      if (!isInside(folder, real)) {
        logger.warn(`mock folder: ${key} is a symlink leading outside ${folder}; ignored`);
        continue;
      }
    }
    if (isDir) {
      if (visited.has(real)) continue; // a symlink loop
      visited.add(real);
      walk(folder, real, key, depth + 1, index, visited, budget, logger);
    } else if (isFile && EXTENSIONS.some((e) => entry.name.endsWith(e)) && !index.has(key)) {
      if (budget.left === 0) {
        budget.truncated = true;
        return;
      }
      if (fileSize(real) > MAX_FILE_BYTES) {
        logger.warn(`mock folder: ${key} is unreadable or larger than ${MAX_FILE_BYTES} bytes; ignored`);
        continue;
      }
      index.set(key, new MockFile(real));
      budget.left--;
    }
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return Infinity; // vanished since readdir: not indexed
  }
}
