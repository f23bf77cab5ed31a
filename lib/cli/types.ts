// `svc-facade types <contract-or-config> [-o file]`: the contract's operations as a TypeScript module
// (lib/types/generate.ts), written to a file or to standard output.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { Errors, svcError } from '../util/errors.js';
import { generateTypes } from '../types/generate.js';

export const TYPES_USAGE = `Usage: svc-facade types CONTRACT-OR-CONFIG [-o FILE]

Writes a TypeScript module describing every operation of the contract (or of the contract a configuration
file names): parameters by location with their types, the request body and each response by media type.
Use it with defineRoutes<Operations>() for routes the compiler checks against the contract.

Options:
  -o, --out FILE   write the module to FILE (default: standard output)
  --help           print this help
`;

interface TypesArgs {
  source: string;
  out: string | undefined;
}

export function parseTypesArgs(argv: readonly string[]): TypesArgs | 'help' {
  let source: string | undefined;
  let out: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') return 'help';
    if (arg === '-o' || arg === '--out' || arg.startsWith('--out=')) {
      const value = arg.startsWith('--out=') ? arg.slice('--out='.length) : argv[++i];
      if (value === undefined || value === '') throw svcError(Errors.CLI_USAGE, `option ${arg.split('=')[0]} needs a file`);
      out = value;
    } else if (arg.startsWith('-')) throw svcError(Errors.CLI_USAGE, `unknown option ${arg} for types; allowed: -o, --out, --help`);
    else if (source !== undefined) throw svcError(Errors.CLI_USAGE, `types takes one contract or configuration file, not ${source} and ${arg}`);
    else source = arg;
  }
  if (source === undefined) throw svcError(Errors.CLI_USAGE, 'types takes a contract or configuration file (try svc-facade types --help)');
  return { source, out };
}

/** Runs the command; the module goes to `-o` or to `stdout`. */
export async function runTypes(argv: readonly string[], stdout: NodeJS.WritableStream = process.stdout): Promise<void> {
  const args = parseTypesArgs(argv);
  if (args === 'help') return void stdout.write(TYPES_USAGE);
  const module = await generateTypes(args.source);
  if (args.out === undefined) return void stdout.write(module);
  const file = resolve(args.out);
  try {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, module);
  } catch (err) {
    throw svcError(Errors.CLI_USAGE, `${args.out}: cannot write: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}
