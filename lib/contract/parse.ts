// JSON or YAML, decided by content rather than file extension (docs/configuration.md#contracts).
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { cachedParse } from './cache.js';
import { detachStrings } from './detach-strings.js';
import { parseYamlFast } from './yaml-fast.js';

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

/** Below this size a parsed document may keep its text: copying its strings out would save too little. */
const DETACH_FROM_CHARS = 256 * 1024;

function parseYamlText(text: string): unknown {
  const fast = parseYamlFast(text);
  const doc = fast === undefined ? parseWithYaml(text) : fast.doc;
  if (text.length >= DETACH_FROM_CHARS) detachStrings(doc);
  return doc;
}

/**
 * `yaml`, the reference: what the fast parser leaves to it. maxAliasCount bounds alias expansion ("billion
 * laughs"). Its errors name the line and column (not its multi-line pretty form: callers show one line).
 */
export function parseWithYaml(text: string): unknown {
  try {
    return parseYaml(text, { maxAliasCount: 1000, prettyErrors: false });
  } catch (err) {
    if (!(err instanceof YAMLParseError)) throw err;
    const before = text.slice(0, err.pos[0]);
    const line = before.split('\n').length;
    err.message = `${err.message} (line ${line}, column ${before.length - before.lastIndexOf('\n')})`;
    throw err;
  }
}
