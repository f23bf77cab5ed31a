#!/usr/bin/env node
// The CLI: one command per file of lib/cli/ (serve, mock, validate, types); errors end it with one line.
import { consoleLogger } from './util/log.js';
import { SvcError } from './util/errors.js';
import { readFileSync } from 'node:fs';
import { parseArgs, serve, USAGE } from './cli/serve.js';
import { MOCK_USAGE, parseMockArgs } from './cli/mock.js';
import { runValidate } from './cli/validate.js';
import { runTypes } from './cli/types.js';

// Read beside dist/ (the bundle's import.meta.url is dist/svc-facade.cjs's).
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return pkg.version;
}

async function main(argv: readonly string[]): Promise<void> {
  // Subcommands: `mock CONTRACT` builds its configuration in memory and then starts like FILE... does.
  if (argv[0] === 'validate') return void (process.exitCode = await runValidate(argv.slice(1)));
  if (argv[0] === 'types') return runTypes(argv.slice(1));
  const mock = argv[0] === 'mock';
  const parsed = mock ? parseMockArgs(argv.slice(1)) : parseArgs(argv);
  if (parsed === 'help') return void process.stdout.write(mock ? MOCK_USAGE : USAGE);
  if (parsed === 'version') return void process.stdout.write(`svc-facade ${version()}\n`);
  return serve(parsed);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof SvcError) {
    process.stderr.write(`svc-facade: ${err.message}\n`);
    process.exit(err.exitCode);
  }
  consoleLogger.error(`svc-facade: ${(err as Error)?.message ?? String(err)}`);
  process.exit(1);
});
