// Base path selection, highest first (docs/configuration.md): component base-path, contextPath, the contract's first
// server, '/'. Camel takes the last server; we take the first, as the OpenAPI spec intends.
import type { OpenApiDocument } from './load.js';

export function resolveBasePath(doc: OpenApiDocument, overrides: { componentBasePath?: string | undefined; contextPath?: string | undefined }): string {
  if (overrides.componentBasePath !== undefined) return normalizeBasePath(overrides.componentBasePath);
  if (overrides.contextPath !== undefined) return normalizeBasePath(overrides.contextPath);
  const server = Array.isArray(doc.servers) ? doc.servers[0] : undefined;
  if (!server || typeof server.url !== 'string') return '/';
  const url = server.url.replace(/\{([^}]*)\}/g, (_, name: string) => {
    const def = server.variables?.[name]?.default;
    return def === undefined ? '' : String(def);
  });
  return normalizeBasePath(serverPath(url));
}

/** The path part of a server URL; relative URLs are paths already. */
function serverPath(url: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(url);
  const rest = scheme ? url.slice(scheme[0].length) : url;
  return rest.split(/[?#]/)[0] ?? '';
}

/** Leading slash, no trailing slash, no doubled slashes; '' and '/' mean the root. */
export function normalizeBasePath(path: string): string {
  const collapsed = `/${path}`.replace(/\/{2,}/g, '/').replace(/\/+$/, '');
  return collapsed === '' ? '/' : collapsed;
}

/** Joins a base path and an operation path without double slashes. */
export function joinPaths(base: string, path: string): string {
  if (base === '/') return path.startsWith('/') ? path : `/${path}`;
  return `${base}/${path.replace(/^\/+/, '')}`;
}
