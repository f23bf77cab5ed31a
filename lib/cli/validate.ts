// `svc-facade validate <contract>...`: for CI pipelines. Each contract is loaded exactly as `svc-facade mock`
// would serve it (every reference the start resolves, every operation compiled, request validation on), then
// the operations and the warnings are listed, and nothing listens. A contract that would not start is
// reported with the startup's own message and exit code, so the check and the start never disagree.
import { Errors, SvcError, svcError } from '../errors.js';
import { buildFacade } from '../facade.js';
import type { Logger } from '../log.js';
import { securedOperationCount, unenforcedSecurityWarning } from '../security/contract-security.js';
import { mockConfig } from './mock.js';

export const VALIDATE_USAGE = `Usage: svc-facade validate CONTRACT...

Loads each OpenAPI contract as the server would (references resolved, operations compiled), lists its
operations and warnings, and exits non-zero when one cannot be served. Nothing listens.
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
  const unknown = argv.find((a) => a.startsWith('-'));
  if (unknown !== undefined) throw svcError(Errors.CLI_USAGE, `unknown option ${unknown} for validate; allowed: --help`);
  if (argv.length === 0) throw svcError(Errors.CLI_USAGE, 'validate takes one or more contracts (try svc-facade validate --help)');
  let exitCode = 0;
  for (const contract of argv) {
    const outcome = await validateOne(contract, out, err);
    if (!outcome.ok) exitCode = Math.max(exitCode, outcome.exitCode);
  }
  return exitCode;
}

async function validateOne(contract: string, out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<Outcome> {
  const warnings: string[] = [];
  // Warnings are collected and printed under the contract they belong to; info lines are the listing below.
  const logger: Logger = { info: () => undefined, warn: (m) => void warnings.push(m), error: (m) => void warnings.push(m) };
  try {
    const facade = await buildFacade(mockConfig({ contract, dev: false, dynamic: false }, {}), { logger });
    await facade.stop();
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
