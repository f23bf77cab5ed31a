// `content` maps whose entries are references (OpenAPI 3.2 `components/mediaTypes`): resolved once at startup
// into Media Type Objects, so validation, negotiation, mocks and binding read them as if written inline.
//
// A Media Type Object found in another document keeps its own relative references working: its `schema`,
// `itemSchema` and `examples` entries become absolute references to themselves in that document, so they
// resolve there (the consumers resolve a content map's references against the document that holds the map).
import { pathToFileURL } from 'node:url';
import { setOwn } from '../util/objects.js';
import type { Contract } from './load.js';
import { escapePointerToken, isRef } from './refs.js';

/** A Media Type Object (operations.ts has the full type; not imported from there, which imports this file). */
type MediaTypeObject = Record<string, unknown> & { examples?: unknown };

/** Media Type Object fields holding one schema (`itemSchema` is 3.2's per-item schema of sequential types). */
const SCHEMA_FIELDS = ['schema', 'itemSchema'] as const;

/** The content map with every `$ref` entry resolved; the map itself when it has none (or is no map). */
export function resolveContent<T>(contract: Contract, content: T, uri: string): T {
  if (!content || typeof content !== 'object') return content;
  let resolved: Record<string, unknown> | undefined;
  for (const [type, entry] of Object.entries(content)) {
    if (!isRef(entry)) continue;
    resolved ??= { ...(content as Record<string, unknown>) };
    setOwn(resolved, type, mediaTypeAt(contract, entry, uri));
  }
  return (resolved as T | undefined) ?? content;
}

/** The Media Type Object a reference leads to (through any chain), rebased when it lives in another document. */
function mediaTypeAt(contract: Contract, ref: { $ref: string }, uri: string): MediaTypeObject {
  let last = ref.$ref;
  const current = contract.refs.deref(ref, uri, (followed) => (last = followed));
  const hash = last.indexOf('#');
  const fragment = hash === -1 ? '' : last.slice(hash + 1);
  const media = current.value;
  if (!media || typeof media !== 'object' || Array.isArray(media)) return {};
  // Same document, or found through a 3.1 anchor (no pointer to rebase with): references resolve as they are.
  if (current.uri === uri || (fragment !== '' && !fragment.startsWith('/'))) return media as MediaTypeObject;
  return rebased(media as MediaTypeObject, `${documentUrl(current.uri)}#${fragment}`);
}

function rebased(media: MediaTypeObject, at: string): MediaTypeObject {
  const out: MediaTypeObject = { ...media };
  for (const field of SCHEMA_FIELDS) if (out[field] !== undefined) out[field] = { $ref: `${at}/${field}` };
  if (media.examples && typeof media.examples === 'object') {
    const examples: Record<string, unknown> = {};
    for (const name of Object.keys(media.examples)) setOwn(examples, name, { $ref: `${at}/examples/${pointerToken(name)}` });
    out.examples = examples;
  }
  return out;
}

function documentUrl(uri: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(uri) ? uri : pathToFileURL(uri).href;
}

function pointerToken(name: string): string {
  return encodeURIComponent(escapePointerToken(name));
}
