#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's test runner (through tsx). Node 20's --test does not expand
// globs itself, so the files are listed here; extra arguments (e.g. one file) replace the list.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

function find(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' ? [] : find(path);
    return e.name.endsWith('.test.ts') ? [relative(process.cwd(), path)] : [];
  });
}

// A ceiling, so a test that hangs (a server left open, a promise never settled) fails instead of stalling CI
// until its own limit. Node 20 applies --test-timeout to each test file as a whole (a file's process is
// killed and its test reported "timed out"), so it is set well above the slowest file on a busy machine
// (the examples, the docs' snippets, npm pack).
const CEILING_MS = 600_000;

const files = process.argv.length > 2 ? process.argv.slice(2) : find('test').sort();
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', `--test-timeout=${CEILING_MS}`, ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
