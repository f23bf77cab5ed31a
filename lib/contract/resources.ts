// Resource roots: our stand-in for Camel's classpath (docs/configuration.md#contracts).
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The directories searched, in order, for a `classpath:` or bare relative name. */
export function resourceRoots(configDir: string): string[] {
  const cwd = process.cwd();
  const roots = [configDir, join(configDir, 'src/main/resources'), cwd, join(cwd, 'src/main/resources')];
  return [...new Set(roots.map((r) => resolve(r)))];
}

export type ResourceLocation = { kind: 'file'; path: string } | { kind: 'url'; url: string };

/**
 * Resolves a location as docs/configuration.md#contracts says: `http(s)://` is a URL, `file:` or absolute is used as is, and
 * `classpath:NAME` or a bare `NAME` is the first existing file under the resource roots. Returns undefined
 * when nothing exists.
 */
export function locateResource(location: string, configDir: string): ResourceLocation | undefined {
  if (/^https?:\/\//i.test(location)) return { kind: 'url', url: location };
  if (location.startsWith('file:')) {
    const path = location.startsWith('file://') ? fileURLToPath(location) : location.slice(5);
    return existsSync(path) ? { kind: 'file', path: resolve(path) } : undefined;
  }
  if (isAbsolute(location)) return existsSync(location) ? { kind: 'file', path: location } : undefined;
  const name = location.startsWith('classpath:') ? location.slice('classpath:'.length).replace(/^\/+/, '') : location;
  for (const root of resourceRoots(configDir)) {
    const candidate = join(root, name);
    if (existsSync(candidate)) return { kind: 'file', path: candidate };
  }
  return undefined;
}
