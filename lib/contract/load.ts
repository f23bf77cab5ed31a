// Loading the contract named by `specification`: locate, read (or fetch once), parse, check the version.
import { readFile } from 'node:fs/promises';
import { Errors, SvcError, svcError } from '../util/errors.js';
import { parseDocument } from './parse.js';
import { RefResolver } from './refs.js';
import { locateResource } from './resources.js';
import type { OpenApiVersion } from './version.js';

export interface Contract {
  /** The location as configured. */
  location: string;
  /** Absolute file path or URL the contract was read from. */
  uri: string;
  /**
   * The file's bytes, as read: kept only when asked for (`openApi.apiContextPath` serves them). A large
   * contract's bytes are megabytes a facade that does not publish them would hold for its whole life.
   */
  raw: Buffer | undefined;
  doc: OpenApiDocument;
  version: OpenApiVersion;
  refs: RefResolver;
}

export type { OpenApiVersion } from './version.js';

export interface OpenApiDocument {
  openapi: string;
  servers?: { url?: string; name?: unknown; variables?: Record<string, { default?: unknown }> }[];
  paths?: Record<string, unknown>;
  webhooks?: Record<string, unknown>;
  components?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

export async function loadContract(location: string, configDir: string, options: { keepBytes?: boolean } = {}): Promise<Contract> {
  const fail = (reason: string): SvcError => svcError(Errors.SPEC_LOAD, location, reason);
  const found = locateResource(location, configDir);
  if (!found) throw fail('No such file in the resource roots (config directory, its src/main/resources, the working directory, its src/main/resources).');
  let raw: Buffer;
  let uri: string;
  if (found.kind === 'url') {
    uri = found.url;
    try {
      const res = await fetch(found.url, { signal: AbortSignal.timeout(10_000) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      raw = Buffer.from(await res.arrayBuffer());
    } catch (err) {
      throw fail(`Fetching it failed: ${(err as Error).message}`);
    }
  } else {
    uri = found.path;
    try {
      raw = await readFile(found.path);
    } catch (err) {
      throw fail((err as Error).message);
    }
  }
  let doc: unknown;
  try {
    doc = parseDocument(raw.toString('utf8'));
  } catch (err) {
    throw fail(`It is neither JSON nor YAML: ${(err as Error).message.split('\n')[0]}`);
  }
  const version = openApiVersion(doc);
  if (!version) {
    const found = doc && typeof doc === 'object' ? ((doc as Record<string, unknown>).openapi ?? (doc as Record<string, unknown>).swagger) : undefined;
    throw fail(found === undefined ? 'It has no openapi field; only OpenAPI 3.0, 3.1 and 3.2 are supported.' : `Version ${String(found)} is not supported; only OpenAPI 3.0, 3.1 and 3.2 are.`);
  }
  const typed = doc as OpenApiDocument;
  if (typed.paths !== undefined && (typed.paths === null || typeof typed.paths !== 'object')) throw fail('paths is not an object.');
  return { location, uri, raw: options.keepBytes === true ? raw : undefined, doc: typed, version, refs: new RefResolver(uri, typed, version) };
}

function openApiVersion(doc: unknown): OpenApiVersion | undefined {
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return undefined;
  const v = (doc as Record<string, unknown>).openapi;
  if (typeof v !== 'string') return undefined;
  if (/^3\.0\.\d+/.test(v)) return '3.0';
  if (/^3\.1\.\d+/.test(v)) return '3.1';
  if (/^3\.2\.\d+/.test(v)) return '3.2';
  return undefined;
}
