// Examples from the contract as mock bodies (SPEC §7 step 2): which response, which media type, which
// example; each rendered once (JSON text or XML via the codec) and kept as bytes.
import { responseForStatus, responsesByCode, successStatus } from '../contract/responses.js';
import { writeXml, type Schema } from '../binding/xml.js';
import type { Contract } from '../contract/load.js';
import type { MediaTypeObject, Operation, ResponseObject } from '../contract/operations.js';
import type { Located } from '../contract/refs.js';
import { compileNegotiator, findDeclaredMediaType, isJsonMediaType, isXmlMediaType } from '../http/negotiation.js';

/**
 * A ready response body and its Content-Type. Text stays a string where it is lossless: node writes a
 * string body together with the headers in one write, a Buffer in a second one.
 */
export interface MockBody {
  payload: string | Buffer;
  type: string;
}

/** A declared response picked for a request, and the status to answer with. */
export interface ChosenResponse {
  response: ResponseExamples;
  status: number;
}

export interface OperationExamples {
  /** Response `200`, else the lowest 2xx, else `default` (status 200); undefined if none is declared. */
  primary: ChosenResponse | undefined;
  /** The response declared for a status (`404`, or a `4XX` range), for `Prefer: code=`. */
  forStatus(code: string): ChosenResponse | undefined;
}

export function compileExamples(op: Operation, contract: Contract): OperationExamples {
  const byCode = responsesByCode(op, (located) => new ResponseExamples(located, contract));
  const forStatus = (code: string): ChosenResponse | undefined => {
    if (!/^[1-5]\d\d$/.test(code)) return undefined;
    // `Prefer: code=` picks only what is declared for that status: `default` does not count.
    const response = responseForStatus(byCode, code, false);
    return response && { response, status: Number(code) };
  };
  const primaryCode = successStatus(byCode);
  const fallback = byCode.get('DEFAULT');
  const primary = primaryCode !== undefined ? forStatus(primaryCode) : fallback && { response: fallback, status: 200 };
  return { primary, forStatus };
}

/** One declared response: its media types and their examples, rendered on first use. */
export class ResponseExamples {
  private readonly content: Record<string, MediaTypeObject>;
  private readonly types: string[];
  private readonly negotiate: (accept: string | undefined) => string | undefined;
  /** Rendered examples by media type, then by example name (undefined = the default one); null = none. */
  private readonly rendered = new Map<string, Map<string | undefined, MockBody | null>>();

  constructor(
    private readonly located: Located<ResponseObject>,
    private readonly contract: Contract,
  ) {
    const content = located.value.content;
    this.content = content && typeof content === 'object' ? content : {};
    this.types = Object.keys(this.content);
    this.negotiate = compileNegotiator(this.types);
  }

  /**
   * The declared media type to answer in: negotiated from `Accept` (q-values, wildcards; undefined when
   * nothing declared is acceptable); without `Accept`, the request's Content-Type if declared, else the first.
   */
  mediaType(accept: string | undefined, contentType: string | undefined): string | undefined {
    if ((accept === undefined || accept === '') && contentType !== undefined) {
      return findDeclaredMediaType(this.types, contentType) ?? this.types[0];
    }
    return this.negotiate(accept);
  }

  /**
   * The named example when `name` is an entry of `examples` with a value, else the first example;
   * undefined when there is none.
   */
  example(mediaType: string, name: string | undefined): MockBody | undefined {
    let byName = this.rendered.get(mediaType);
    if (byName === undefined) this.rendered.set(mediaType, (byName = new Map()));
    const media = this.content[mediaType];
    const named = name !== undefined && Object.hasOwn(examplesOf(media), name) ? this.cached(byName, media!, mediaType, name) : null;
    return named ?? this.cached(byName, media, mediaType, undefined) ?? undefined;
  }

  private cached(byName: Map<string | undefined, MockBody | null>, media: MediaTypeObject | undefined, mediaType: string, name: string | undefined): MockBody | null {
    let body = byName.get(name);
    if (body === undefined) {
      body = media && typeof media === 'object' ? this.render(media, mediaType, name) : null;
      byName.set(name, body);
    }
    return body;
  }

  private render(media: MediaTypeObject, mediaType: string, name: string | undefined): MockBody | null {
    const uri = this.located.uri;
    const value = name !== undefined ? this.exampleValue(examplesOf(media)[name], uri) : this.firstExample(media, uri);
    if (value === NONE) return null;
    return renderBody(value, mediaType, media.schema, (schema) => this.contract.refs.deref<Schema>(schema, uri).value);
  }

  /** `example`, else the first entry of `examples` with a `value`, else the schema's own `example`. */
  private firstExample(media: MediaTypeObject, uri: string): unknown {
    if (media.example !== undefined) return media.example;
    for (const entry of Object.values(examplesOf(media))) {
      const value = this.exampleValue(entry, uri);
      if (value !== NONE) return value;
    }
    if (media.schema === undefined) return NONE;
    const schema = this.contract.refs.deref<Record<string, unknown> | null>(media.schema, uri).value;
    if (!schema || typeof schema !== 'object') return NONE;
    if (schema.example !== undefined) return schema.example;
    // JSON Schema 2020-12 (OpenAPI 3.1) spells it `examples: [...]`.
    return Array.isArray(schema.examples) && schema.examples.length > 0 ? schema.examples[0] : NONE;
  }

  /** An Example Object's `value` (the object may be a `$ref`); `externalValue` is never fetched. */
  private exampleValue(entry: unknown, uri: string): unknown {
    const example = this.contract.refs.deref<Record<string, unknown> | null>(entry, uri).value;
    return example && typeof example === 'object' && Object.hasOwn(example, 'value') ? example.value : NONE;
  }
}

function examplesOf(media: MediaTypeObject | undefined): Record<string, unknown> {
  const examples = media?.examples;
  return examples && typeof examples === 'object' ? examples : {};
}

/** Marks "no example" (an example may legitimately be `null`). */
const NONE: unique symbol = Symbol('no example');

/** XML media types get the codec (strings are taken as ready XML); JSON types JSON text; others text as is. */
function renderBody(value: unknown, mediaType: string, schema: unknown, deref: (schema: Schema) => Schema): MockBody {
  let text: string;
  if (typeof value === 'string' && !isJsonMediaType(mediaType)) text = value;
  else if (isXmlMediaType(mediaType)) text = writeXml(value, schema as Schema | undefined, { deref });
  else text = JSON.stringify(value);
  // A wildcard range (`*/*`, `application/*`) is no Content-Type; name what was actually produced.
  const type = mediaType.includes('*') ? (typeof value === 'string' ? 'text/plain; charset=utf-8' : 'application/json') : mediaType;
  return { payload: text, type };
}
