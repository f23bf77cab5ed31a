// A reload in watch mode builds as a start does (lib/cli/serve.ts, aroundReload): V8's young generation held
// at its size while the new version is built, one compacting collection after. The real CLI (dist/main.js:
// `npm run build` first) on GitHub's 2.9 MB YAML description, reloaded three times: its RSS comes back near
// the start's, where without this it stayed 60 to 120 MB above it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS, ROOT, startCli, tempDir } from '../helpers.js';
import { until } from '../hostile/raw-client.js';

const MAIN = join(ROOT, 'dist/main.js');
const ENV = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && k !== 'NODE_OPTIONS')), SVC_CONTRACT_CACHE: 'off' };
const MB = 1024 * 1024;

function rss(pid: number): number {
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

test('three reloads of a 2.9 MB YAML contract leave RSS within 40 MB of the start\'s', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  copyFileSync(join(CORPUS, 'apisguru-github-1.1.4/openapi.yaml'), join(dir, 'openapi.yaml'));
  writeFileSync(join(dir, 'app.yaml'), '- rest:\n    openApi:\n      specification: openapi.yaml\n      missingOperation: ignore\n');
  const cli = startCli(process.execPath, [MAIN, 'app.yaml', '--watch', '--port', '0', '--host', '127.0.0.1'], { cwd: dir, env: ENV });
  try {
    await cli.listening();
    const pid = cli.child.pid!;
    // The start's own collection has run once the watching line is out and a moment has passed.
    await until(() => cli.output.stdout, () => cli.output.stdout.includes('watching the contract'), 30_000);
    await new Promise((r) => setTimeout(r, 500));
    const started = rss(pid);
    for (let i = 1; i <= 3; i++) {
      appendFileSync(join(dir, 'openapi.yaml'), `# edit ${i}\n`);
      await until(() => `reload ${i} logged: ${cli.output.stdout.slice(-500)} ${cli.output.stderr}`, () => (cli.output.stdout.match(/reload: no operation changed/g) ?? []).length >= i, 60_000);
    }
    await until(() => `RSS within 40 MB of the start's: ${(rss(pid) / MB).toFixed(1)} MiB after 3 reloads, ${(started / MB).toFixed(1)} MiB after the start`, () => rss(pid) < started + 40 * MB, 10_000);
  } finally {
    cli.child.kill();
    await cli.exited;
  }
});
