// Example Objects (OpenAPI 3.x `examples` maps). 3.2 adds `dataValue` (the data, read like `value`) and
// `serializedValue` (the exact serialized text, e.g. a body as it goes on the wire). What an example gives,
// first that applies: `serializedValue`, `dataValue`, `value`; `externalValue` is never fetched. Fields the
// specification calls mutually exclusive are a startup warning (the order above still decides), never an error.
import type { OpenApiDocument } from './load.js';
import { OPERATION_FIELDS } from './methods.js';
import { escapePointerToken } from './refs.js';

/** What one Example Object offers: the serialized text to send as is, or the data to serialize. */
export type ExampleSample = { serialized: string } | { data: unknown };

export function exampleSample(example: unknown): ExampleSample | undefined {
  if (!example || typeof example !== 'object') return undefined;
  const e = example as Record<string, unknown>;
  if (typeof e.serializedValue === 'string') return { serialized: e.serializedValue };
  if (Object.hasOwn(e, 'dataValue')) return { data: e.dataValue };
  if (Object.hasOwn(e, 'value')) return { data: e.value };
  return undefined;
}

/** Pairs the specification forbids in one Example Object (`value` stands alone; serialized forms exclude each other). */
const EXCLUSIVE: readonly [string, string][] = [
  ['value', 'dataValue'],
  ['value', 'serializedValue'],
  ['value', 'externalValue'],
  ['serializedValue', 'externalValue'],
];
type Json = Record<string, unknown>;
type Visit = (node: Json, at: string) => void;

/**
 * One line per invalid Example Object in the document (inline ones; a `$ref` is checked where it points).
 * Only the places Example Objects can be are visited (never schemas), so big contracts cost little.
 */
export function exampleObjectProblems(doc: OpenApiDocument): string[] {
  const problems: string[] = [];
  const check: Visit = (example, at) => {
    const problem = exampleProblem(example);
    if (problem !== undefined) problems.push(`${at}: ${problem}`);
  };
  const examples: Visit = (holder, at) => entries(holder.examples, `${at}/examples`, check);
  const media: Visit = (m, at) => {
    examples(m, at);
    entries(m.encoding, `${at}/encoding`, (encoding, where) => entries(encoding.headers, `${where}/headers`, header));
  };
  // Parameters and headers: examples of their own, or under their `content`.
  const header: Visit = (h, at) => {
    examples(h, at);
    entries(h.content, `${at}/content`, media);
  };
  const body: Visit = (b, at) => entries(b.content, `${at}/content`, media);
  const response: Visit = (r, at) => {
    entries(r.headers, `${at}/headers`, header);
    body(r, at);
  };
  const operation: Visit = (op, at) => {
    entries(op.parameters, `${at}/parameters`, header);
    if (isJson(op.requestBody)) body(op.requestBody, `${at}/requestBody`);
    entries(op.responses, `${at}/responses`, response);
    entries(op.callbacks, `${at}/callbacks`, callback);
  };
  const callback: Visit = (c, at) => entries(c, at, pathItem);
  const pathItem: Visit = (item, at) => {
    entries(item.parameters, `${at}/parameters`, header);
    entries(item.additionalOperations, `${at}/additionalOperations`, operation);
    for (const [key, value] of Object.entries(item)) if (OPERATION_FIELDS.has(key) && isJson(value)) operation(value, `${at}/${key}`);
  };
  entries(doc.paths, '#/paths', pathItem);
  entries(doc.webhooks, '#/webhooks', pathItem);
  const components = isJson(doc.components) ? doc.components : {};
  const at = '#/components';
  examples(components, at);
  for (const kind of ['parameters', 'headers'] as const) entries(components[kind], `${at}/${kind}`, header);
  entries(components.requestBodies, `${at}/requestBodies`, body);
  entries(components.responses, `${at}/responses`, response);
  entries(components.mediaTypes, `${at}/mediaTypes`, media);
  entries(components.pathItems, `${at}/pathItems`, pathItem);
  entries(components.callbacks, `${at}/callbacks`, callback);
  return problems;
}

/** Visits the object entries of a map (or list), each with its JSON pointer. */
function entries(container: unknown, at: string, visit: Visit): void {
  if (!isJson(container) && !Array.isArray(container)) return;
  for (const [key, value] of Object.entries(container)) if (isJson(value)) visit(value, `${at}/${escapePointerToken(key)}`);
}

function isJson(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function exampleProblem(e: Json): string | undefined {
  if (typeof e.$ref === 'string') return undefined;
  const problems = EXCLUSIVE.filter(([a, b]) => Object.hasOwn(e, a) && Object.hasOwn(e, b)).map(([a, b]) => `${a} and ${b} are mutually exclusive`);
  if (Object.hasOwn(e, 'serializedValue') && typeof e.serializedValue !== 'string') problems.push('serializedValue is not a string');
  if (problems.length === 0) return undefined;
  const used = typeof e.serializedValue === 'string' ? 'serializedValue' : Object.hasOwn(e, 'dataValue') ? 'dataValue' : Object.hasOwn(e, 'value') ? 'value' : 'nothing';
  return `not a valid Example Object: ${problems.join('; ')} (${used} is used)`;
}
