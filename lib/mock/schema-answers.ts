// One declared response answered from its schema (docs/mocking.md, when it has no example): the body per
// media type and the declared response headers. Static answers are made on first use and kept as bytes;
// dynamic ones are generated per request from the caller's seeded source.
import { contractSchemas } from '../schema/deref.js';
import type { Contract } from '../contract/load.js';
import { exampleSample } from '../contract/example-objects.js';
import { resolveContent } from '../contract/media-types.js';
import type { MediaTypeObject, ResponseObject } from '../contract/operations.js';
import type { Located } from '../contract/refs.js';
import { TOKEN } from '../http/fields.js';
import { isJsonMediaType, isXmlMediaType } from '../http/negotiation.js';
import { renderBody, type MockBody } from './render.js';
import type { Random } from './random.js';
import { NOTHING, type Generator, type Synthesizer } from './synthesize.js';

type Json = Record<string, unknown>;

/** Header names the response writer owns; a contract declaring them gets no synthesized value. */
const WRITER_HEADERS = new Set(['content-type', 'content-length', 'transfer-encoding', 'connection']);
const NO_HEADERS: readonly [string, string][] = [];
/** What may go into a header value (node refuses the rest). */
const HEADER_UNSAFE = /[^\t\x20-\x7e\x80-\xff]/g;

export class SynthesizedResponse {
  private readonly content: Record<string, MediaTypeObject>;
  private readonly generators = new Map<string, Generator | null>();
  private readonly staticBodies = new Map<string, MockBody | null>();
  private headerGenerators: [string, Generator][] | undefined;
  private staticHeaders: readonly [string, string][] | undefined;

  constructor(
    private readonly located: Located<ResponseObject>,
    private readonly contract: Contract,
    private readonly synthesizer: Synthesizer,
  ) {
    const content = located.value.content;
    this.content = content && typeof content === 'object' ? content : {};
  }

  /** A body for a declared media type: static (kept) without `random`, fresh with it; undefined if none can be made. */
  body(mediaType: string, random: Random | undefined): MockBody | undefined {
    if (random === undefined) {
      let body = this.staticBodies.get(mediaType);
      if (body === undefined) this.staticBodies.set(mediaType, (body = this.render(mediaType, undefined) ?? null));
      return body ?? undefined;
    }
    return this.render(mediaType, random);
  }

  /** The declared response headers with synthesized values (static ones made once and kept). */
  headers(random: Random | undefined): readonly [string, string][] {
    if (this.headerGenerators === undefined) {
      try {
        this.headerGenerators = this.compileHeaders();
      } catch (err) {
        this.synthesizer.note(`mock: the response headers cannot be synthesized: ${(err as Error).message}`);
        this.headerGenerators = [];
      }
    }
    if (random === undefined) return (this.staticHeaders ??= this.makeHeaders(undefined));
    return this.makeHeaders(random);
  }

  private render(mediaType: string, random: Random | undefined): MockBody | undefined {
    try {
      const gen = this.generator(mediaType);
      if (gen === undefined) return undefined;
      const value = gen({ random, spent: 0 }, 0);
      if (value === NOTHING) return undefined;
      const schemas = contractSchemas(this.contract);
      const schema = schemas.enter(this.content[mediaType]!.schema, this.located.uri);
      return renderBody(value, mediaType, schema, schemas.deref, false);
    } catch (err) {
      // A schema the contract cannot resolve (a `$ref` into nowhere) is no reason to fail the request.
      this.synthesizer.note(`mock: no body can be synthesized for ${mediaType}: ${(err as Error).message}`);
      return undefined;
    }
  }

  private generator(mediaType: string): Generator | undefined {
    let gen = this.generators.get(mediaType);
    if (gen === undefined) {
      const media = this.content[mediaType];
      if (!media || typeof media !== 'object') gen = null;
      else if (media.schema === undefined && !isJsonMediaType(mediaType) && !isXmlMediaType(mediaType)) gen = () => 'string';
      else gen = this.synthesizer.conforming(media.schema, this.located.uri, schemaLabel(media.schema, mediaType));
      this.generators.set(mediaType, gen);
    }
    return gen ?? undefined;
  }

  private compileHeaders(): [string, Generator][] {
    const declared = this.located.value.headers;
    if (!declared || typeof declared !== 'object') return [];
    const out: [string, Generator][] = [];
    for (const [name, raw] of Object.entries(declared)) {
      if (WRITER_HEADERS.has(name.toLowerCase()) || !TOKEN.test(name)) continue;
      const header = this.contract.refs.deref<Json | null>(raw, this.located.uri);
      if (!header.value || typeof header.value !== 'object') continue;
      const content = resolveContent(this.contract, header.value.content as Record<string, MediaTypeObject> | undefined, header.uri);
      const media = content ? Object.values(content)[0] : undefined;
      const schema = header.value.schema ?? media?.schema;
      const synthesized = this.synthesizer.generator(schema ?? { type: 'string' }, header.uri);
      // The header's own example (or its media type's) is the static value; dynamic mode still synthesizes.
      const example = this.headerExample(header.value, header.uri) ?? (media ? this.headerExample(media, header.uri) : undefined);
      out.push([name, example === undefined ? synthesized : (g, depth) => (g.random === undefined ? example : synthesized(g, depth))]);
    }
    return out;
  }

  /** `example`, else the first `examples` entry's serialized text or data (an Example Object may be a `$ref`). */
  private headerExample(holder: Json, uri: string): unknown {
    if (holder.example !== undefined) return holder.example;
    const examples = holder.examples;
    if (!examples || typeof examples !== 'object') return undefined;
    for (const entry of Object.values(examples)) {
      const sample = exampleSample(this.contract.refs.deref(entry, uri).value);
      if (sample !== undefined) return 'serialized' in sample ? sample.serialized : sample.data;
    }
    return undefined;
  }

  private makeHeaders(random: Random | undefined): readonly [string, string][] {
    if (this.headerGenerators!.length === 0) return NO_HEADERS;
    const out: [string, string][] = [];
    for (const [name, gen] of this.headerGenerators!) {
      let value: unknown;
      try {
        value = gen({ random, spent: 0 }, 1);
      } catch (err) {
        this.synthesizer.note(`mock: no value can be synthesized for header ${name}: ${(err as Error).message}`);
        continue;
      }
      if (value !== NOTHING && value !== null && value !== undefined) out.push([name, headerText(value)]);
    }
    return out;
  }
}

/** A value written as a header (simple style: arrays and objects comma-separated). */
function headerText(value: unknown): string {
  let text: string;
  if (Array.isArray(value)) text = value.map(String).join(',');
  else if (typeof value === 'object') text = Object.entries(value as Json).flat().map(String).join(',');
  else text = String(value);
  return text.replace(HEADER_UNSAFE, '');
}

/** How the log names a response schema: its `$ref`, else as the inline schema of its media type. */
function schemaLabel(schema: unknown, mediaType: string): string {
  const ref = schema !== null && typeof schema === 'object' ? (schema as Json).$ref : undefined;
  return typeof ref === 'string' ? `the schema ${ref} (${mediaType} response)` : `the inline ${mediaType} response schema`;
}
