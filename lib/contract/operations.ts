// The operation table: every (method, path) of the contract with its id, parameters, bodies and media types,
// dereferenced once at startup so the request path never touches `$ref`s.
import { Errors, svcError } from '../util/errors.js';
import type { Contract } from './load.js';
import { resolveContent } from './media-types.js';
import { declaredOperations } from './methods.js';
import { checkQuerystring } from './querystring.js';
import { checkReferences } from './reference-check.js';
import type { Located } from './refs.js';

/** `querystring` (OpenAPI 3.2): one parameter that is the whole query string, described by `content`. */
export type ParameterLocation = 'path' | 'query' | 'querystring' | 'header' | 'cookie';

export interface Parameter {
  name: string;
  in: ParameterLocation;
  required: boolean;
  style: string;
  explode: boolean;
  allowReserved: boolean;
  /** The schema (may itself be a `$ref`), or the schema of the single `content` entry. */
  schema: unknown;
  /** Media type when the parameter is described by `content` rather than `schema`. */
  contentType: string | undefined;
  /** That `content` entry (its `encoding` says how a form-encoded `querystring` is read). */
  media?: MediaTypeObject;
  /** URI of the document the parameter was found in, to resolve refs in its schema. */
  uri: string;
}

export interface MediaTypeObject {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, unknown>;
  encoding?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface RequestBodyObject {
  required?: boolean;
  content?: Record<string, MediaTypeObject>;
  [key: string]: unknown;
}

export interface ResponseObject {
  description?: string;
  content?: Record<string, MediaTypeObject>;
  headers?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface Operation {
  id: string;
  /** The HTTP method as sent: upper case for the fixed fields (and `query`), as written for `additionalOperations`. */
  method: string;
  /** The path key exactly as written in the contract. */
  path: string;
  /** The path to route: the key without any `#fragment` (aws-s3 style `/{Bucket}#uploadId`). */
  template: string;
  /** From a `#name` or `#name=value` suffix in the path key: the query that tells same-path operations apart. */
  queryDiscriminator: { name: string; value: string | undefined } | undefined;
  parameters: Parameter[];
  requestBody: Located<RequestBodyObject> | undefined;
  responses: Record<string, Located<ResponseObject>>;
  /** Media types of the request body, as declared. */
  consumes: string[];
  /** Media types of all responses, as declared, first seen first. */
  produces: string[];
  /** The operation object and the document it lives in. */
  source: Located<Record<string, unknown>>;
}

export interface OperationTable {
  operations: Operation[];
  /** Webhooks and callbacks found and not served (docs/configuration.md#contracts). */
  skipped: { webhooks: number; callbacks: number };
}

export function compileOperations(contract: Contract): OperationTable {
  // First, so a broken reference is reported with the place it is used, not where compiling met it.
  checkReferences(contract);
  const { doc, refs } = contract;
  const operations: Operation[] = [];
  const byId = new Map<string, Operation>();
  let callbacks = 0;
  for (const [path, rawItem] of Object.entries(doc.paths ?? {})) {
    const item = refs.deref<Record<string, unknown> | null>(rawItem, contract.uri);
    if (!item.value || typeof item.value !== 'object') continue;
    const shared = Array.isArray(item.value.parameters) ? item.value.parameters : [];
    const { template, queryDiscriminator } = splitPathKey(path);
    for (const { method, value } of declaredOperations(item.value, contract.version, path)) {
      const op = refs.deref<Record<string, unknown> | null>(value, item.uri);
      if (!op.value || typeof op.value !== 'object') continue;
      const declaredId = op.value.operationId;
      const id = typeof declaredId === 'string' && declaredId !== '' ? declaredId : generatedOperationId(method, path);
      if (op.value.callbacks && typeof op.value.callbacks === 'object') callbacks += Object.keys(op.value.callbacks).length;
      const compiled: Operation = {
        id,
        method,
        path,
        template,
        queryDiscriminator,
        parameters: mergeParameters(contract, shared, item.uri, op.value.parameters, op.uri),
        requestBody: withContent(contract, derefOptional<RequestBodyObject>(contract, op.value.requestBody, op.uri)),
        responses: derefResponses(contract, op.value.responses, op.uri),
        consumes: [],
        produces: [],
        source: op as Located<Record<string, unknown>>,
      };
      checkQuerystring(`${compiled.method} ${path} (direct:${id})`, compiled.parameters);
      compiled.consumes = Object.keys(compiled.requestBody?.value.content ?? {});
      compiled.produces = [...new Set(Object.values(compiled.responses).flatMap((r) => Object.keys(r.value.content ?? {})))];
      const twin = byId.get(id);
      if (twin) throw svcError(Errors.DUPLICATE_OPERATION_ID, id, `${twin.method} ${twin.path}`, `${compiled.method} ${path}`);
      byId.set(id, compiled);
      operations.push(compiled);
    }
  }
  const webhooks = Object.keys(doc.webhooks ?? {}).length + Object.keys((doc['x-webhooks'] as object | undefined) ?? {}).length;
  return { operations, skipped: { webhooks, callbacks } };
}

/** `GENOPID_<METHOD><path>` with `/` → `.` and braces → `_` (Camel's naming, docs/routes.md). */
export function generatedOperationId(method: string, path: string): string {
  return `GENOPID_${method.toUpperCase()}${path.replace(/\//g, '.').replace(/[{}]/g, '_')}`;
}

function splitPathKey(path: string): Pick<Operation, 'template' | 'queryDiscriminator'> {
  const hash = path.indexOf('#');
  if (hash === -1) return { template: path, queryDiscriminator: undefined };
  const fragment = path.slice(hash + 1);
  const eq = fragment.indexOf('=');
  const queryDiscriminator = fragment === '' ? undefined : eq === -1 ? { name: fragment, value: undefined } : { name: fragment.slice(0, eq), value: fragment.slice(eq + 1) };
  return { template: path.slice(0, hash), queryDiscriminator };
}

function derefOptional<T>(contract: Contract, value: unknown, uri: string): Located<T> | undefined {
  if (value === undefined || value === null) return undefined;
  const located = contract.refs.deref<T>(value, uri);
  return located.value && typeof located.value === 'object' ? located : undefined;
}

/** A request body or response whose `content` entries may be references (3.2 `components/mediaTypes`), resolved. */
function withContent<T extends { content?: Record<string, MediaTypeObject> }>(contract: Contract, located: Located<T> | undefined): Located<T> | undefined {
  const content = located?.value.content;
  const resolved = resolveContent(contract, content, located?.uri ?? '');
  return resolved === content ? located : { value: { ...located!.value, content: resolved }, uri: located!.uri };
}

function derefResponses(contract: Contract, responses: unknown, uri: string): Record<string, Located<ResponseObject>> {
  const out: Record<string, Located<ResponseObject>> = {};
  if (!responses || typeof responses !== 'object') return out;
  for (const [code, value] of Object.entries(responses)) {
    const located = derefOptional<ResponseObject>(contract, value, uri);
    // A malformed contract may have `'200': null` (see the corpus); it still declares the code.
    out[code] = withContent(contract, located) ?? { value: {}, uri };
  }
  return out;
}

function mergeParameters(contract: Contract, shared: unknown[], sharedUri: string, own: unknown, ownUri: string): Parameter[] {
  const merged = new Map<string, Parameter>();
  const add = (list: unknown, uri: string): void => {
    if (!Array.isArray(list)) return;
    for (const raw of list) {
      const p = compileParameter(contract, raw, uri);
      if (p) merged.set(`${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`, p);
    }
  };
  add(shared, sharedUri);
  add(own, ownUri);
  return [...merged.values()];
}

function compileParameter(contract: Contract, raw: unknown, uri: string): Parameter | undefined {
  const located = derefOptional<Record<string, unknown>>(contract, raw, uri);
  if (!located) return undefined;
  const p = located.value;
  const where = p.in;
  if (typeof p.name !== 'string' || !isLocation(where, contract)) return undefined;
  const style = typeof p.style === 'string' ? p.style : where === 'query' || where === 'cookie' ? 'form' : 'simple';
  let schema = p.schema;
  let contentType: string | undefined;
  let media: MediaTypeObject | undefined;
  if (schema === undefined && p.content && typeof p.content === 'object') {
    const first = Object.entries(resolveContent(contract, p.content as Record<string, MediaTypeObject>, located.uri))[0];
    if (first) [contentType, media, schema] = [first[0], first[1] ?? undefined, first[1]?.schema];
  }
  return {
    name: p.name,
    in: where,
    required: where === 'path' ? true : p.required === true,
    style,
    explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
    allowReserved: p.allowReserved === true,
    schema,
    contentType,
    ...(media === undefined ? {} : { media }),
    uri: located.uri,
  };
}

const LOCATIONS: ReadonlySet<unknown> = new Set(['path', 'query', 'header', 'cookie']);

function isLocation(where: unknown, contract: Contract): where is ParameterLocation {
  return LOCATIONS.has(where) || (where === 'querystring' && contract.version === '3.2');
}
