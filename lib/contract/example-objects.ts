// Example Objects (OpenAPI 3.x `examples` maps). 3.2 adds `dataValue` (the data, read like `value`) and
// `serializedValue` (the exact serialized text, e.g. a body as it goes on the wire). What an example gives,
// first that applies: `serializedValue`, `dataValue`, `value`; `externalValue` is never fetched. Fields the
// specification calls mutually exclusive are a startup warning (the order above still decides), never an error.
import type { OpenApiDocument } from './load.js';

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
/** Keys under which no Example Object can sit (schemas, literal values): not walked, which keeps the walk small. */
const NOT_WALKED = new Set(['schema', 'schemas', 'itemSchema', 'example', 'value', 'default', 'enum', 'const']);

/** One line per invalid Example Object in the document (inline ones; a `$ref` is checked where it points). */
export function exampleObjectProblems(doc: OpenApiDocument): string[] {
  const problems: string[] = [];
  const walk = (node: unknown, pointer: string): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, child] of Object.entries(node)) {
      if (NOT_WALKED.has(key) || key.startsWith('x-')) continue;
      const at = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (key === 'examples' && child !== null && typeof child === 'object' && !Array.isArray(child)) {
        for (const [name, example] of Object.entries(child)) {
          const problem = exampleProblem(example);
          if (problem !== undefined) problems.push(`${at}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}: ${problem}`);
        }
      } else walk(child, at);
    }
  };
  walk(doc, '#');
  return problems;
}

function exampleProblem(example: unknown): string | undefined {
  if (!example || typeof example !== 'object' || typeof (example as { $ref?: unknown }).$ref === 'string') return undefined;
  const e = example as Record<string, unknown>;
  const problems = EXCLUSIVE.filter(([a, b]) => Object.hasOwn(e, a) && Object.hasOwn(e, b)).map(([a, b]) => `${a} and ${b} are mutually exclusive`);
  if (Object.hasOwn(e, 'serializedValue') && typeof e.serializedValue !== 'string') problems.push('serializedValue is not a string');
  if (problems.length === 0) return undefined;
  const used = typeof e.serializedValue === 'string' ? 'serializedValue' : Object.hasOwn(e, 'dataValue') ? 'dataValue' : Object.hasOwn(e, 'value') ? 'value' : 'nothing';
  return `not a valid Example Object: ${problems.join('; ')} (${used} is used)`;
}
