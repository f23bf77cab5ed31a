// The binding feature (docs/binding.md, `bindingMode`): for routed operations, JSON and XML request bodies are
// parsed by Content-Type and bound to the classes their schemas name before the route runs, and objects
// the route returns are written as the negotiated JSON or XML. Mocked and ignored operations never bind.
import { responseForStatus, responsesByCode, successStatus } from '../contract/responses.js';
import type { Operation } from '../contract/operations.js';
import type { RestOptions } from '../config/model.js';
import { Errors, svcError } from '../util/errors.js';
import { boundedMemo } from '../util/memo.js';
import { rawBodyValue, type Feature, type FeatureContext, type OperationStages, type RequestFacts } from '../message/stages.js';
import { bodyText } from '../http/body.js';
import { compileNegotiator, essence, findDeclaredMediaType, isJsonMediaType, isXmlMediaType } from '../http/negotiation.js';
import type { BodySerializer } from '../http/respond.js';
import { HeaderNames, type Exchange, type Headers } from '../message/exchange.js';
import { loadBindingClasses } from './classes.js';
import { contractSchemas, type ContractSchemas } from '../schema/deref.js';
import { Instantiator, type Binder } from './instantiate.js';
import { dropForbiddenKeys } from '../util/objects.js';
import { parseXml, writeXml, type Schema } from '../codec/xml.js';

type BindingMode = NonNullable<RestOptions['bindingMode']>;
type BodyKind = 'json' | 'xml';

/** What one operation's binding needs, built once at startup. */
interface BindingContext {
  mode: BindingMode;
  schemas: ContractSchemas;
  instantiator: Instantiator;
  maxBytes: number;
}

/** Loads the classes (imports the scanned modules) once, then compiles each routed operation's stages. */
export async function bindingFeature(ctx: FeatureContext): Promise<Feature> {
  const { config, logger } = ctx;
  const mode = config.rest.bindingMode ?? 'off';
  if (mode === 'off') {
    if (config.rest.bindingPackageScan) logger.warn(`bindingPackageScan ${config.rest.bindingPackageScan} is not scanned: bindingMode is off`);
    return () => undefined;
  }
  const classes = await loadBindingClasses(config);
  const schemas = contractSchemas(ctx.contract);
  const binding: BindingContext = { mode, schemas, instantiator: new Instantiator(classes, schemas.deref, schemas.dispatch), maxBytes: ctx.serverOptions.maxBodySize };
  return (op, disposition): Partial<OperationStages> | undefined =>
    disposition === 'route' ? { decode: compileDecoder(op, binding), serialize: compileSerializer(op, binding), writesType: (type) => kindOf(type, mode) !== undefined } : undefined;
}

/** The body kind a media type binds as under the mode, or undefined (the body stays raw). */
function kindOf(type: string, mode: BindingMode): BodyKind | undefined {
  const both = mode === 'auto' || mode === 'json_xml';
  if (isJsonMediaType(type)) return both || mode === 'json' ? 'json' : undefined;
  if (isXmlMediaType(type)) return both || mode === 'xml' ? 'xml' : undefined;
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Request bodies

interface RequestTarget {
  kind: BodyKind;
  /** The request body schema for this media type (for XML names and class names). */
  schema: Schema | undefined;
  /** Compiled on the first body: undefined until then, null when nothing binds. */
  binder?: Binder | null;
}

function compileDecoder(op: Operation, binding: BindingContext): NonNullable<OperationStages['decode']> {
  const { mode, schemas, instantiator, maxBytes } = binding;
  const content = op.requestBody?.value.content ?? {};
  const uri = op.requestBody?.uri ?? '';
  const declared = op.consumes;

  // By Content-Type; without one ('') the body is read as the first declared media type.
  const targetFor = boundedMemo((contentType): RequestTarget | null => {
    const type = contentType || declared[0];
    if (type === undefined) return null;
    const kind = kindOf(type, mode);
    if (kind === undefined) return null;
    // The schema of the declared media type the body matches, else of the first declared one of its kind.
    const entry = findDeclaredMediaType(declared, type) ?? declared.find((d) => kindOf(d, mode) === kind) ?? declared[0];
    return { kind, schema: entry === undefined ? undefined : schemas.enter(content[entry]?.schema, uri) };
  });

  return (facts: RequestFacts, ex: Exchange): void => {
    const { raw } = facts;
    const contentType = facts.req.headers['content-type'] || undefined;
    const target = raw === undefined || raw.length === 0 ? null : targetFor(contentType ?? '');
    if (target === null) {
      ex.message.body = rawBodyValue(raw, contentType, facts.text);
      return;
    }
    // The validation stage may have parsed the body already.
    let value = facts.body;
    if (value === undefined) {
      value = target.kind === 'json' ? parseJson(raw!) : parseXml(bodyText(raw!), target.schema, { deref: schemas.deref, maxBytes });
      facts.body = value;
    }
    dropForbiddenKeys(value, raw!);
    if (target.binder === undefined) target.binder = target.schema === undefined ? null : instantiator.binderFor(target.schema);
    ex.message.body = target.binder === null ? value : target.binder(value, 0);
  };
}

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(bodyText(raw));
  } catch {
    throw svcError(Errors.INVALID_JSON);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Responses

const RESPONSE_CODE = HeaderNames.RESPONSE_CODE.toLowerCase();

function compileSerializer(op: Operation, binding: BindingContext): BodySerializer {
  const { mode, schemas } = binding;
  const offers = op.produces.filter((type) => kindOf(type, mode) !== undefined);
  const fallback = offers[0] ?? (mode === 'xml' ? 'application/xml' : 'application/json');
  const schemaFor = compileResponseSchemas(op, schemas);
  // Among the types the client likes equally (`*/*`, or no Accept), the request's own media type comes first.
  const negotiate = compileNegotiator(offers);
  const preferring = new Map(offers.map((offer) => [offer, compileNegotiator([offer, ...offers.filter((o) => o !== offer)])]));

  const responseType = (headers: Headers): string => {
    const contentType = headers.get('content-type');
    const own = typeof contentType === 'string' ? findDeclaredMediaType(offers, contentType) : undefined;
    const accept = headers.get('accept');
    const chosen = (own === undefined ? negotiate : preferring.get(own)!)(typeof accept === 'string' ? accept : undefined);
    return chosen ?? own ?? fallback;
  };

  return (body, ex) => {
    const headers = ex.message.headers;
    // A Content-Type the route set decides the format.
    const type = writtenContentType(headers) ?? responseType(headers);
    if (!isXmlMediaType(type)) return { payload: JSON.stringify(body), type: concrete(type, 'application/json') };
    const schema = schemaFor(headers.get(RESPONSE_CODE), type);
    return { payload: writeXml(body, schema, { deref: schemas.deref, rootName: className(body) }), type: concrete(type, 'application/xml') };
  };
}

function writtenContentType(headers: Headers): string | undefined {
  for (const name of headers.writtenNames()) {
    if (name !== 'content-type') continue;
    const value = headers.get(name);
    return typeof value === 'string' && value !== '' ? value : undefined;
  }
  return undefined;
}

/** A declared wildcard (`application/*`) is no Content-Type to send. */
function concrete(type: string, fallback: string): string {
  return essence(type).includes('*') ? fallback : type;
}

/** A class instance's class name: the XML root name when the schema gives none. */
function className(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const proto = Object.getPrototypeOf(body) as { constructor?: { name?: unknown } } | null;
  if (proto === null || proto === Object.prototype) return undefined;
  const name = proto.constructor?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * The response schema for the status being sent and a media type: the SvcHttpResponseCode response (or its
 * `NXX` range, or `default`); without that header, `200`, else the lowest 2xx, else `default`.
 */
function compileResponseSchemas(op: Operation, schemas: ContractSchemas): (code: unknown, type: string) => Schema | undefined {
  const byCode = responsesByCode(op, (response) => {
    const content = new Map<string, Schema | undefined>();
    for (const [type, media] of Object.entries(response.value.content ?? {})) content.set(type, schemas.enter(media?.schema, response.uri));
    return content;
  });
  const success = successStatus(byCode);
  const unset = success === undefined ? byCode.get('DEFAULT') : responseForStatus(byCode, success);
  return (code, type) => {
    const content = code === undefined || code === null || code === '' ? unset : responseForStatus(byCode, String(code));
    if (content === undefined) return undefined;
    if (content.has(type)) return content.get(type);
    const declared = findDeclaredMediaType([...content.keys()], type) ?? [...content.keys()].find(isXmlMediaType);
    return declared === undefined ? undefined : content.get(declared);
  };
}
