// A parsed YAML contract must not hold its source text: js-yaml hands out string values as slices of it, and
// a large contract's text is megabytes (GitHub's YAML description: 5.8 MB as V8 stores it). Measured as the
// heap a parsed document keeps alive after a full collection, against js-yaml's own result of the same text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { load } from 'js-yaml';
import { parseDocument, parseWithYaml } from '../../lib/contract/parse.js';
import { detachStrings } from '../../lib/contract/detach-strings.js';

// Parsed here, not read back from the parsed-contract cache (whose copies hold no slices either).
process.env.SVC_CONTRACT_CACHE = 'off';
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
setFlagsFromString('--no-expose-gc');

const GITHUB_YAML = fileURLToPath(new URL('../corpus/apisguru-github-1.1.4/openapi.yaml', import.meta.url));

/**
 * A full collection whose sweeping is over: V8 frees dead objects' pages concurrently after a collection,
 * and until then the heap's used size may count them (in one clean-clone CI run the parsed contract
 * measured 8.7 MB larger than in every other, most likely from that). The next collection finishes that
 * sweeping before it starts.
 */
function collect(): void {
  gc();
  gc();
}

/** Bytes of heap still alive after `make` returned a value and a full collection. */
function retainedBy(make: () => unknown): { bytes: number; value: unknown } {
  collect();
  const before = getHeapStatistics().used_heap_size;
  const value = make();
  collect();
  return { bytes: getHeapStatistics().used_heap_size - before, value };
}

test('a large YAML contract, parsed, keeps no hold on its text (GitHub 1.1.4: 13 MB of heap with js-yaml alone, 7 MB parsed)', () => {
  const sliced = retainedBy(() => load(readFileSync(GITHUB_YAML, 'utf8')));
  const detached = retainedBy(() => parseDocument(readFileSync(GITHUB_YAML, 'utf8')));
  // The text as V8 holds it: two bytes a character (it has characters outside Latin-1).
  const textBytes = readFileSync(GITHUB_YAML, 'utf8').length * 2;
  // js-yaml's document keeps the whole text alive (its slices point into it); ours keeps only its strings.
  assert.ok(detached.bytes < sliced.bytes - textBytes / 2, `the parsed contract keeps ${detached.bytes} bytes, js-yaml's ${sliced.bytes} (the text is ${textBytes})`);
});

test('detachStrings copies every string value, nested in objects and arrays, and leaves the rest as it was', () => {
  const text = `a: ${'x'.repeat(20)}\nb: [${'y'.repeat(30)}, 12, short, {c: ${'z'.repeat(14)}, d: null, e: true, f: 1.5}]\n`;
  const doc = parseWithYaml(text);
  const expected = structuredClone(doc);
  detachStrings(doc);
  assert.deepEqual(doc, expected);
});
