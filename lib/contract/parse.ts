// JSON or YAML, decided by content rather than file extension (SPEC §2).
import { parse as parseYaml } from 'yaml';
import { cachedParse } from './cache.js';

export function parseDocument(text: string): unknown {
  const start = text.search(/\S/);
  if (start !== -1 && (text[start] === '{' || text[start] === '[')) {
    try {
      return JSON.parse(text);
    } catch {
      // Flow-style YAML also starts with a brace; let the YAML parser have the last word.
    }
  }
  return cachedParse(text, parseYamlText);
}

// maxAliasCount bounds alias expansion ("billion laughs" in YAML).
const parseYamlText = (text: string): unknown => parseYaml(text, { maxAliasCount: 1000, prettyErrors: false });
