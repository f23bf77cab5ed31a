// The validation feature (docs/validation.md). With `clientRequestValidation: true` every operation (routed, mocked or
// ignored) checks its requests before anything else runs, in this order, the first failing class deciding:
//   415  a body whose Content-Type the operation does not declare;
//   406  an Accept header none of the declared response media types satisfies;
//   400  every parameter and the body against their schemas, all violations collected.
// With `clientResponseValidation: true` routed operations check what the route answers against the
// contract's response for that status; a violation is a 500 (a defect of the route, not of the client).
import { Readable } from 'node:stream';
import { responseForStatus, responsesByCode } from '../contract/responses.js';
import type { Operation, ResponseObject } from '../contract/operations.js';
import type { Located } from '../contract/refs.js';
import { Errors, SvcError, svcError } from '../util/errors.js';
import { boundedMemo } from '../util/memo.js';
import type { Feature, ItemChecks, OperationStages, RequestFacts } from '../message/stages.js';
import { compileNegotiator, essence, findDeclaredMediaType, isJsonMediaType } from '../http/negotiation.js';
import { HeaderNames, type Exchange, type Headers } from '../message/exchange.js';
import { isSequential } from '../codec/sequential-media.js';
import { isItemSource } from '../message/streamed-body.js';
import { bodyKind, compileMediaCheck, TEXT_KINDS, type BodyContext, type BodyKind, type MediaCheck } from '../schema/bodies.js';
import { checkWholeSequence, compileItemChecks } from '../schema/items.js';
import { compileParameterCheck } from '../parameters/parameters.js';
import { reportControlNames } from '../parameters/query-names.js';
import { bodyContext } from '../schema/body-context.js';
import { Violations } from '../message/violations.js';

export const validationFeature: Feature = (op, disposition, ctx) => {
  const { clientRequestValidation, clientResponseValidation } = ctx.config.rest;
  const stages: Partial<OperationStages> = {};
  const checkResponses = clientResponseValidation === true && disposition === 'route';
  // Items of sequential bodies (lib/sequences/), for operations that declare such media types.
  const checkItems = op.consumes.some(isSequential) || op.produces.some(isSequential) ? compileItemChecks(op, bodyContext(ctx), { request: clientRequestValidation === true, response: checkResponses }) : undefined;
  if (clientRequestValidation) stages.check = compileRequestCheck(op, bodyContext(ctx), checkItems, ctx.serverOptions.maxItemSize);
  if (checkResponses) stages.checkResponse = compileResponseCheck(op, bodyContext(ctx));
  if (checkItems !== undefined) stages.checkItems = checkItems;
  return stages.check || stages.checkResponse ? stages : undefined;
};

interface ContentTypeMatch {
  /** The declared media type the Content-Type matches. */
  declared: string;
  /** How the body is parsed: by the type actually sent (a declared `application/*` may receive JSON). */
  kind: BodyKind;
}

/** Content-Type → the declared media type it matches (parameters and case ignored, wildcards honoured). */
function compileContentTypeMatcher(declared: readonly string[]): (contentType: string) => ContentTypeMatch | undefined {
  return boundedMemo((contentType) => {
    const type = findDeclaredMediaType(declared, contentType);
    return type === undefined ? undefined : { declared: type, kind: bodyKind(contentType) };
  });
}

/** At most this much of a client's Content-Type is echoed in the 415 detail. */
const MAX_ECHOED = 100;

function compileRequestCheck(op: Operation, body: BodyContext, checkItems: ItemChecks | undefined, maxItemSize: number): (facts: RequestFacts) => void {
  const declared = op.consumes;
  const required = op.requestBody?.value.required === true;
  const content = op.requestBody?.value.content ?? {};
  const bodyUri = op.requestBody?.uri ?? '';
  const matchContentType = compileContentTypeMatcher(declared);
  // Operations that declare no response content accept any Accept header.
  const negotiate = op.produces.length > 0 ? compileNegotiator(op.produces) : undefined;
  const notAcceptable = svcError(Errors.NOT_ACCEPTABLE);
  const checkParameters = compileParameterCheck(op, body.compiler, body.contract.refs);
  const mediaCheck = boundedMemo((type) => compileMediaCheck(op, type, 'request', { value: content[type], uri: bodyUri }, body));

  return (facts) => {
    const raw = facts.raw;
    // A body read item by item (lib/sequences/) has its items checked as the route reads them.
    const streamed = facts.streamed === true;
    // A request that says it sends a form sends one, even an empty one (its required fields are then missing):
    // only a request without a body media type has no body.
    const emptyForm = !streamed && (raw === undefined || raw.length === 0) && isEmptyForm(facts.req.headers['content-type']);
    const sent = streamed || (raw !== undefined && raw.length > 0) || emptyForm;
    // A body without Content-Type is read as the first declared media type (as binding reads it).
    const contentType = facts.req.headers['content-type'] || declared[0];
    let match: ContentTypeMatch | undefined;
    if (sent && declared.length > 0) {
      match = contentType === undefined ? undefined : matchContentType(contentType);
      if (match === undefined) throw svcError(Errors.UNSUPPORTED_MEDIA_TYPE, contentType!.slice(0, MAX_ECHOED));
    }
    const accept = facts.req.headers.accept;
    if (negotiate !== undefined && accept !== undefined && negotiate(accept) === undefined) throw notAcceptable;

    const out = new Violations();
    checkParameters?.(facts, out);
    if (facts.queryPairs.length > 0) reportControlNames(facts.queryPairs, out);
    if (!sent) {
      if (required) out.add('body-missing', 'body', '', '', 'is required');
    } else if (match !== undefined && !streamed) {
      if (checkItems !== undefined && isSequential(contentType!)) {
        checkWholeSequence(checkItems, match.declared, contentType!, raw!, maxItemSize, out);
        if (out.size > 0) throw out.toError();
        return;
      }
      // Decoded once: the route gets the same text as its body (rawBodyValue).
      const text = raw !== undefined && TEXT_KINDS.has(match.kind) ? (facts.text = raw.toString('utf8')) : undefined;
      const value = mediaCheck(match.declared).parse(raw ?? NO_BYTES, contentType!, match.kind, out, text);
      if (value !== undefined) facts.body = value;
    }
    if (out.size > 0) throw out.toError();
  };
}

const RESPONSE_CODE = HeaderNames.RESPONSE_CODE.toLowerCase();

const NO_BYTES = Buffer.alloc(0);

/** An empty body whose Content-Type is a form: read as the empty form, as Twilio's server (and RFC 1866 forms) read it. */
function isEmptyForm(contentType: string | undefined): boolean {
  return contentType !== undefined && essence(contentType) === 'application/x-www-form-urlencoded';
}

function compileResponseCheck(op: Operation, body: BodyContext): (ex: Exchange) => void {
  const checks = new Map<string, MediaCheck>();
  const mediaCheck = (code: string, response: Located<ResponseObject>, type: string): MediaCheck => {
    const key = `${code} ${type}`;
    let check = checks.get(key);
    if (check === undefined) checks.set(key, (check = compileMediaCheck(op, type, 'response', { value: response.value.content?.[type], uri: response.uri }, body)));
    return check;
  };
  const byCode = responsesByCode(op, (response) => response);
  const declaresResponses = byCode.size > 0;

  return (ex) => {
    const value = ex.message.body;
    if (value === undefined || value === null || value === '') return;
    // Answers made of items are checked item by item as they are written (lib/sequences/response.ts).
    if (isItemAnswer(value, ex.message.headers)) return;
    const status = responseStatus(ex.message.headers.get(RESPONSE_CODE));
    if (status === undefined) return; // writing the response reports the bad code
    const code = String(status);
    const response = responseForStatus(byCode, code);
    const out = new Violations();
    if (response === undefined) {
      if (declaresResponses) out.add('schema', 'body', '', '', `status ${code} is not declared for this operation`);
    } else {
      const declared = Object.keys(response.value.content ?? {});
      const isText = typeof value === 'string' || Buffer.isBuffer(value);
      const set = ex.message.headers.get('content-type');
      const actual = typeof set === 'string' ? set : isText ? undefined : (declared.find(isJsonMediaType) ?? declared[0]);
      const type = actual === undefined ? undefined : findDeclaredMediaType(declared, actual);
      if (declared.length === 0) {
        // Nothing declared for this status: any body goes.
      } else if (type === undefined) {
        out.add('schema', 'body', '', '', `media type ${actual ?? '(none)'} is not declared for status ${code}`);
      } else if (isText) {
        mediaCheck(code, response, type).parse(Buffer.isBuffer(value) ? value : Buffer.from(value), actual!, bodyKind(actual!), out);
      } else if (bodyKind(actual!) !== 'opaque') {
        mediaCheck(code, response, type).validate(value, out);
      }
    }
    if (out.size > 0) throw new SvcError(Errors.INVALID_RESPONSE, [], out.items);
  };
}

/** The status the response will be written with (a body is present here): the route's code, else 200. */
function responseStatus(code: unknown): number | undefined {
  if (code === undefined || code === null || code === '') return 200;
  const n = Number(code);
  return Number.isInteger(n) && n >= 100 && n <= 599 ? n : undefined;
}

/** An async iterable or generator, or an answer the route labelled with a sequential media type; a Readable is written as it is. */
function isItemAnswer(value: unknown, headers: Headers): boolean {
  const contentType = headers.writtenValue('content-type');
  if (typeof contentType === 'string' && isSequential(contentType)) return true;
  return isItemSource(value) || value instanceof Readable;
}
