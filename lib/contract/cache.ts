// Parsed YAML contracts kept on disk by content hash, so that a big YAML contract (a
// second of parsing for the largest of the corpus) is parsed once per content, and later starts read JSON. Safe by
// construction: an entry is found only by the SHA-256 of the exact text, checked again when read; only
// documents that survive a JSON round trip unchanged are stored; any failure (unreadable, corrupt,
// unwritable, foreign directory) falls back to parsing, silently; at most MAX_ENTRIES files are kept.
//
// SVC_CONTRACT_CACHE: unset = a per-user directory in the OS temp dir; `off` = no cache; else a directory.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Texts smaller than this parse faster than the cache would read and hash them. */
export const MIN_CACHED_LENGTH = 64 * 1024;
export const MAX_ENTRIES = 16;
/** Changes whenever the stored form or the parser's output could change. */
const FORMAT = 'svc-facade contract cache 1';

export function cacheDirectory(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const setting = env.SVC_CONTRACT_CACHE;
  if (setting === 'off') return undefined;
  if (setting) return setting;
  const user = process.getuid?.() ?? 'user';
  return join(tmpdir(), `svc-facade-cache-${user}`);
}

/** The parsed text, from the cache when an entry for exactly this text exists; else parsed and stored. */
export function cachedParse(text: string, parse: (text: string) => unknown): unknown {
  const dir = text.length >= MIN_CACHED_LENGTH ? usableDirectory(cacheDirectory()) : undefined;
  if (dir === undefined) return parse(text);
  const key = createHash('sha256').update(FORMAT).update('\0').update(text).digest('hex');
  const file = join(dir, `${key}.json`);
  const hit = read(file, key);
  if (hit !== undefined) return hit.doc;
  const doc = parse(text);
  store(dir, file, key, doc);
  return doc;
}

/**
 * The directory, created if need be; undefined unless it is ours alone (no other user can plant entries)
 * and not a symbolic link (which another user could have placed in the shared temp dir).
 */
function usableDirectory(dir: string | undefined): string | undefined {
  if (dir === undefined) return undefined;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const stat = lstatSync(dir);
    if (!stat.isDirectory()) return undefined;
    const uid = process.getuid?.();
    if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) return undefined;
    return dir;
  } catch {
    return undefined;
  }
}

function read(file: string, key: string): { doc: unknown } | undefined {
  try {
    const entry = JSON.parse(readFileSync(file, 'utf8')) as { key?: unknown; doc?: unknown };
    if (entry === null || typeof entry !== 'object' || entry.key !== key || !('doc' in entry)) return undefined;
    const now = new Date();
    utimesSync(file, now, now); // most recently used: kept longest
    return { doc: entry.doc };
  } catch {
    return undefined;
  }
}

function store(dir: string, file: string, key: string, doc: unknown): void {
  try {
    if (!isJsonSafe(doc, new Set())) return;
    // Written whole under a temporary name, then renamed: a reader never sees half an entry.
    const temp = `${file}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify({ key, doc }), { mode: 0o600 });
    renameSync(temp, file);
    prune(dir);
  } catch {
    // A cache that cannot be written is no cache; the contract was parsed all the same.
  }
}

/** Keeps the MAX_ENTRIES most recently used entries. */
function prune(dir: string): void {
  const entries = readdirSync(dir)
    .filter((name) => /^[0-9a-f]{64}\.json$/.test(name))
    .map((name) => ({ path: join(dir, name), used: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.used - a.used);
  for (const old of entries.slice(MAX_ENTRIES)) unlinkSync(old.path);
}

/**
 * True when JSON.stringify then JSON.parse gives the same value back: plain objects and arrays (no cycles),
 * strings, booleans, null and finite numbers. YAML can also give Infinity/NaN (`.inf`), Dates, Maps and
 * objects whose prototype a key changed; such documents are not cached.
 */
function isJsonSafe(value: unknown, ancestors: Set<object>): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || ancestors.has(value)) return false;
  const proto = Object.getPrototypeOf(value);
  if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) return false;
  ancestors.add(value);
  try {
    for (const item of Array.isArray(value) ? value : Object.values(value)) if (!isJsonSafe(item, ancestors)) return false;
    return true;
  } finally {
    ancestors.delete(value);
  }
}
