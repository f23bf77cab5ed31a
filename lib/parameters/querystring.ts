// The value of OpenAPI 3.2's `in: querystring` parameter: the whole query string read as its one `content`
// media type. Form-encoded (`application/x-www-form-urlencoded`) it is an object built like a form body
// (per the schema's properties and the media type's `encoding`, scalars typed by their schemas); JSON is
// the percent-decoded text parsed; any other type is the decoded text, typed by the schema.
import type { Operation, Parameter } from '../contract/operations.js';
import type { RefResolver } from '../contract/refs.js';
import { essence, isJsonMediaType } from '../http/negotiation.js';
import { percentDecoded } from '../http/percent.js';
import { FormLimitError } from '../codec/bracket-keys.js';
import { parseQuery } from '../http/query.js';
import { formObject, type Encoding } from '../schema/bodies.js';
import { shapeOf } from '../schema/coerce.js';
import { Unreadable } from './parameters.js';

/**
 * Reads one request's query (without `?`): undefined when it is empty (the parameter is absent), an
 * Unreadable when it is not of the declared media type, else the parsed value.
 */
export type QuerystringRead = (query: string) => unknown;

/** An operation's `in: querystring` parameter: its name and its reader; undefined when it has none. */
export interface OperationQuerystring {
  name: string;
  read: QuerystringRead;
}

export function operationQuerystring(op: Operation, refs: RefResolver): OperationQuerystring | undefined {
  const param = op.parameters.find((p) => p.in === 'querystring');
  return param === undefined ? undefined : { name: param.name, read: compileQuerystring(param, refs) };
}

export function compileQuerystring(param: Parameter, refs: RefResolver): QuerystringRead {
  const type = param.contentType ?? '';
  // The shape is looked up on first use: most operations never see a query.
  const shape = () => shapeOf(param.schema, param.uri, refs);
  if (essence(type) === 'application/x-www-form-urlencoded') {
    const encoding = (param.media?.encoding ?? {}) as Encoding;
    return (query) => {
      if (query === '') return undefined;
      try {
        return formObject(parseQuery(query), shape(), encoding, false);
      } catch (err) {
        if (!(err instanceof FormLimitError)) throw err;
        return new Unreadable(err.detail);
      }
    };
  }
  const notEncoded = new Unreadable('is not a valid percent-encoded query string');
  const unreadable = new Unreadable(`is not valid ${type}`);
  const json = isJsonMediaType(type);
  return (query) => {
    if (query === '') return undefined;
    const text = percentDecoded(query);
    if (text === undefined) return notEncoded;
    if (!json) return shape().scalar(text);
    try {
      return JSON.parse(text);
    } catch {
      return unreadable;
    }
  };
}
