// `to: http(s)://...`: forwards the exchange to a backend like a proxy (RFC 9110 §7.6) and makes its
// answer the exchange's (docs/routes.md). The parts live in lib/routes/backend/.
import type { Exchange } from '../../message/exchange.js';
import { forwardToBackend } from './call.js';
import type { BackendContext } from './context.js';
import { compileEndpoint } from './endpoint.js';

export interface BackendStep {
  run(ex: Exchange): Promise<void>;
  /** The endpoint may send the request again (followRedirects): its body must be held, not streamed. */
  readonly replaysBody: boolean;
}

/**
 * Compiled once at startup (bad URIs and options fail here). `last`: nothing after this step in its route
 * needs the answer's body, so it stays a stream for the client unless the runtime needs it whole.
 */
export function compileBackendStep(uri: string, parameters: Readonly<Record<string, unknown>> | undefined, ctx: BackendContext, last: boolean): BackendStep {
  const endpoint = compileEndpoint(uri, parameters, ctx.options, ctx.baseDir);
  // Its pool made now: the HTTP client (undici) is loaded while the facade starts, and only when a route forwards.
  ctx.pool(endpoint);
  const stats = ctx.origin(endpoint.origin);
  return { run: (ex) => forwardToBackend(endpoint, ctx, ex, last, stats), replaysBody: endpoint.options.followRedirects };
}
