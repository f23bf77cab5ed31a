// The media type of a route's answer, when the route did not set one: negotiated among the types the
// contract declares for the answer's status (its exact code, else its NXX range, else `default`), as the
// mock negotiates: by Accept, in the contract's order; among types the client likes equally (`*/*`, no
// Accept) the request's own kind first, and JSON for a request that is not XML (an object was JSON before). A route answering `ex.reply(404, {...})` on an operation whose
// 404 is `application/problem+json` or `application/problem+xml` answers in one of those, never in the
// `application/json` the status does not declare; response validation then checks the body as that type,
// and the generated types say the same. Decided before the response check, written by the serializer.
import { Readable } from 'node:stream';
import { contractSchemas, type ContractSchemas } from '../schema/deref.js';
import { writeXml } from '../codec/xml.js';
import type { Contract } from '../contract/load.js';
import type { Operation } from '../contract/operations.js';
import { responseForStatus, responsesByCode } from '../contract/responses.js';
import { compileNegotiator, essence, findDeclaredMediaType, isJsonMediaType, isXmlMediaType } from '../http/negotiation.js';
import type { BodySerializer } from '../http/respond.js';
import { StreamedBody } from '../message/streamed-body.js';
import { HeaderNames, type Exchange } from '../message/exchange.js';

const RESPONSE_CODE = HeaderNames.RESPONSE_CODE;

/** The types an object answer can be written in for one status, negotiated in the declared order or with the request's own kind first. */
interface StatusTypes {
  offers: readonly string[];
  jsonFirst: (accept: string | undefined) => string | undefined;
  xmlFirst: (accept: string | undefined) => string | undefined;
}

const JSON_OR_XML = (type: string): boolean => isJsonMediaType(type) || isXmlMediaType(type);

/** The offers with those of one kind first (the client likes them equally: its own kind wins), each kind in declared order. */
function kindFirst(offers: readonly string[], kind: (type: string) => boolean): (accept: string | undefined) => string | undefined {
  return compileNegotiator([...offers.filter(kind), ...offers.filter((t) => !kind(t))]);
}

/**
 * Sets the Content-Type of an object answer (not text, bytes or a stream) that has none, from what its status
 * declares and the serializer can write (`writes`: binding's mode; else JSON and XML); undefined for an
 * operation whose responses declare none of those (nothing to choose).
 */
export function compileAnswerType(op: Operation, writes: (type: string) => boolean = JSON_OR_XML): ((ex: Exchange) => void) | undefined {
  const byCode = responsesByCode(op, (response): StatusTypes | undefined => {
    const offers = Object.keys(response.value.content ?? {}).filter((t) => !essence(t).includes('*') && writes(t));
    if (offers.length === 0) return undefined;
    return { offers, jsonFirst: kindFirst(offers, isJsonMediaType), xmlFirst: kindFirst(offers, isXmlMediaType) };
  });
  if (![...byCode.values()].some((types) => types !== undefined)) return undefined;
  return (ex) => {
    const { headers, body } = ex.message;
    if (typeof body !== 'object' || body === null || Buffer.isBuffer(body) || body instanceof Uint8Array || body instanceof StreamedBody || body instanceof Readable) return;
    if (Symbol.asyncIterator in body || headers.writtenValue('content-type') !== undefined) return;
    const code = headers.get(RESPONSE_CODE);
    const types = responseForStatus(byCode, code === undefined || code === null || code === '' ? '200' : String(code));
    if (types === undefined) return;
    // One type declared: it is the answer's, whatever the client accepts (a type it does not accept falls back to the first declared).
    if (types.offers.length === 1) return void headers.set('content-type', types.offers[0]!);
    const accept = headers.get('accept');
    // Among the types the client likes equally (`*/*`, or no Accept), the request's own kind comes first.
    const requestType = ex.request?.headers['content-type'];
    // Otherwise JSON first: an object is JSON unless the client or its request says XML (as before this rule).
    const negotiate = requestType !== undefined && isXmlMediaType(requestType) ? types.xmlFirst : types.jsonFirst;
    const chosen = negotiate(typeof accept === 'string' ? accept : undefined);
    // Nothing the client accepts: the first declared (the route chose the status; Accept was checked against the operation).
    headers.set('content-type', chosen ?? types.offers[0]!);
  };
}

/**
 * Writes an object answer in the type chosen above when no binding serializer does: JSON for JSON types,
 * XML (by the response schema for that status and type, as binding writes it) for XML ones.
 */
export function compileDeclaredSerializer(op: Operation, contract: Contract): BodySerializer {
  const byCode = responsesByCode(op, (response) => response);
  let schemas: ContractSchemas | undefined;
  return (body, ex) => {
    const headers = ex.message.headers;
    const type = headers.writtenValue('content-type');
    if (typeof type !== 'string' || !isXmlMediaType(type)) return { payload: JSON.stringify(body), type: 'application/json' };
    schemas ??= contractSchemas(contract);
    const code = headers.get(RESPONSE_CODE);
    const response = responseForStatus(byCode, code === undefined || code === null || code === '' ? '200' : String(code));
    const content = response?.value.content ?? {};
    const declared = findDeclaredMediaType(Object.keys(content), type);
    const schema = declared === undefined ? undefined : schemas.enter(content[declared]?.schema, response!.uri);
    return { payload: writeXml(body, schema, { deref: schemas.deref }), type };
  };
}
