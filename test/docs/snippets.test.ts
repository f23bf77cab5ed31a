// Every snippet of README.md and docs/*.md runs as written (issue 24); the markers are described in
// test/docs/snippet-runner.ts. The README's commands run in a reader's project with svc-facade installed from
// this clone; a reference page's snippets run at the root of a clone (linked, so what they write stays out of it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';
import { cloneView, project, runSnippets, snippets } from './snippet-runner.js';

/**
 * Languages of blocks a reader runs or pastes: configurations, contracts, code and commands. JSON that is no
 * contract, and plain or `text` blocks, are answers and output. A page with such a block that runs none of
 * them fails: each is run (by its kind or a marker) or skipped saying where it runs, never left out unnoticed.
 */
const RUNNABLE = new Set(['sh', 'bash', 'ts', 'js', 'mjs', 'yaml', 'yml', 'xml', 'properties']);

const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

for (const page of PAGES) {
  test(`${page}: every snippet runs as written`, { timeout: 300_000 }, async () => {
    const markdown = readFileSync(join(ROOT, page), 'utf8');
    const ran = await runSnippets(page, markdown, page === 'README.md' ? project() : cloneView());
    const runnable = snippets(markdown).filter((block) => RUNNABLE.has(block.lang) && block.kind !== 'skip');
    assert.ok(runnable.length === 0 || ran > 0, `${page} has ${runnable.length} snippet(s) to run (lines ${runnable.map((b) => b.line).join(', ')}) and ran none: mark them (test/docs/snippet-runner.ts) or skip them saying where they run`);
  });
}
