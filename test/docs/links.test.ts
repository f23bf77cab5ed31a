// Every relative link of the documentation leads somewhere (issue 24): README.md, CONTRIBUTING.md,
// CHANGELOG.md, docs/*.md and examples/*/README.md. A link to a file or folder must name one that exists; a
// link with #anchor must name a heading of its page, by GitHub's rule (lower case, punctuation dropped,
// spaces as dashes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { ROOT } from '../helpers.js';

const PAGES = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ...readdirSync(join(ROOT, 'examples')).map((f) => `examples/${f}/README.md`),
];

/** The anchors of a page's headings (outside code fences), as GitHub makes them. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const slug = heading[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    let unique = slug;
    for (let n = 1; found.has(unique); n++) unique = `${slug}-${n}`;
    found.add(unique);
  }
  return found;
}

/** The link targets of a page, outside code fences and inline code. */
function links(markdown: string): string[] {
  const text = markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

test('every relative link of the documentation names a file, folder or heading that exists', () => {
  const broken: string[] = [];
  for (const page of PAGES) {
    const markdown = readFileSync(join(ROOT, page), 'utf8');
    for (const target of links(markdown)) {
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), path);
      if (!existsSync(file)) {
        broken.push(`${page}: ${target} (no ${relative(ROOT, file)})`);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${page}: ${target} (no heading #${anchor})`);
    }
  }
  assert.deepEqual(broken, []);
});
