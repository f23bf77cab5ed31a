// The access log (`svc.observe.accessLog=true`): one line per request with time, method, path (never the
// query), operationId, status, duration, response bytes, request id and, when the contract's security
// admitted the request, its principal. Never headers or bodies, so never an Authorization header or a cookie.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger, LogFormat } from '../util/log.js';
import { principalOf } from '../message/principal.js';
import { requestIdOf } from '../message/request-id.js';

/** Status logged for a request whose client went away before the answer (as nginx does). */
const CLIENT_CLOSED = 499;

export type AccessLog = (req: IncomingMessage, res: ServerResponse, operationId: string | undefined, seconds: number, bytes: number) => void;

export function compileAccessLog(format: LogFormat, logger: Logger): AccessLog {
  return (req, res, operationId, seconds, bytes) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q === -1 ? url : url.slice(0, q);
    const status = res.destroyed ? CLIENT_CLOSED : res.statusCode;
    const durationMs = Math.round(seconds * 1e6) / 1e3;
    const requestId = requestIdOf(res);
    const principal = principalOf(req);
    if (format === 'json') {
      logger.info('access', { method: req.method, path, operationId, status, durationMs, bytes, requestId, principal });
    } else {
      // JSON-quoted: a principal comes from a token or a file and may hold spaces or line breaks.
      logger.info(`${new Date().toISOString()} ${req.method} ${path} ${status} ${durationMs}ms ${bytes}B`, { operationId, requestId, principal: principal === undefined ? undefined : JSON.stringify(principal) });
    }
  };
}
