// One operation's request handling, compiled once at startup: read the body, run the stages in order,
// answer. No per-request work that can be done here is left for the request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { compileQueryDefaults } from '../contract/defaults.js';
import type { Operation } from '../contract/operations.js';
import { Errors, SvcError, svcError, type ErrorDef } from '../util/errors.js';
import { hasBody, readBody } from '../http/body.js';
import { bodyReadEarlier } from '../http/parsed-body.js';
import { takeAuthorization } from '../http/credentials.js';
import { sendError, sendProblem } from '../http/problem.js';
import { parseQuery } from '../http/query.js';
import { readDecodedBody, requestCoding } from '../http/request-decoding.js';
import { writeExchange, type UnsendableHeader } from '../http/respond.js';
import { Exchange, Headers, PropertyNames } from '../message/exchange.js';
import { requestIdOf } from '../message/request-id.js';
import { wholeBody } from '../message/streamed-body.js';
import { PosingQueryNames } from '../parameters/query-names.js';
import { operationQuerystring } from '../parameters/querystring.js';
import { Admission } from '../message/principal.js';
import { compileAnswerType, compileDeclaredSerializer } from './answer-type.js';
import { RequestHeaders } from './request-headers.js';
import { rawBodyValue, type FeatureContext, type OperationRuntime, type OperationStages, type RequestFacts, type RequestObserver } from '../message/stages.js';

/** Operations that no route handles under `ignore`: the body comes back as it was sent (200, or 204 empty). */
export function echoBody(ex: Exchange): void {
  const type = ex.message.headers.get('content-type');
  if (type !== undefined) ex.message.headers.set('content-type', type);
}

export function compileOperationRuntime(op: Operation, stages: OperationStages, ctx: FeatureContext, observer?: RequestObserver): OperationRuntime {
  const { logger } = ctx;
  const maxBodySize = ctx.serverOptions.maxBodySize;
  const sharedProperties = { [PropertyNames.OPENAPI]: ctx.contract.doc, [PropertyNames.OPERATION_ID]: op.id };
  const prefixLength = ctx.basePath === '/' ? 0 : ctx.basePath.length;
  // Validation (the check stage) types parameters, defaults included; without it they stay text.
  const queryDefaults = compileQueryDefaults(op, ctx.contract, stages.check !== undefined);
  const querystring = operationQuerystring(op, ctx.contract.refs);
  const posing = PosingQueryNames.of(op.parameters);
  const { authenticate, check, decode, invoke, checkResponse } = stages;
  // An object answer without a Content-Type gets one its status declares (answer-type.ts).
  const answerType = compileAnswerType(op, stages.writesType);
  const serialize = stages.serialize ?? (answerType === undefined ? undefined : compileDeclaredSerializer(op, ctx.contract));
  // Sequential media types (lib/sequences/); undefined for operations that declare none.
  const sequence = stages.sequence?.(stages.checkItems);
  // A sequential request body reaches the route item by item, unless the route forwards it to a backend as bytes.
  const itemRequests = sequence?.accepts !== undefined && stages.streamsRequestBody !== true ? sequence : undefined;
  const needsFacts = check !== undefined || decode !== undefined || checkResponse !== undefined;
  // Decided here, once: the body goes to the backend as it arrives unless a stage needs its bytes first.
  const streamsBody = stages.streamsRequestBody === true && check === undefined && decode === undefined;

  // A header value copied from client input (`${header.q}` holding CR/LF) is dropped with a warning, never a 500.
  const unsendable: UnsendableHeader = (res, name) =>
    logger.warn(`${op.method} ${op.path} (direct:${op.id}): response header ${name} not sent: its name is not a token or its value holds a control character (CR, LF, NUL...) or a character above U+00FF`, { requestId: requestIdOf(res) });

  const answerFailure = (res: ServerResponse, thrown: unknown): void => {
    const err = asSvcError(thrown);
    if (err !== undefined && err.status < 500) {
      sendError(res, err, err.status === 413 ? { connection: 'close' } : undefined);
      return;
    }
    logger.error(`${op.method} ${op.path} (direct:${op.id}) failed: ${describeThrown(thrown)}`, { requestId: requestIdOf(res) });
    if (err !== undefined && !STARTUP_CODES.has(err.code)) sendError(res, err);
    else sendProblem(res, Errors.ROUTE_FAILED);
  };

  // Every answer ends in fail() or respond(): the observer (metrics, access log) hears of each one once.
  const fail = (res: ServerResponse, thrown: unknown): void => {
    answerFailure(res, thrown);
    if (observer !== undefined) observer.end(res);
  };

  const respond = (res: ServerResponse, ex: Exchange, facts: RequestFacts | undefined): void => {
    if (checkResponse !== undefined) {
      // A backend's answer streamed so far is read whole to be checked (one made of items is checked as it streams).
      const reading = sequence?.checksThrough(ex) === true ? undefined : wholeBody(ex);
      if (reading !== undefined) {
        reading.then(
          () => respond(res, ex, facts),
          (err: unknown) => fail(res, err),
        );
        return;
      }
    }
    if (sequence !== undefined) {
      const settling = sequence.settle(ex, res);
      if (settling !== undefined) {
        settling.then(
          () => respond(res, ex, facts),
          (err: unknown) => fail(res, err),
        );
        return;
      }
    }
    try {
      if (answerType !== undefined) answerType(ex);
      if (checkResponse !== undefined) checkResponse(ex, facts!);
      if (sequence !== undefined) sequence.frame(ex, res);
      writeExchange(res, ex, serialize, unsendable);
    } catch (err) {
      fail(res, err);
      return;
    }
    if (observer !== undefined) observer.end(res);
  };

  // A refused request is answered at once; a body it announced is never read, so the connection closes.
  const refuse = (req: IncomingMessage, res: ServerResponse, thrown: unknown): void => {
    const err = asSvcError(thrown);
    if (err === undefined) return fail(res, thrown);
    sendError(res, err, hasBody(req) ? { ...err.headers, connection: 'close' } : err.headers);
    if (observer !== undefined) observer.end(res);
  };

  const run = (req: IncomingMessage, res: ServerResponse, params: Record<string, string | undefined>, names: readonly string[], path: string, query: string, raw: Buffer | undefined, token: unknown): void => {
    let ex: Exchange;
    let facts: RequestFacts | undefined;
    // Only a sequential body is left unread here (see receive).
    const items = itemRequests !== undefined && raw === undefined && hasBody(req);
    try {
      // Parsed at most once: validation reads the pairs and the exchange headers reuse them; without
      // validation they are parsed only if a route reads its headers.
      const queryPairs = needsFacts ? parseQuery(query) : undefined;
      if (needsFacts) {
        // Every field a stage may set is there from the start: one object shape, no property added per request.
        facts = { req, path, query, queryPairs: queryPairs!, pathParams: params, pathNames: names, raw, text: undefined, querystring: querystring?.read(query), parameters: undefined, body: undefined, streamed: items };
        if (check !== undefined) check(facts);
      }
      ex = new Exchange(Headers.lazy(new RequestHeaders(req, res, params, names, queryPairs, queryDefaults, path, prefixLength, query, querystring, facts?.querystring, posing, facts)), undefined, req, sharedProperties, facts);
      if (token instanceof Admission) admitted(ex, token);
      else if (token !== undefined) ex.properties[PropertyNames.TOKEN] = token;
      if (decode !== undefined) decode(facts!, ex);
      else if (streamsBody && raw === undefined) ex.message.body = hasBody(req) ? req : undefined;
      else ex.message.body = rawBodyValue(raw, req.headers['content-type'], facts?.text);
      if (items) ex.message.body = itemRequests.open(req, ex);
      const pending = invoke(ex);
      if (pending instanceof Promise) {
        pending.then(
          () => respond(res, ex, facts),
          (err: unknown) => fail(res, err),
        );
        return;
      }
    } catch (err) {
      fail(res, err);
      return;
    }
    respond(res, ex, facts);
  };

  // Said once per operation: the mount is wrong for every request, and each one is answered at once.
  let mountLogged = false;
  const receive = (req: IncomingMessage, res: ServerResponse, params: Record<string, string | undefined>, names: readonly string[], path: string, query: string, token: unknown): void => {
    const announcesBody = hasBody(req);
    // Embedded behind a body parser the stream has ended: reading it would wait forever.
    const earlier = announcesBody ? bodyReadEarlier(req) : undefined;
    if (earlier !== undefined) {
      if ('unusable' in earlier) {
        if (!mountLogged) logger.error(svcError(Errors.BODY_READ_EARLIER_LOG, `${op.method} ${op.path} (direct:${op.id})`, earlier.unusable).message, { requestId: requestIdOf(res) });
        mountLogged = true;
        return refuse(req, res, svcError(Errors.BODY_READ_EARLIER));
      }
      if (earlier.bytes.length > maxBodySize) return fail(res, svcError(Errors.BODY_TOO_LARGE, maxBodySize));
      if (observer !== undefined) observer.received(earlier.bytes.length);
      return run(req, res, params, names, path, query, earlier.bytes, token);
    }
    if (streamsBody || !announcesBody || itemRequests?.accepts!(req) === true) return run(req, res, params, names, path, query, undefined, token);
    const received = (err: SvcError | undefined, raw?: Buffer): void => {
      if (err !== undefined) return fail(res, err);
      if (observer !== undefined) observer.received(raw!.length);
      run(req, res, params, names, path, query, raw, token);
    };
    const contentEncoding = req.headers['content-encoding'];
    // A coded body is decoded for the stages that read it (a body forwarded as it arrives went on above, coded).
    const decoder = contentEncoding === undefined ? undefined : requestCoding(contentEncoding);
    if (decoder instanceof SvcError) return refuse(req, res, decoder);
    if (decoder !== undefined) return readDecodedBody(req, decoder, maxBodySize, received);
    readBody(req, maxBodySize, received);
  };

  if (authenticate === undefined) {
    return {
      serve(req, res, params, names, path, query) {
        if (observer !== undefined) observer.begin(req, res);
        receive(req, res, params, names, path, query, undefined);
      },
    };
  }
  return {
    serve(req, res, params, names, path, query) {
      if (observer !== undefined) observer.begin(req, res);
      let token: unknown;
      try {
        token = authenticate(takeAuthorization(req), req);
      } catch (err) {
        return refuse(req, res, err);
      }
      // Only a token not seen before waits (keys to fetch or a signature to check); a cached one goes on at once.
      if (token instanceof Promise) token.then((t: unknown) => receive(req, res, params, names, path, query, t), (err: unknown) => refuse(req, res, err));
      else receive(req, res, params, names, path, query, token);
    },
  };
}

/** What the contract's security found goes on the exchange: the principal, and the token checked by the oauthProfile. */
function admitted(ex: Exchange, admission: Admission): void {
  if (admission.token !== undefined) ex.properties[PropertyNames.TOKEN] = admission.token;
  if (admission.principal !== undefined) ex.properties[PropertyNames.PRINCIPAL] = admission.principal;
}

/**
 * Catalogue entries about the contract or configuration (those with an exit code). One that surfaces at
 * request time (a `$ref` resolved lazily) is an internal error: logged, never told to clients, as it names
 * server files.
 */
const STARTUP_CODES: ReadonlySet<string> = new Set(Object.values(Errors).flatMap((d: ErrorDef) => (d.exitCode === undefined ? [] : [d.code])));

// A route may throw anything, even a Proxy whose traps throw: looking at it must not throw in turn.
function asSvcError(thrown: unknown): SvcError | undefined {
  try {
    return thrown instanceof SvcError ? thrown : undefined;
  } catch {
    return undefined;
  }
}

function describeThrown(thrown: unknown): string {
  try {
    // One of the facade's own (an invalid response...): one line, what was wrong with each violation named; its
    // stack would show only the facade's internals (a backend failure sets a one-line stack of its own, with
    // origin and cause: lib/routes/backend/failure.ts). A route's own exception keeps its stack: it points
    // into the route.
    if (thrown instanceof SvcError) {
      if (thrown.stack !== undefined && !thrown.stack.includes('\n')) return thrown.stack;
      return `${thrown.name} ${thrown.code}: ${thrown.message}${(thrown.errors ?? []).map((v) => ` [${v.in}${v.pointer === '' ? '' : ` ${v.pointer}`}: ${v.message}]`).join('')}`;
    }
    return (thrown as Error)?.stack ?? String(thrown);
  } catch {
    return 'a thrown value that cannot be described';
  }
}
