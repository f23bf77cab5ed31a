// Request bodies parsed by their media type and checked against the schema declared for it: JSON,
// `application/x-www-form-urlencoded`, `multipart/form-data`, XML (through the codec) and `text/*`. Other
// media types (octet-stream, images, ...) are only checked for presence and Content-Type.
import type { Contract } from '../contract/load.js';
import type { MediaTypeObject, Operation } from '../contract/operations.js';
import { contractSchemas } from './deref.js';
import { parseXml } from '../codec/xml.js';
import { SvcError } from '../util/errors.js';
import { bodyText } from '../http/body.js';
import { FormLimitError, nestPairs } from '../codec/bracket-keys.js';
import { essence, isJsonMediaType, isXmlMediaType } from '../http/negotiation.js';
import { setOwn } from '../util/objects.js';
import { shapeOf, typedNested, type ValueShape } from './coerce.js';
import { boundaryOf, MultipartError, parseMultipart, type Part } from '../codec/multipart.js';
import { parseQuery, type Pairs } from '../http/query.js';
import { fromPairs } from '../parameters/parameters.js';
import { reportPosingFormNames } from '../parameters/form-names.js';
import type { Direction, SchemaCheck, SchemaCompiler } from './compiler.js';
import { pointerOf, type Violations } from '../message/violations.js';

export type BodyKind = 'json' | 'form' | 'multipart' | 'xml' | 'text' | 'opaque';

/** The kinds a MediaCheck's parse reads as text; the others are never decoded. */
export const TEXT_KINDS: ReadonlySet<BodyKind> = new Set<BodyKind>(['json', 'xml', 'form', 'text']);

/** A file field of a multipart body, as `facts.body` carries it. */
export interface MultipartFile {
  filename: string | undefined;
  contentType: string | undefined;
  data: Buffer;
}

export function bodyKind(mediaType: string): BodyKind {
  const type = essence(mediaType);
  if (isJsonMediaType(type)) return 'json';
  if (isXmlMediaType(type)) return 'xml';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  if (type.startsWith('multipart/')) return 'multipart';
  if (type.startsWith('text/')) return 'text';
  return 'opaque';
}

/** What the body checks of one facade share. */
export interface BodyContext {
  contract: Contract;
  compiler: SchemaCompiler;
  maxBodySize: number;
}

/** A media type's `encoding` map (only style and explode are read). */
export type Encoding = Record<string, { style?: unknown; explode?: unknown } | undefined>;

/** The checks for one declared media type; its schema is compiled on first use. */
export interface MediaCheck {
  /**
   * Parses a body sent as `contentType` and checks it. Returns the parsed value, or undefined when it could
   * not be parsed (a violation says why) or its kind is not parsed at all.
   */
  parse(raw: Buffer, contentType: string, kind: BodyKind, out: Violations, text?: string): unknown;
  /** Checks a value that is already parsed (a route's response object). */
  validate(value: unknown, out: Violations): void;
}

export function compileMediaCheck(
  op: Operation,
  declared: string,
  direction: Direction,
  located: { value: MediaTypeObject | undefined; uri: string },
  ctx: BodyContext,
): MediaCheck {
  const schema = located.value?.schema;
  const { uri } = located;
  const { contract, compiler } = ctx;
  const encoding = (located.value?.encoding ?? {}) as Encoding;
  let check: SchemaCheck | undefined | null = schema === undefined ? null : undefined;
  const validate = (value: unknown, out: Violations): void => {
    // null: nothing to check (no schema, or it could not be compiled); undefined: not compiled yet.
    if (check === undefined) check = compiler.compile(`${op.method} ${op.path} ${direction} ${declared}`, (convert) => convert(schema, uri, direction)) ?? null;
    let errors;
    try {
      errors = check?.(value);
    } catch (err) {
      // A recursive schema walks as deep as the value nests; past the stack that is a client error.
      if (!(err instanceof RangeError)) throw err;
      out.add('schema', 'body', '', '', 'nests too deeply to be checked');
      return;
    }
    if (errors) out.addSchemaErrors(errors, (segments) => ({ in: 'body', name: segments[segments.length - 1] ?? '', pointer: pointerOf(segments) }));
  };
  const shape = (): ValueShape => shapeOf(schema, uri, contract.refs);
  /** The fields of a form or multipart body; undefined past the limits (a violation says which). */
  const formFields = (pairs: Pairs, multipart: boolean, out: Violations): Record<string, unknown> | undefined => {
    reportPosingFormNames(pairs, shape().propertyNames, out);
    try {
      return formObject(pairs, shape(), encoding, multipart);
    } catch (err) {
      if (!(err instanceof FormLimitError)) throw err;
      out.add('schema', 'body', err.field, '', err.message);
      return undefined;
    }
  };

  /** `text`: the body already decoded as UTF-8 (the request's, decoded once for validation and the route). */
  const parse = (raw: Buffer, kind: BodyKind, out: Violations, text: string | undefined): unknown => {
    // Only the kinds read as text decode it (an opaque body may be megabytes that nothing reads as text).
    switch (kind) {
      case 'json':
        try {
          return JSON.parse(bodyText(raw, text));
        } catch (err) {
          out.add('json', 'body', '', '', (err as Error).message);
          return undefined;
        }
      case 'xml':
        try {
          const schemas = contractSchemas(contract); // cached per contract
          return parseXml(bodyText(raw, text), schemas.enter(schema, uri), { deref: schemas.deref, maxBytes: ctx.maxBodySize });
        } catch (err) {
          if (!(err instanceof SvcError)) throw err;
          out.add('xml', 'body', '', '', 'is not well-formed XML');
          return undefined;
        }
      case 'form':
        return formFields(parseQuery(bodyText(raw, text)), false, out);
      case 'text':
        return shape().scalar(bodyText(raw, text));
      case 'multipart':
      case 'opaque':
        return undefined;
    }
  };

  return {
    parse(raw, contentType, kind, out, text) {
      if (kind === 'multipart') {
        const parts = multipartParts(raw, contentType, out);
        if (parts === undefined) return undefined;
        const texts = parts.filter((p) => p.filename === undefined).map((p) => [p.name, p.data.toString('utf8')] as const);
        const fields = formFields(texts, true, out);
        if (fields === undefined) return undefined;
        // Files are checked as (latin1) strings, so `format: binary` and `maxLength` (bytes) apply.
        validate(withFiles(fields, parts, shape(), (p) => p.data.toString('latin1')), out);
        return withFiles(fields, parts, shape(), (p): MultipartFile => ({ filename: p.filename, contentType: p.contentType, data: p.data }));
      }
      const errorsBefore = out.size;
      const value = parse(raw, kind, out, text);
      if (value === undefined || out.size > errorsBefore) return undefined;
      validate(value, out);
      return value;
    },
    validate,
  };
}

function multipartParts(raw: Buffer, contentType: string, out: Violations): Part[] | undefined {
  try {
    const boundary = boundaryOf(contentType);
    if (boundary === undefined) {
      out.add('schema', 'body', '', '', 'the multipart Content-Type has no boundary');
      return undefined;
    }
    return parseMultipart(raw, boundary);
  } catch (err) {
    if (!(err instanceof MultipartError)) throw err;
    out.add('schema', 'body', '', '', `is not a valid multipart body: ${err.message}`);
    return undefined;
  }
}

/**
 * Form fields as an object. Names with brackets nest as qs nests them (lib/codec/bracket-keys.ts:
 * `shipping[address][line1]`, `expand[]`, `items[0][price]`; deepObject is this at any depth), and every
 * value is typed by the schema at its place. A property the media type's `encoding` gives another style, or
 * an explode, is read as that style says when it is sent that way, as query parameters are (`tags=a,b` with
 * explode false). Nothing is dropped: fields the schema does not
 * declare, and plain values where it wants an object, are kept for the schema check to report.
 * In multipart bodies an object property sent as one plain part is JSON (its default content type).
 * Throws FormLimitError past the limits of bracket-keys.ts.
 */
export function formObject(pairs: Pairs, shape: ValueShape, encoding: Encoding, multipart: boolean): Record<string, unknown> {
  const nested = nestPairs(pairs);
  const out: Record<string, unknown> = {};
  /** Fields an encoded object property took from the top level (`R=100&G=200`). */
  const taken = new Set<string>();
  const declared = new Set(shape.propertyNames);
  for (const name of shape.propertyNames) {
    const enc = encoding[name];
    // deepObject is what the brackets say, at any depth.
    if (enc === undefined || (enc.style === undefined && enc.explode === undefined) || enc.style === 'deepObject') continue;
    const style = typeof enc.style === 'string' ? enc.style : 'form';
    const explode = typeof enc.explode === 'boolean' ? enc.explode : style === 'form';
    const prop = shape.property(name);
    const value = fromPairs(pairs, name, style, explode, prop, declared);
    if (value === undefined) continue;
    setOwn(out, name, value);
    if (prop.kind === 'object' && explode && value !== null && typeof value === 'object') for (const k of Object.keys(value)) taken.add(k);
  }
  for (const [name, value] of Object.entries(nested)) {
    if (Object.hasOwn(out, name) || taken.has(name)) continue;
    const prop = shape.property(name);
    setOwn(out, name, multipart && prop.kind === 'object' && typeof value === 'string' ? jsonOrText(value) : typedNested(value, prop));
  }
  return out;
}

function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text; // the schema check reports it is not an object
  }
}

/** The fields plus the file parts, each file as `fileValue` gives it (an array when repeated or declared so). */
function withFiles(fields: Record<string, unknown>, parts: Part[], shape: ValueShape, fileValue: (part: Part) => unknown): Record<string, unknown> {
  const files = parts.filter((p) => p.filename !== undefined);
  if (files.length === 0) return fields;
  const out: Record<string, unknown> = { ...fields };
  for (const name of new Set(files.map((p) => p.name))) {
    const values = files.filter((p) => p.name === name).map(fileValue);
    setOwn(out, name, values.length > 1 || shape.property(name).kind === 'array' ? values : values[0]);
  }
  return out;
}
