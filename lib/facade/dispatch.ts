// Dispatch: a request matched against the version's router (404, 405 with Allow), one candidate chosen by the
// query when several operations share a path and method, and the requests under way on a version counted, so
// a version a reload replaced is disposed only after its last request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Errors } from '../util/errors.js';
import { compileStaticProblem } from '../http/problem.js';
import { pickCandidate } from '../http/router.js';
import { preflightMethod } from '../http/cors.js';
import { assignRequestId } from '../message/request-id.js';
import type { FacadeVersion } from './version.js';

const notFound = compileStaticProblem(Errors.NOT_FOUND);
const methodNotAllowed = compileStaticProblem(Errors.METHOD_NOT_ALLOWED);

const ABSOLUTE_FORM = /^https?:\/\/[^/?#]*/i;

/**
 * The request target in origin form. An absolute-form target (`http://host/path?q`, RFC 9112 §3.2.2) loses
 * its scheme and authority, so the path headers and mock lookups see the same path the router matched.
 */
function originForm(target: string): string {
  if (target.charCodeAt(0) === 0x2f) return target;
  const rest = target.replace(ABSOLUTE_FORM, '');
  if (rest === target) return target;
  return rest.startsWith('/') ? rest : `/${rest}`;
}

/**
 * A version as served: its dispatcher, and the requests under way on it, so that a version a reload replaced
 * is disposed (backend pools closed, event-loop monitor stopped) only after its last request finished.
 */
export class ServedVersion {
  private inflight = 0;
  private retired = false;
  private disposed = false;
  private readonly settle = (): void => {
    if (--this.inflight === 0 && this.retired) this.dispose();
  };
  readonly dispatch: (req: IncomingMessage, res: ServerResponse, next: ((err?: unknown) => void) | undefined) => void;

  constructor(readonly version: FacadeVersion) {
    const { router, observation, cors, compress } = version;
    this.dispatch = (req, res, next) => {
      const url = originForm(req.url ?? '/');
      const q = url.indexOf('?');
      const path = q === -1 ? url : url.slice(0, q);
      const query = q === -1 ? '' : url.slice(q + 1);
      const match = router.find(path);
      if (cors !== undefined && (match !== undefined || next === undefined)) {
        const origin = req.headers.origin;
        const preflight = match === undefined || origin === undefined ? undefined : preflightMethod(req);
        if (preflight !== undefined) {
          // Before security and validation: a preflight carries no credentials and no body.
          assignRequestId(req, res);
          return observation.unmatched(req, res, cors.preflight(req, res, origin!, preflight, match!.entry));
        }
        cors.mark(req, res, origin, match?.entry);
      }
      if (match === undefined) {
        if (next) return next();
        assignRequestId(req, res);
        notFound(res);
        observation.unmatched(req, res, 404);
        return;
      }
      assignRequestId(req, res);
      let candidates = match.entry.byMethod[req.method ?? 'GET'];
      if (candidates === undefined && req.method === 'HEAD') candidates = match.entry.byMethod.GET;
      if (candidates === undefined) {
        methodNotAllowed(res, { allow: match.entry.allow });
        observation.unmatched(req, res, 405);
        return;
      }
      const chosen = pickCandidate(candidates, query);
      if (compress !== undefined) {
        const acceptEncoding = req.headers['accept-encoding'];
        if (acceptEncoding !== undefined) compress(req, res, acceptEncoding);
      }
      this.inflight++;
      // `on`, not `once` (no wrapper per request): a response closes once.
      res.on('close', this.settle);
      chosen.target.serve(req, res, match.params, chosen.paramNames, path, query);
    };
  }

  /** Replaced: disposed as soon as no request is under way on it. */
  retire(): void {
    this.retired = true;
    if (this.inflight === 0) this.dispose();
  }

  private dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.version.observation.stop();
    this.version.backends.close();
  }
}

