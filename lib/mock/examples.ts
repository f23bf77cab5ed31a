// Examples from the contract as mock bodies (docs/mocking.md): which response, which media type, which
// example; each rendered once (JSON text or XML via the codec) and kept as bytes.
import { responseForStatus, responsesByCode, successStatus } from '../contract/responses.js';
import type { Schema } from '../codec/xml.js';
import type { Contract } from '../contract/load.js';
import type { MediaTypeObject, Operation, ResponseObject } from '../contract/operations.js';
import type { Located } from '../contract/refs.js';
import { compileRanker, findDeclaredMediaType } from '../http/negotiation.js';
import { boundedMemo } from '../util/memo.js';
import { exampleSample, type ExampleSample } from '../contract/example-objects.js';
import { renderBody, serializedBody, type MockBody } from './render.js';
import { SynthesizedResponse } from './schema-answers.js';
import type { Synthesizer } from './synthesize.js';

export type { MockBody } from './render.js';

/** A declared response picked for a request, and the status to answer with. */
export interface ChosenResponse {
  response: ResponseExamples;
  status: number;
}

export interface OperationExamples {
  /** Response `200`, else the lowest 2xx, else `default` (status 200), else the lowest declared code. */
  primary: ChosenResponse | undefined;
  /** The response declared for a status (`404`, or a `4XX` range), for `Prefer: code=`. */
  forStatus(code: string): ChosenResponse | undefined;
}

export function compileExamples(op: Operation, contract: Contract, synthesizer: Synthesizer): OperationExamples {
  const byCode = responsesByCode(op, (located) => new ResponseExamples(located, contract, synthesizer));
  const forStatus = (code: string): ChosenResponse | undefined => {
    if (!/^[1-5]\d\d$/.test(code)) return undefined;
    // `Prefer: code=` picks only what is declared for that status: `default` does not count.
    const response = responseForStatus(byCode, code, false);
    return response && { response, status: Number(code) };
  };
  const primaryCode = successStatus(byCode);
  const fallback = byCode.get('DEFAULT');
  // Without a success or `default` response (a download answering only `302`), the lowest declared code:
  // the mock never answers with a status the operation does not declare.
  const lowest = [...byCode.keys()].filter((c) => /^[1-5]\d\d$/.test(c)).sort()[0];
  const primary = primaryCode !== undefined ? forStatus(primaryCode) : fallback ? { response: fallback, status: 200 } : lowest !== undefined ? forStatus(lowest) : undefined;
  return { primary, forStatus };
}

/** One declared response: its media types and their examples, rendered on first use, and its synthesized answer. */
export class ResponseExamples {
  /** The body and headers made from the schemas, when there is no example (or dynamic mode asks). */
  readonly synthesized: SynthesizedResponse;
  private readonly content: Record<string, MediaTypeObject>;
  private readonly types: string[];
  private readonly rank: (accept: string | undefined) => readonly string[];
  /** Without Accept: the declared type the request's Content-Type matches first, then the others. */
  private readonly byContentType: (contentType: string) => readonly string[];
  /** Rendered examples by media type, then by example name (undefined = the default one); null = none. */
  private readonly rendered = new Map<string, Map<string | undefined, MockBody | null>>();

  constructor(
    readonly located: Located<ResponseObject>,
    private readonly contract: Contract,
    synthesizer: Synthesizer,
  ) {
    const content = located.value.content;
    this.content = content && typeof content === 'object' ? content : {};
    this.synthesized = new SynthesizedResponse(located, contract, synthesizer);
    this.types = Object.keys(this.content);
    this.rank = compileRanker(this.types);
    this.byContentType = boundedMemo((contentType) => {
      const own = findDeclaredMediaType(this.types, contentType);
      return own === undefined ? this.types : [own, ...this.types.filter((t) => t !== own)];
    });
  }

  /** True when the response declares a body (some media type under `content`). */
  get declaresContent(): boolean {
    return this.types.length > 0;
  }

  /**
   * The declared media types the answer may be in, most preferred first: by `Accept` (q-values, wildcards;
   * empty when nothing declared is acceptable); without `Accept`, the one the request's Content-Type
   * matches, then the declared order. The mock answers in the first one it can make a body in.
   */
  mediaTypes(accept: string | undefined, contentType: string | undefined): readonly string[] {
    if ((accept === undefined || accept === '') && contentType !== undefined) return this.byContentType(contentType);
    return this.rank(accept);
  }

  /**
   * The named example when `name` is an entry of `examples` with a value, else the first example;
   * undefined when there is none, or it cannot be written in `mediaType`.
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
    const sample = name !== undefined ? this.exampleSampleOf(examplesOf(media)[name], uri) : this.firstSample(media, uri);
    if (sample === undefined) return null;
    // A `serializedValue` is the body exactly as it goes on the wire (3.2).
    // undefined (null here): the example cannot be written in this media type.
    const body = 'serialized' in sample ? serializedBody(sample.serialized, mediaType) : renderBody(sample.data, mediaType, media.schema, (schema) => this.contract.refs.deref<Schema>(schema, uri).value);
    return body ?? null;
  }

  /** `example`, else the first entry of `examples` with something to send, else the schema's own `example`. */
  private firstSample(media: MediaTypeObject, uri: string): ExampleSample | undefined {
    if (media.example !== undefined) return { data: media.example };
    for (const entry of Object.values(examplesOf(media))) {
      const sample = this.exampleSampleOf(entry, uri);
      if (sample !== undefined) return sample;
    }
    if (media.schema === undefined) return undefined;
    const schema = this.contract.refs.deref<Record<string, unknown> | null>(media.schema, uri).value;
    if (!schema || typeof schema !== 'object') return undefined;
    if (schema.example !== undefined) return { data: schema.example };
    // JSON Schema 2020-12 (OpenAPI 3.1) spells it `examples: [...]`.
    return Array.isArray(schema.examples) && schema.examples.length > 0 ? { data: schema.examples[0] } : undefined;
  }

  /** What an Example Object (which may be a `$ref`) offers; `externalValue` is never fetched. */
  private exampleSampleOf(entry: unknown, uri: string): ExampleSample | undefined {
    return exampleSample(this.contract.refs.deref(entry, uri).value);
  }
}

function examplesOf(media: MediaTypeObject | undefined): Record<string, unknown> {
  const examples = media?.examples;
  return examples && typeof examples === 'object' ? examples : {};
}
