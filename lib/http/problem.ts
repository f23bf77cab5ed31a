// Problem responses (RFC 9457, docs/errors.md): every error the facade itself answers goes through here.
import { STATUS_CODES, type ServerResponse } from 'node:http';
import { problemBody, type ErrorDef, type SvcError, type Violation } from '../util/errors.js';
import { REQUEST_ID_HEADER, requestIdOf, withRequestId } from '../message/request-id.js';
import { noteBodyLength } from './body-length.js';

const PROBLEM_TYPE = 'application/problem+json';

/** A problem with the catalogue's code (`d.code`); the detail is the entry's message unless given. */
export function sendProblem(res: ServerResponse, d: ErrorDef, detail: string = d.message, errors?: Violation[], headers?: Readonly<Record<string, string | readonly string[]>>): void {
  sendProblemBody(res, d.status, JSON.stringify(problemBody(d.code, d.status, detail, errors)), headers);
}

/** The error's own headers (Retry-After, WWW-Authenticate, Connection) go out unless the caller names others. */
export function sendError(res: ServerResponse, err: SvcError, headers?: Readonly<Record<string, string | readonly string[]>>): void {
  sendProblemBody(res, err.status, JSON.stringify(problemBody(err.code, err.status, err.message, err.errors)), headers ?? err.headers);
}

/** A catalogue entry without arguments, serialized once. */
export function compileStaticProblem(d: ErrorDef): (res: ServerResponse, headers?: Record<string, string>) => void {
  const body = JSON.stringify(problemBody(d.code, d.status, d.message));
  return (res, headers) => sendProblemBody(res, d.status, body, headers);
}

function sendProblemBody(res: ServerResponse, status: number, body: string, headers?: Readonly<Record<string, string | readonly string[]>>): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // A failed answer may have set headers before it threw (writeHead merges them): the problem carries only
  // its own, the server's (Connection during a graceful stop) and the request id, which names this
  // occurrence of the problem (RFC 9457 `instance`).
  for (const name of res.getHeaderNames()) if (name !== REQUEST_ID_HEADER && name !== 'connection') res.removeHeader(name);
  const id = requestIdOf(res);
  const text = id === undefined ? body : `${body.slice(0, -1)},"instance":${JSON.stringify(id)}}`;
  // The reason phrase is explicit: a writeHead that threw earlier (a route's invalid header) may have left its own.
  const length = Buffer.byteLength(text);
  noteBodyLength(res, length);
  res.writeHead(status, STATUS_CODES[status] ?? 'Error', withRequestId(res, { ...headers, 'content-type': PROBLEM_TYPE, 'content-length': length }));
  res.end(text);
}
