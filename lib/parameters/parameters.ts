// Parameters deserialized per `style`/`explode` (OpenAPI 3.x "Style Values"), coerced from strings by their
// schemas, then checked together against one compiled schema per operation:
// `{path: {...}, query: {...}, header: {...}, cookie: {...}}`.
//
//   style           explode  array                         object
//   form            false    id=3,4,5                      id=R,100,G,200
//   form            true     id=3&id=4&id=5                R=100&G=200
//   spaceDelimited  false    id=3%204%205                  id=R%20100%20G%20200
//   pipeDelimited   false    id=3|4|5                      id=R|100|G|200
//   deepObject      true     -                             id[R]=100&id[G]=200
//   simple          any      3,4,5                         R,100,G,200 / R=100,G=200
//   label           false    .3,4,5 (or .3.4.5)            .R,100,G,200
//   label           true     .3.4.5                        .R=100.G=200
//   matrix          false    ;id=3,4,5                     ;id=R,100,G,200
//   matrix          true     ;id=3;id=4;id=5               ;R=100;G=200
import type { Operation, Parameter } from '../contract/operations.js';
import type { RefResolver } from '../contract/refs.js';
import type { ParameterValues, RequestFacts } from '../message/stages.js';
import { pathParam } from '../message/request-facts.js';
import { isJsonMediaType } from '../http/negotiation.js';
import type { Pairs } from '../http/query.js';
import { percentDecoded } from '../http/percent.js';
import { setOwn } from '../util/objects.js';
import { shapeOf, typedNested, type ValueShape } from '../schema/coerce.js';
import { FormLimitError, nestPairs } from '../codec/bracket-keys.js';
import { compileSimpleParameterCheck, compileSimpleParameterValues } from './fast-path.js';
import { PosingQueryNames } from './query-names.js';
import type { SchemaCheck, SchemaCompiler } from '../schema/compiler.js';
import { pointerOf, type Violations } from '../message/violations.js';

export function parseCookies(header: string | undefined): Pairs {
  if (!header) return [];
  const pairs: [string, string][] = [];
  for (const piece of header.split(';')) {
    const eq = piece.indexOf('=');
    if (eq === -1) continue;
    const value = piece.slice(eq + 1).trim();
    pairs.push([piece.slice(0, eq).trim(), percentDecoded(value) ?? value]);
  }
  return pairs;
}

const DELIMITERS: Record<string, string> = { form: ',', spaceDelimited: ' ', pipeDelimited: '|' };

/**
 * One value from pairs (query, cookies, form fields) per style and explode; undefined when absent.
 * `others` are names that belong to something else (other parameters), for exploded free-form objects.
 */
export function fromPairs(pairs: Pairs, name: string, style: string, explode: boolean, shape: ValueShape, others: ReadonlySet<string>): unknown {
  if (style === 'deepObject') {
    // Brackets nest at any depth, as in form bodies (`filter[price][min]=1`, `expand[0]=a`, `expand[]=a`).
    // The plain name is read too: an array may repeat it (`expand=a&expand=b`), an anyOf may take a scalar
    // (`created=1600000000`), and anything else is kept for the schema check to report.
    const prefix = `${name}[`;
    const entries = pairs.filter(([k]) => k === name || k.startsWith(prefix));
    if (entries.length === 0) return undefined;
    let nested;
    try {
      nested = nestPairs(entries);
    } catch (err) {
      if (!(err instanceof FormLimitError)) throw err;
      return new Unreadable(err.detail);
    }
    if (Object.hasOwn(nested, name)) return typedNested(nested[name], shape);
    return new Unreadable(`is not deepObject-style (${entries[0]![0]})`);
  }
  if (shape.kind === 'object') {
    if (explode) {
      // Names that belong to another parameter (or form field) stay theirs.
      const entries = pairs.filter(([k]) => !others.has(k) && k !== name && (shape.openEnded || shape.propertyNames.includes(k)));
      return entries.length === 0 ? undefined : objectOf(entries, shape);
    }
  }
  // Per request: the usual single value is found without building arrays.
  let first: string | undefined;
  let repeated: string[] | undefined;
  for (const [k, v] of pairs) {
    if (k !== name) continue;
    if (first === undefined) first = v;
    else (repeated ??= [first]).push(v);
  }
  if (first === undefined) return undefined;
  const delimiter = DELIMITERS[style] ?? ',';
  if (shape.kind === 'array') {
    const items = explode ? (repeated ?? [first]) : first.split(delimiter);
    return items.map((v) => shape.item().scalar(v));
  }
  if (shape.kind === 'object') return objectOf(alternating(first.split(delimiter)), shape);
  // Repeated primitive: keep every value, so the schema check reports the array rather than dropping data.
  return repeated === undefined ? shape.scalar(first) : repeated.map((v) => shape.scalar(v));
}

/** A value that cannot be read as its style or content type says; reported as it is. */
export class Unreadable {
  constructor(readonly message: string) {}
}

/**
 * One value from a single string (path segments, headers) per style and explode. Label values are split
 * on dots when exploded (or when they have no commas), so their items cannot themselves contain dots.
 */
export function fromString(text: string, name: string, style: string, explode: boolean, shape: ValueShape): unknown {
  let body = text;
  let separator = ',';
  if (style === 'label') {
    if (!text.startsWith('.')) return new Unreadable('is not label-style (it must start with ".")');
    body = text.slice(1);
    separator = explode || !body.includes(',') ? '.' : ',';
  } else if (style === 'matrix') {
    if (!text.startsWith(';')) return new Unreadable('is not matrix-style (it must start with ";")');
    return fromMatrix(text, name, explode, shape);
  }
  if (shape.kind === 'primitive') return shape.scalar(body);
  const pieces = body === '' ? [] : body.split(separator).map((p) => p.trim());
  if (shape.kind === 'array') return pieces.map((v) => shape.item().scalar(v));
  return objectOf(explode ? pieces.map(splitAssignment) : alternating(pieces), shape);
}

function fromMatrix(text: string, name: string, explode: boolean, shape: ValueShape): unknown {
  const assignments = text.split(';').filter((s) => s !== '').map(splitAssignment);
  if (shape.kind === 'object' && explode) return objectOf(assignments, shape);
  const own = assignments.filter(([k]) => k === name).map(([, v]) => v);
  if (shape.kind === 'array') {
    const items = explode ? own : (own[0] ?? '').split(',');
    return items.filter((v, i) => v !== '' || i > 0).map((v) => shape.item().scalar(v));
  }
  if (shape.kind === 'object') return objectOf(alternating((own[0] ?? '').split(',')), shape);
  return shape.scalar(own[0] ?? '');
}

function splitAssignment(piece: string): readonly [string, string] {
  const eq = piece.indexOf('=');
  return eq === -1 ? [piece, ''] : [piece.slice(0, eq), piece.slice(eq + 1)];
}

/** `[k1, v1, k2, v2]` → pairs (a missing last value is empty). */
function alternating(pieces: string[]): (readonly [string, string])[] {
  const out: (readonly [string, string])[] = [];
  for (let i = 0; i < pieces.length; i += 2) out.push([pieces[i]!, pieces[i + 1] ?? '']);
  return out;
}

/** Builds an object from untrusted key/value pairs; repeated keys become arrays, values typed by property. */
export function objectOf(entries: readonly (readonly [string, string])[], shape: ValueShape): Record<string, unknown> {
  const grouped = new Map<string, string[]>();
  for (const [k, v] of entries) {
    const list = grouped.get(k);
    if (list) list.push(v);
    else grouped.set(k, [v]);
  }
  const out: Record<string, unknown> = {};
  for (const [k, values] of grouped) {
    const prop = shape.property(k);
    const value = prop.kind === 'array' ? values.map((v) => prop.item().scalar(v)) : values.length === 1 ? prop.scalar(values[0]!) : values.map((v) => prop.scalar(v));
    setOwn(out, k, value);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// The operation's parameter check

interface Reader {
  param: Parameter;
  read(facts: RequestFacts, sources: Sources): unknown;
}

/** Cookies are parsed at most once per request, and only when a parameter needs them; the query was parsed by the runtime. */
class Sources {
  private cookiePairs: Pairs | undefined;

  constructor(private readonly facts: RequestFacts) {}

  get query(): Pairs {
    return this.facts.queryPairs;
  }

  get cookies(): Pairs {
    return (this.cookiePairs ??= parseCookies(this.facts.req.headers.cookie));
  }
}

const IN = ['path', 'query', 'header', 'cookie'] as const;
/** Header parameters OpenAPI says to ignore: Content-Type and Accept are the media types, Authorization security's. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** A header parameter OpenAPI says to ignore (the check, the typed view and the generated types skip it). */
export function isIgnoredHeaderParameter(p: Parameter): boolean {
  return p.in === 'header' && IGNORED_HEADERS.has(p.name.toLowerCase());
}

/** The operation's parameters the check reads (all but the ignored header parameters). */
function checkedParameters(op: Operation): Parameter[] {
  return op.parameters.filter((p) => !isIgnoredHeaderParameter(p));
}

/** The parameter check of one operation, compiled on its first request; undefined without parameters. */
export function compileParameterCheck(op: Operation, compiler: SchemaCompiler, refs: RefResolver): ((facts: RequestFacts, out: Violations) => void) | undefined {
  const params = checkedParameters(op);
  if (params.length === 0) return undefined;
  let compiled: { readers: Reader[]; check: SchemaCheck | undefined } | undefined;
  const compile = (): NonNullable<typeof compiled> => {
    const readers = params.map((p) => readerFor(p, params, refs));
    const check = compiler.compile(`${op.method} ${op.path} parameters`, (convert) => {
      const properties: Record<string, { type: 'object'; properties: Record<string, unknown> }> = {};
      for (const where of IN) properties[where] = { type: 'object', properties: {} };
      for (const p of params) setOwn(properties[locationOf(p)]!.properties, p.name, p.schema === undefined ? {} : convert(p.schema, p.uri, 'request'));
      return { type: 'object', properties };
    });
    return { readers, check };
  };

  const certainlyValid = compileSimpleParameterCheck(params);

  // Known valid from their text alone: typed from it only if a route reads its headers.
  const readValid = certainlyValid === undefined ? undefined : compileSimpleParameterValues(params);
  const posing = PosingQueryNames.of(op.parameters);

  return (facts, out) => {
    // Refused even when every declared value is fine: `?status=sold&Status=evil` would hand on `evil` unchecked.
    if (posing !== undefined) posing.report(facts.queryPairs, out);
    if (certainlyValid?.(facts) === true) {
      facts.parameters = readValid!;
      return;
    }
    compiled ??= compile();
    const values = readValues(compiled.readers, facts, out);
    const errors = compiled.check?.(values);
    if (errors) {
      out.addSchemaErrors(errors, ([where = 'query', name = '', ...rest]) => ({ in: where as Location, name, pointer: pointerOf(rest) }));
    }
    facts.parameters = values;
  };
}

type Location = (typeof IN)[number];

/** Where a parameter's violations are reported: a `querystring` parameter is the query (it has it to itself). */
function locationOf(param: Parameter): Location {
  return param.in === 'querystring' ? 'query' : param.in;
}

function readerFor(param: Parameter, params: readonly Parameter[], refs: RefResolver): Reader {
  const shape = shapeOf(param.schema, param.uri, refs);
  const { name, style, explode } = param;
  const parseContent = param.contentType !== undefined && isJsonMediaType(param.contentType);
  /** A single string (path segment, header, or a `content` parameter's value) typed. */
  const typed = (text: string | undefined): unknown => {
    if (text === undefined) return undefined;
    if (!parseContent) return fromString(text, name, style, explode, shape);
    try {
      return JSON.parse(text);
    } catch {
      return new Unreadable(`is not valid ${param.contentType}`);
    }
  };
  switch (param.in) {
    case 'path':
      return { param, read: (facts) => typed(pathParam(facts, name)) };
    case 'header': {
      const key = name.toLowerCase();
      return {
        param,
        read(facts) {
          const header = facts.req.headers[key];
          return typed(Array.isArray(header) ? header.join(', ') : header);
        },
      };
    }
    case 'querystring':
      // Read by the runtime, once, for the route as much as for this check.
      return { param, read: (facts) => facts.querystring };
    case 'query':
    case 'cookie': {
      const others = new Set(params.filter((p) => p !== param && p.in === param.in).map((p) => p.name));
      const pairsOf = (sources: Sources): Pairs => (param.in === 'query' ? sources.query : sources.cookies);
      if (parseContent) return { param, read: (_facts, sources) => typed(pairsOf(sources).find(([k]) => k === name)?.[1]) };
      return { param, read: (_facts, sources) => fromPairs(pairsOf(sources), name, style, explode, shape, others) };
    }
  }
}

/**
 * The operation's parameters read and typed from a request exactly as the check reads them, without
 * checking (typed routes, lib/routes/typed-runtime.ts, show them to a route after the check passed). An absent or
 * unreadable value is left out.
 */
export function compileParameterValues(op: Operation, refs: RefResolver): (facts: RequestFacts) => ParameterValues {
  const params = checkedParameters(op);
  let readers: Reader[] | undefined;
  return (facts) => readValues((readers ??= params.map((p) => readerFor(p, params, refs))), facts, undefined);
}

/**
 * The values the readers type from a request; an absent or unreadable value is left out. With `out`, a
 * missing required value and an unreadable one are told to it.
 */
function readValues(readers: readonly Reader[], facts: RequestFacts, out: Violations | undefined): ParameterValues {
  const values: ParameterValues = { path: {}, query: {}, header: {}, cookie: {} };
  const sources = new Sources(facts);
  for (const { param, read } of readers) {
    const value = read(facts, sources);
    const where = locationOf(param);
    if (value === undefined) {
      if (param.required && out !== undefined) {
        const kind = where === 'query' ? 'query-missing' : where === 'header' ? 'header-missing' : 'schema';
        out.add(kind, where, param.name, '', 'is required');
      }
      continue;
    }
    if (value instanceof Unreadable) out?.add('schema', where, param.name, '', value.message);
    else setOwn(values[where], param.name, value);
  }
  return values;
}
