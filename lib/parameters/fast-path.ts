// The common case of parameter validation without the general machinery: when every parameter of an
// operation is a plain string or integer in the path or a form-style query (`?username=a&password=b`,
// `/pet/{petId}`), a request whose values are plainly valid is known valid from the text alone, with no
// value objects, coercion or schema run. Anything else (a missing or repeated value, text that is not a
// canonical integer) goes to the full check, which gives the same answers as before, errors included.
import type { Parameter } from '../contract/operations.js';
import type { ParameterValues, RequestFacts } from '../message/stages.js';
import { pathParam } from '../message/request-facts.js';
import { setOwn } from '../util/objects.js';

/** Schema keywords that do not constrain a value. */
const ANNOTATIONS = new Set(['description', 'title', 'example', 'examples', 'deprecated', 'externalDocs', 'xml', '$comment']);
/** Canonical integers of up to 15 digits: always safe integers (so int64 holds), never `-0`, `+1` or `01`. */
const INTEGER = /^(?:0|-?[1-9][0-9]{0,14})$/;
const INT32 = (text: string): boolean => INTEGER.test(text) && Math.abs(Number(text)) <= 0x7fffffff;

interface SimpleParameter {
  name: string;
  inPath: boolean;
  required: boolean;
  /** Undefined when any text is valid (strings). */
  valid: ((text: string) => boolean) | undefined;
}

/**
 * True when the request's parameters are certainly valid; false when the full check must decide.
 * Undefined when the operation has a parameter this check does not know.
 */
export function compileSimpleParameterCheck(params: readonly Parameter[]): ((facts: RequestFacts) => boolean) | undefined {
  const simple: SimpleParameter[] = [];
  for (const p of params) {
    const valid = textCheck(p);
    if (valid === false) return undefined;
    simple.push({ name: p.name, inPath: p.in === 'path', required: p.required, valid });
  }
  return (facts) => {
    for (const p of simple) {
      const text = p.inPath ? pathParam(facts, p.name) : onlyValue(facts.queryPairs, p.name);
      if (text === undefined) {
        if (p.required) return false;
      } else if (text === null || (p.valid !== undefined && !p.valid(text))) return false;
    }
    return true;
  };
}

/**
 * The typed values of parameters the check above found valid (for parameters it knows): only the
 * integers (strings are the text itself), read from the text without the general readers.
 */
export function compileSimpleParameterValues(params: readonly Parameter[]): (facts: RequestFacts) => ParameterValues {
  const integers = params.filter((p) => (p.schema as { type?: unknown }).type === 'integer');
  return (facts) => {
    const values: ParameterValues = { path: {}, query: {}, header: {}, cookie: {} };
    for (const p of integers) {
      const text = p.in === 'path' ? pathParam(facts, p.name) : onlyValue(facts.queryPairs, p.name);
      if (typeof text === 'string') setOwn(p.in === 'path' ? values.path : values.query, p.name, Number(text));
    }
    return values;
  };
}

/** The test a parameter's text must pass (undefined: none), or false when the parameter is not simple. */
function textCheck(p: Parameter): ((text: string) => boolean) | undefined | false {
  const located = p.in === 'path' ? p.style === 'simple' : p.in === 'query' && p.style === 'form';
  const schema = p.schema as Record<string, unknown> | null | undefined;
  if (!located || p.contentType !== undefined || schema === null || typeof schema !== 'object' || Array.isArray(schema)) return false;
  for (const key of Object.keys(schema)) if (key !== 'type' && key !== 'format' && !ANNOTATIONS.has(key) && !key.startsWith('x-')) return false;
  if (schema.type === 'string' && schema.format === undefined) return undefined;
  if (schema.type !== 'integer') return false;
  if (schema.format === undefined || schema.format === 'int64') return (text) => INTEGER.test(text);
  return schema.format === 'int32' ? INT32 : false;
}

/** The value of the one pair named `name`; undefined when there is none, null when there are several. */
function onlyValue(pairs: RequestFacts['queryPairs'], name: string): string | undefined | null {
  let found: string | undefined;
  for (let i = 0; i < pairs.length; i++) {
    const pair = pairs[i]!;
    if (pair[0] !== name) continue;
    if (found !== undefined) return null;
    found = pair[1];
  }
  return found;
}
