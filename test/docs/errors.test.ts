// docs/errors.md lists every code of the catalogue (lib/util/errors.ts) once, in the table of its kind,
// with the status or exit code the catalogue gives it (as fastify's Errors.md is kept complete).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Errors } from '../../lib/util/errors.js';
import { ROOT } from '../helpers.js';

/** The rows of the table under `heading`: code -> second column. */
function rows(page: string, heading: string): Map<string, string> {
  const section = page.split(/^## /m).find((s) => s.startsWith(heading));
  assert.ok(section, `docs/errors.md has a section "${heading}"`);
  const found = new Map<string, string>();
  for (const m of section.matchAll(/^\| `(SVC_[A-Z0-9_]+)` \| ([^|]+) \|/gm)) {
    assert.ok(!found.has(m[1]!), `${m[1]} is listed once`);
    found.set(m[1]!, m[2]!.trim());
  }
  return found;
}

test('docs/errors.md lists every code of the catalogue with its status or exit code, and no other', () => {
  const page = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
  const request = rows(page, 'Request errors');
  const startup = rows(page, 'Startup errors');
  const expectedRequest = new Map<string, string>();
  const expectedStartup = new Map<string, string>();
  for (const d of Object.values(Errors)) {
    if (d.exitCode === undefined) expectedRequest.set(d.code, String(d.status));
    else expectedStartup.set(d.code, String(d.exitCode));
  }
  assert.ok(expectedRequest.size > 20 && expectedStartup.size > 20, 'the catalogue was read');
  assert.deepEqual(Object.fromEntries(request), Object.fromEntries(expectedRequest));
  assert.deepEqual(Object.fromEntries(startup), Object.fromEntries(expectedStartup));
});

test('every problem body carries the catalogue code', async () => {
  const { problemBody, staticProblem } = await import('../../lib/util/errors.js');
  assert.equal(problemBody(Errors.NOT_FOUND.code, 404, 'x').code, 'SVC_NOT_FOUND');
  assert.equal(JSON.parse(staticProblem(Errors.BODY_NOT_FORWARDED).toString()).code, 'SVC_BODY_NOT_FORWARDED');
});
