// The backend of the scenarios where the facade forwards (`to: http`): a bare node:http server answering the
// scenario's expected response, started by the scenario's `prepare` hook; bench.mjs gives every server of the
// scenario its port as BENCH_BACKEND_PORT and stops it after the scenario.
import { fileURLToPath } from 'node:url';
import { start } from './start.mjs';

export const BARE_SERVER = fileURLToPath(new URL('./bare-server.mjs', import.meta.url));

/** bare-server.mjs's environment: it answers `expect`'s status, content type and body. */
export const bareEnv = ({ status, type, body }) => ({ BARE_STATUS: String(status), BARE_TYPE: type, BARE_BODY: body });

export const startBackend = (scenario) => start(BARE_SERVER, [], bareEnv(scenario.expect));
