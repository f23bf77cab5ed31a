// `missingOperation: mock` (SPEC §7): the stages of an operation that has no route. Everything that does
// not depend on the request (the operation's mock files, its responses and media types) is compiled once
// here; a request costs a few Map lookups and, only when the operation has mock files, one path split.
import type { IncomingHttpHeaders } from 'node:http';
import type { Contract } from '../contract/load.js';
import type { Operation } from '../contract/operations.js';
import type { Feature, FeatureContext, OperationStages, RequestFacts } from '../pipeline/stages.js';
import { compileNegotiator, isJsonMediaType, isXmlMediaType } from '../http/negotiation.js';
import { HeaderNames, type Exchange } from '../routes/exchange.js';
import { compileExamples, type MockBody } from './examples.js';
import { MockFolder, requestKey, templateKey, type MockFile } from './files.js';

/** One mock folder index per facade, built when the first mocked operation is compiled. */
const folders = new WeakMap<FeatureContext, MockFolder>();

export const mockFeature: Feature = (op, disposition, ctx) => {
  if (disposition !== 'mock') return undefined;
  let folder = folders.get(ctx);
  if (folder === undefined) folders.set(ctx, (folder = MockFolder.open(ctx.config, ctx.logger)));
  return compileMock(op, folder, ctx.contract);
};

const ECHO_METHODS = new Set(['DELETE', 'PUT', 'POST', 'PATCH']);
const RESPONSE_CODE = HeaderNames.RESPONSE_CODE;
const PATH = HeaderNames.PATH;
const NO_HEADERS: IncomingHttpHeaders = {};

function compileMock(op: Operation, folder: MockFolder, contract: Contract): Partial<OperationStages> {
  const files = folder.filesFor(op.template);
  const template = templateKey(op.template);
  const fileKinds = compileFileKinds(op.produces);
  const examples = compileExamples(op, contract);
  const servesExamples = op.method === 'GET' || op.method === 'HEAD';
  const echoes = ECHO_METHODS.has(op.method);

  /** Step 1: `<path>.json|.xml`, then `<template>.json|.xml`, in the negotiated order. */
  const findFile = (ex: Exchange, accept: string | undefined, contentType: string | undefined): MockBody | undefined => {
    const kinds = fileKinds(accept, contentType);
    const key = requestKey(String(ex.message.headers.get(PATH) ?? ''));
    return (key === undefined ? undefined : fileBody(files, key, kinds)) ?? fileBody(files, template, kinds);
  };

  const invoke = (ex: Exchange): void => {
    const headers = ex.request?.headers ?? NO_HEADERS;
    const { accept } = headers;
    const contentType = headers['content-type'];
    const preference = headers.prefer === undefined ? NO_PREFERENCE : parsePrefer(headers.prefer);
    const preferred = preference.code === undefined ? undefined : examples.forStatus(preference.code);

    const file = files.size === 0 ? undefined : findFile(ex, accept, contentType);
    if (file !== undefined) return answer(ex, preferred?.status ?? 200, file);

    if (servesExamples || preferred !== undefined || preference.example !== undefined) {
      const chosen = preferred ?? examples.primary;
      const type = chosen?.response.mediaType(accept, contentType);
      const body = type === undefined ? undefined : chosen!.response.example(type, preference.example);
      if (body !== undefined) return answer(ex, chosen!.status, body);
      // The client asked for a declared status that has no example: that status, no body.
      if (preferred !== undefined) return answer(ex, preferred.status, undefined);
    }

    const raw = ex.message.body as Buffer | undefined;
    if (echoes && raw !== undefined && raw.length > 0) {
      if (contentType !== undefined) ex.message.headers.set('content-type', contentType);
      ex.message.headers.set(RESPONSE_CODE, 200);
      return;
    }
    answer(ex, 204, undefined);
  };

  // The echo returns the request bytes exactly, whatever another feature's decode would have made of them.
  return echoes ? { decode: keepRawBody, invoke } : { invoke };
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

interface Preference {
  code: string | undefined;
  example: string | undefined;
}

const NO_PREFERENCE: Preference = { code: undefined, example: undefined };

/** `Prefer: code=404, example=cat` (RFC 7240 syntax, Prism's preference names); other preferences are ignored. */
function parsePrefer(header: string | string[]): Preference {
  const preference: Preference = { code: undefined, example: undefined };
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(/[,;]/)) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    const value = part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'code') preference.code = value;
    else if (name === 'example') preference.example = value;
  }
  return preference;
}
