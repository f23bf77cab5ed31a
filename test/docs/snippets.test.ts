// Every snippet of README.md and docs/*.md runs as written (issue 24); the markers are described in
// test/docs/snippet-runner.ts. The README's commands run in a reader's project with svc-facade installed from
// this clone; a reference page's snippets run at the root of a clone (linked, so what they write stays out of it).
import { test } from 'node:test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers.js';
import { cloneView, project, runSnippets } from './snippet-runner.js';

const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

for (const page of PAGES) {
  test(`${page}: every snippet runs as written`, { timeout: 300_000 }, async () => {
    await runSnippets(page, readFileSync(join(ROOT, page), 'utf8'), page === 'README.md' ? project() : cloneView());
  });
}
