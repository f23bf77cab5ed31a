// The management listener (`svc.observe.port`): health and metrics on a port of their own, so probes and
// scrapes never share the business port, and a network policy can keep them private.
import type { ServerOptions } from '../config/model.js';
import { Errors } from '../util/errors.js';
import { compileStaticProblem } from '../http/problem.js';
import { listen } from '../http/server.js';
import { createListener, type Listener, type ListenerSpec } from '../http/listener.js';
import type { Logger } from '../util/log.js';
import type { Endpoints } from './observation.js';

const notFound = compileStaticProblem(Errors.NOT_FOUND);
const methodNotAllowed = compileStaticProblem(Errors.METHOD_NOT_ALLOWED);

/**
 * `endpoints` is read per request: a reload (lib/facade/facade.ts) swaps them in without a new listener. With
 * `spec.tls` (svc.observe.tls.*) the port has its own certificate; without, it is plaintext HTTP/1.1.
 */
export async function startManagementServer(endpoints: () => Endpoints, port: number, host: string, options: ServerOptions, spec: ListenerSpec, logger: Logger): Promise<Listener> {
  const listener = createListener((req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = (q === -1 ? url : url.slice(0, q)).replace(/(.)\/+$/, '$1');
    const endpoint = endpoints().get(path);
    if (endpoint === undefined) notFound(res);
    else if (req.method !== 'GET' && req.method !== 'HEAD') methodNotAllowed(res, { allow: 'GET, HEAD' });
    else endpoint.probe(req, res);
  }, options, spec, logger);
  await listen(listener.server, port, host);
  return listener;
}
