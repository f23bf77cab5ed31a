// `svc-facade validate <contract>...`: for CI pipelines. Each contract is loaded exactly as `svc-facade mock`
// would serve it (every reference the start resolves, every operation compiled, request validation on), then
// the operations and the warnings are listed, and nothing listens. A contract that would not start is
// reported with the startup's own message and exit code, so the check and the start never disagree.
import { Errors, SvcError, svcError } from '../util/errors.js';
import { buildFacade } from '../facade/facade.js';
import type { Logger } from '../util/log.js';
import { securedOperationCount, unenforcedSecurityWarning } from '../security/contract-security.js';
import { mockConfig } from './mock.js';
import { walkArgs } from './args.js';
import type { Contract } from '../contract/load.js';
import { SchemaCompiler } from '../schema/compiler.js';

export const VALIDATE_USAGE = `Usage: svc-facade validate [--base-path P] CONTRACT...

Loads each OpenAPI contract as the server would (references resolved, operations compiled, every schema
compiled as request validation compiles it), lists its operations and warnings, and exits non-zero when one
cannot be served. Nothing listens.

Options:
  --base-path P   list the operations under the base path P, as svc-facade mock --base-path P serves them
`;

interface Outcome {
  ok: boolean;
  exitCode: number;
}

/** Runs the command; resolves to the exit code (0 when every contract loads). */
export async function runValidate(argv: readonly string[], out: NodeJS.WritableStream = process.stdout, err: NodeJS.WritableStream = process.stderr): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    out.write(VALIDATE_USAGE);
    return 0;
  }
  let basePath: string | undefined;
  const contracts: string[] = [];
  walkArgs(argv, (flag, value) => {
    if (flag === '--base-path') basePath = value();
    else if (flag.startsWith('-')) throw svcError(Errors.CLI_USAGE, `unknown option ${flag} for validate; allowed: --base-path, --help`);
    else contracts.push(flag);
    return undefined;
  });
  if (contracts.length === 0) throw svcError(Errors.CLI_USAGE, 'validate takes one or more contracts (try svc-facade validate --help)');
  let exitCode = 0;
  for (const contract of contracts) {
    const outcome = await validateOne(contract, basePath, out, err);
    if (!outcome.ok) exitCode = Math.max(exitCode, outcome.exitCode);
  }
  return exitCode;
}

async function validateOne(contract: string, basePath: string | undefined, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<Outcome> {
  const warnings: string[] = [];
  // Warnings are collected and printed under the contract they belong to; info lines are the listing below.
  const logger: Logger = { info: () => undefined, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };
  try {
    const facade = await buildFacade(mockConfig({ contract, dev: false, dynamic: false, basePath }, {}), { logger });
    await facade.stop();
    // The server compiles a schema on the first request that needs it; here every one is compiled now, so
    // what it would warn about then (an unknown format, a type that is none) is told before it serves.
    compileEverySchema(facade.contract, logger);
    // Built as the mock serves it (security enforced for presence); a server's configuration enforces it only when asked.
    const secured = securedOperationCount(facade.operations.map((o) => o.operation), facade.contract);
    if (secured > 0) warnings.push(unenforcedSecurityWarning(secured));
    out.write(`${contract}: OpenAPI ${facade.contract.doc.openapi}, ${facade.operations.length} operation(s), base path ${facade.basePath}\n`);
    // The startup listing without the disposition (everything is [mock] here: no route is configured).
    for (const line of facade.startupReport) out.write(`  ${line.replace(/ \[mock\]$/, '')}\n`);
    for (const warning of warnings) out.write(`  warning: ${warning}\n`);
    out.write(`${contract}: ok${warnings.length > 0 ? ` (${warnings.length} warning(s))` : ''}\n`);
    return { ok: true, exitCode: 0 };
  } catch (e) {
    if (!(e instanceof SvcError)) throw e;
    for (const warning of warnings) out.write(`  warning: ${warning}\n`);
    err.write(`svc-facade: ${contract}: ${e.message}\n`);
    return { ok: false, exitCode: e.exitCode };
  }
}

/** Keys under which a contract holds values, not schemas: their `format`s are data, not formats. */
const NOT_SCHEMAS = new Set(['example', 'examples', 'default', 'const', 'enum']);

/**
 * Compiles every schema the document holds where OpenAPI puts one (`schema` of a
 * parameter, header or media type; `components.schemas`), with the server's own compiler and logger.
 */
function compileEverySchema(contract: Contract, logger: Logger): void {
  const compiler = new SchemaCompiler(contract, logger);
  const schemas: unknown[] = [];
  const walk = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) return node.forEach(walk);
    for (const [key, value] of Object.entries(node)) {
      if (NOT_SCHEMAS.has(key) || key.startsWith('x-')) continue;
      if (key === 'schema' && value !== null && typeof value === 'object') schemas.push(value);
      else walk(value);
    }
  };
  walk(contract.doc.paths);
  const components = contract.doc.components as { schemas?: Record<string, unknown>; parameters?: unknown; requestBodies?: unknown; responses?: unknown; headers?: unknown } | undefined;
  walk([components?.parameters, components?.requestBodies, components?.responses, components?.headers]);
  schemas.push(...Object.values(components?.schemas ?? {}));
  // One direction is enough: readOnly and writeOnly change only which properties are required.
  for (const schema of schemas) compiler.compile('a schema of the contract', (convert) => convert(schema, contract.uri, 'request'));
}
