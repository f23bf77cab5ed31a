// `missingOperation: mock` (docs/mocking.md): the stages of an operation that has no route. Everything that does
// not depend on the request (the operation's mock files, its responses and media types) is compiled once
// here; a request costs a few Map lookups and, only when the operation has mock files, one path split.
// Bodies synthesized from schemas are made on an operation's first request (startup stays as fast) and
// kept; dynamic mode (`Prefer: dynamic=true` or `mockDynamic`) generates a fresh one per request.
import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Operation } from '../contract/operations.js';
import type { Feature, FeatureContext, OperationStages, RequestFacts } from '../message/stages.js';
import { acceptsMediaType, compileNegotiator, isJsonMediaType, isXmlMediaType, isYamlMediaType } from '../http/negotiation.js';
import { Errors, svcError } from '../util/errors.js';
import { HeaderNames, type Exchange } from '../message/exchange.js';
import { compileEchoCheck } from './echo.js';
import { compileExamples, type ChosenResponse, type MockBody } from './examples.js';
import { fileStems, MockFolder, requestKey, templateKey, type MockFile } from './files.js';
import { parsePrefer, type Preference } from './prefer.js';
import { Random } from './random.js';
import { Synthesizer } from './synthesize.js';
import { enableChecks } from './conformance.js';
import { compileSequenceMock } from './sequences.js';
import { isSequential } from '../codec/sequential-media.js';

/** What the mocked operations of one facade share, made when the first one is compiled. */
interface MockContext {
  folder: MockFolder;
  synthesizer: Synthesizer;
  /** Dynamic answers without a `seed=`: one stream, seeded differently on every start. */
  random: Random;
  dynamicByDefault: boolean;
  /**
   * The synthesizer's checks (conformance.ts) load validation on the first mocked request (startup stays as
   * fast, and a facade whose mock is never asked never loads ajv); answers wait for them. Null once loaded.
   */
  checks: Promise<void> | null | undefined;
}

const contexts = new WeakMap<FeatureContext, MockContext>();

export const mockFeature: Feature = (op, disposition, ctx) => {
  if (disposition !== 'mock') return undefined;
  let mock = contexts.get(ctx);
  if (mock === undefined) {
    const notes = new Set<string>();
    const note = (message: string): void => {
      if (notes.has(message)) return;
      notes.add(message);
      ctx.logger.warn(message);
    };
    mock = {
      folder: MockFolder.open(ctx.config, ctx.logger),
      synthesizer: new Synthesizer(ctx.contract, note),
      random: new Random(randomUUID()),
      dynamicByDefault: ctx.config.openApi.mockDynamic === true,
      checks: undefined,
    };
    contexts.set(ctx, mock);
  }
  return compileMock(op, mock, ctx);
};

const ECHO_METHODS = new Set(['DELETE', 'PUT', 'POST', 'PATCH']);
// Lower-cased once: Headers lower-cases every name it is given, a mixed-case one into a new string each time.
const RESPONSE_CODE = HeaderNames.RESPONSE_CODE.toLowerCase();
const PATH = HeaderNames.PATH.toLowerCase();
const NO_HEADERS: IncomingHttpHeaders = {};
const NO_PREFERENCE: Preference = {};

function compileMock(op: Operation, mock: MockContext, ctx: FeatureContext): Partial<OperationStages> {
  const { contract } = ctx;
  const files = mock.folder.filesFor(op.template);
  const template = templateKey(op.template);
  const fileKinds = compileFileKinds(op.produces);
  const examples = compileExamples(op, contract, mock.synthesizer);
  // QUERY (OpenAPI 3.2) is safe like GET: its body asks a question, so it is answered, never echoed.
  const echoes = ECHO_METHODS.has(op.method);
  // Only the response step 2 chooses is ever echoed, and only when it declares content to echo.
  const primary = examples.primary;
  const echoCheck = echoes && primary !== undefined && primary.response.declaresContent ? compileEchoCheck(op, primary.response.located, ctx) : undefined;
  // Streams (JSON Lines, SSE, ...) are answered by lib/mock/sequences.ts; only operations that declare one have it.
  const sequences = op.produces.some(isSequential) ? compileSequenceMock(op, contract, mock.synthesizer) : undefined;

  const stems = fileStems(files);
  const templateHasFile = stems.has(template);

  /** Step 1: `<path>.json|.xml`, then `<template>.json|.xml`, in the negotiated order. */
  const findFile = (ex: Exchange, accept: string | undefined, contentType: string | undefined): MockBody | undefined => {
    const key = requestKey(String(ex.message.headers.get(PATH) ?? ''));
    const ownFile = key !== undefined && stems.has(key);
    if (!ownFile && !templateHasFile) return undefined;
    const kinds = fileKinds(accept, contentType);
    return (ownFile ? fileBody(files, key, kinds) : undefined) ?? (templateHasFile ? fileBody(files, template, kinds) : undefined);
  };

  const invoke = (ex: Exchange): void | Promise<void> => {
    if (mock.checks !== null) return (mock.checks ??= loadChecks(mock, ctx)).then(() => invoke(ex));
    const headers = ex.request?.headers ?? NO_HEADERS;
    const { accept } = headers;
    const contentType = headers['content-type'];
    const preference = headers.prefer === undefined ? NO_PREFERENCE : parsePrefer(headers.prefer);
    const preferred = preference.code === undefined ? undefined : examples.forStatus(preference.code);

    const file = files.size === 0 ? undefined : findFile(ex, accept, contentType);
    if (file !== undefined) return answer(ex, preferred?.status ?? 200, file);

    // Step 4's last resort: an operation that declares no response at all has nothing to choose.
    const chosen = preferred ?? primary;
    if (chosen === undefined) return answer(ex, 204, undefined);
    // `code=`, `example=` and `dynamic=true` ask for the declared response on any method: no echo.
    const asked = preferred !== undefined || preference.example !== undefined || preference.dynamic === true;
    const raw = ex.message.body as Buffer | undefined;
    if (echoCheck !== undefined && !asked && raw !== undefined && raw.length > 0 && contentType !== undefined && acceptsMediaType(accept, contentType)) {
      const verdict = echoCheck(raw, contentType);
      if (verdict instanceof Promise) return verdict.then((echo) => (echo ? echoed(ex, chosen, contentType) : declaredAnswer(ex, chosen, preference, accept, contentType)));
      if (verdict) return echoed(ex, chosen, contentType);
    }
    declaredAnswer(ex, chosen, preference, accept, contentType);
  };

  /** Step 3's echo: the request bytes as they came, labelled as the client labelled them, under the chosen status. */
  const echoed = (ex: Exchange, chosen: ChosenResponse, contentType: string): void => {
    for (const [name, value] of chosen.response.synthesized.headers(undefined)) ex.message.headers.set(name, value);
    ex.message.headers.set('content-type', contentType);
    ex.message.headers.set(RESPONSE_CODE, chosen.status);
  };

  /**
   * Answers with a declared response: its example, else (or in dynamic mode) a body synthesized from its
   * schema, with its declared headers, under its own status; no body when it declares no content. The
   * body is in the most preferred acceptable media type the mock can write it in: 406 when the client
   * accepts none of them.
   */
  const declaredAnswer = (ex: Exchange, chosen: ChosenResponse, preference: Preference, accept: string | undefined, contentType: string | undefined): void => {
    const { response } = chosen;
    const dynamic = preference.dynamic ?? mock.dynamicByDefault;
    const random = !dynamic ? undefined : preference.seed !== undefined ? new Random(preference.seed) : mock.random;
    let body: MockBody | undefined;
    if (response.declaresContent) {
      const types = response.mediaTypes(accept, contentType);
      if (types.length === 0) throw svcError(Errors.NOT_ACCEPTABLE);
      for (const type of types) {
        if (sequences !== undefined && isSequential(type)) body = sequences(chosen.status, type, preference.example, random);
        else {
          if (random === undefined || preference.example !== undefined) body = response.example(type, preference.example);
          body ??= response.synthesized.body(type, random);
        }
        if (body !== undefined) break;
      }
      // JSON, XML and YAML can write any value: failing there, the schema admits no value (a contract defect).
      if (body === undefined) throw types.some(writesAnyValue) ? svcError(Errors.MOCK_NO_BODY, `${op.method} ${op.path}`, types.join(', ')) : svcError(Errors.MOCK_NOT_ENCODABLE, types.join(', '));
    }
    for (const [name, value] of response.synthesized.headers(random)) ex.message.headers.set(name, value);
    answer(ex, chosen.status, body);
  };

  // The echo returns the request bytes exactly, whatever another feature's decode would have made of them.
  return echoes ? { decode: keepRawBody, invoke } : { invoke };
}

function loadChecks(mock: MockContext, ctx: FeatureContext): Promise<void> {
  return enableChecks(ctx, mock.synthesizer)
    .catch((err: Error) => ctx.logger.error(`mock: synthesized bodies cannot be checked: ${err.message}`))
    .finally(() => (mock.checks = null));
}

function writesAnyValue(type: string): boolean {
  return isJsonMediaType(type) || isXmlMediaType(type) || isYamlMediaType(type);
}

function keepRawBody(facts: RequestFacts, ex: Exchange): void {
  ex.message.body = facts.raw;
}

/** Sets the mock answer; the status is always set so a client-sent `SvcHttpResponseCode` header cannot choose it. */
function answer(ex: Exchange, status: number, body: MockBody | undefined): void {
  ex.message.body = body?.payload;
  if (body !== undefined) ex.message.headers.set('content-type', body.type);
  ex.message.headers.set(RESPONSE_CODE, status);
}

function fileBody(files: ReadonlyMap<string, MockFile>, key: string, kinds: readonly FileKind[]): MockBody | undefined {
  for (const kind of kinds) {
    const payload = files.get(key + kind.ext)?.read();
    if (payload !== undefined) return { payload, type: kind.type };
  }
  return undefined;
}

interface FileKind {
  ext: string;
  type: string;
}

const JSON_FILE: FileKind = { ext: '.json', type: 'application/json' };
const XML_FILE: FileKind = { ext: '.xml', type: 'application/xml' };
const JSON_THEN_XML = [JSON_FILE, XML_FILE];
const XML_THEN_JSON = [XML_FILE, JSON_FILE];
const JSON_ONLY = [JSON_FILE];
const XML_ONLY = [XML_FILE];
const NEITHER: FileKind[] = [];

/**
 * Which mock file extensions to try, in order, for a request: by `Accept` between JSON and XML (the
 * operation's own order breaks ties); without `Accept`, the request's Content-Type kind first.
 */
function compileFileKinds(produces: readonly string[]): (accept: string | undefined, contentType: string | undefined) => readonly FileKind[] {
  const firstXml = produces.findIndex(isXmlMediaType);
  const firstJson = produces.findIndex(isJsonMediaType);
  const declaredOrder = firstXml !== -1 && (firstJson === -1 || firstXml < firstJson) ? XML_THEN_JSON : JSON_THEN_XML;
  const negotiate = compileNegotiator(declaredOrder.map((k) => k.type));
  const acceptsJson = compileNegotiator([JSON_FILE.type]);
  const acceptsXml = compileNegotiator([XML_FILE.type]);
  return (accept, contentType) => {
    if (accept === undefined || accept === '') {
      if (contentType !== undefined && isXmlMediaType(contentType)) return XML_THEN_JSON;
      if (contentType !== undefined && isJsonMediaType(contentType)) return JSON_THEN_XML;
      return declaredOrder;
    }
    const first = negotiate(accept);
    if (first === undefined) return NEITHER;
    if (first === JSON_FILE.type) return acceptsXml(accept) === undefined ? JSON_ONLY : JSON_THEN_XML;
    return acceptsJson(accept) === undefined ? XML_ONLY : XML_THEN_JSON;
  };
}
