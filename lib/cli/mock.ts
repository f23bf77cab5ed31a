// `svc-facade mock <contract>`: the contract served in mock mode with no configuration file, as Prism's
// `prism mock` does. Every operation answers from the mock (svc-mock/ beside the contract or in the working
// directory, the contract's examples, bodies synthesized from its schemas), and requests are validated,
// since a mock that accepts anything teaches a client nothing; for the same reason the contract's security
// is enforced for presence, as Prism does (`--no-security` turns it off). The configuration it builds goes through the
// same start as `svc-facade FILE...` (lib/main.ts): port, host, environment variables, graceful stop.
import { dirname, resolve } from 'node:path';
import { applyEnvironment } from '../config/env.js';
import { emptyConfig, setOption, type FacadeConfig } from '../config/model.js';
import { Errors, svcError } from '../util/errors.js';
import { walkArgs } from './args.js';

export const MOCK_USAGE = `Usage: svc-facade mock [options] CONTRACT

Serves every operation of the OpenAPI contract CONTRACT (a file or an http(s):// URL) from the mock, with
request validation on, the contract's security requirements enforced (credentials must be present and
well-formed) and no configuration file.

Options:
  --port N      listen on port N (0: any free port; default svc.server.port or 8080)
  --host H      listen on host H (default svc.server.host or 0.0.0.0)
  --base-path P serve under the base path P (default: the contract's first server URL's path)
  --dynamic     fresh data from the schemas on every request (as Prefer: dynamic=true)
  --watch       reload when the contract, a file it $refs or a mock file changes (docs/watch.md)
  --no-security let requests in without the credentials the contract's security asks for
  --help        print this help
`;

export interface MockArgs {
  /** A file or an http(s):// URL. */
  contract: string;
  port?: string;
  host?: string;
  dev: boolean;
  dynamic: boolean;
  watch?: boolean;
  /** `--base-path`: the base path every operation is served under, instead of the contract's. */
  basePath?: string | undefined;
  /** `--no-security`: the contract's security requirements are not enforced. */
  noSecurity?: boolean;
}

export function parseMockArgs(argv: readonly string[]): MockArgs | 'help' {
  let port: string | undefined;
  let host: string | undefined;
  let dynamic = false;
  let watch = false;
  let basePath: string | undefined;
  let noSecurity = false;
  const contracts: string[] = [];
  const help = walkArgs(argv, (flag, value): 'help' | undefined => {
    if (flag === '--help' || flag === '-h') return 'help';
    if (flag === '--port') port = value();
    else if (flag === '--host') host = value();
    else if (flag === '--dynamic') dynamic = true;
    else if (flag === '--watch') watch = true;
    else if (flag === '--base-path') basePath = value();
    else if (flag === '--no-security') noSecurity = true;
    else if (flag.startsWith('-')) throw svcError(Errors.CLI_USAGE, `unknown option ${flag} for mock; allowed: --port, --host, --base-path, --dynamic, --watch, --no-security, --help`);
    else contracts.push(flag);
    return undefined;
  });
  if (help !== undefined) return help;
  if (contracts.length !== 1) throw svcError(Errors.CLI_USAGE, `mock takes one contract, got ${contracts.length === 0 ? 'none' : contracts.join(' ')} (try svc-facade mock --help)`);
  return { contract: contracts[0]!, port, host, dev: false, dynamic, watch, basePath, noSecurity };
}

/** The configuration of a mock: the contract, every operation mocked, requests validated; environment variables apply. */
export function mockConfig(args: MockArgs, env: NodeJS.ProcessEnv = process.env): FacadeConfig {
  const { contract } = args;
  const remote = /^https?:\/\//i.test(contract);
  const location = remote ? contract : resolve(contract);
  // The mock folder (svc-mock/) and relative $refs are looked up beside the contract first.
  const config = emptyConfig(remote ? process.cwd() : dirname(location));
  // Environment variables first, so that the command line wins (as --port does over SVC_SERVER_PORT); only
  // request validation and security may be turned off there (SVC_REST_CLIENTREQUESTVALIDATION=false,
  // SVC_REST_CLIENTSECURITYVALIDATION=false).
  applyEnvironment(config, env);
  const source = 'svc-facade mock';
  setOption(config, 'openApi', 'specification', location, source);
  setOption(config, 'openApi', 'missingOperation', 'mock', source);
  if (args.dynamic) setOption(config, 'openApi', 'mockDynamic', true, source);
  // Highest of the base path's sources, as svc.component.rest-openapi.base-path is for a configuration.
  if (args.basePath !== undefined) config.componentBasePath = args.basePath;
  if (config.rest.clientRequestValidation === undefined) setOption(config, 'rest', 'clientRequestValidation', true, source);
  if (args.noSecurity === true) setOption(config, 'rest', 'clientSecurityValidation', false, source);
  else if (config.rest.clientSecurityValidation === undefined) setOption(config, 'rest', 'clientSecurityValidation', true, source);
  return config;
}
