// What the request said, read once per request by the operation's runtime (lib/facade/runtime.ts) and shared
// by the stages after it: validation types the parameters and parses the body into it, binding reads the
// body from it, and the exchange carries it to the route (a typed route reads its parameters from it
// instead of matching the path and parsing the query again).
import type { IncomingMessage } from 'node:http';
import type { Pairs } from '../http/query.js';
import { PARAM_KEYS } from '../http/router.js';

/** What the request said, for stages that look at it before the exchange exists. */
export interface RequestFacts {
  req: IncomingMessage;
  /** The request path as received (before decoding), without the query. */
  path: string;
  /** The raw query string, without `?`. */
  query: string;
  /** The query decoded into pairs, once per request. */
  queryPairs: Pairs;
  /**
   * Path parameters as the router matched them (percent-decoded), under its keys `p0`, `p1`... in the order
   * of `pathNames`: read them with pathParam(). Not copied into an object keyed by name per request.
   */
  pathParams: Record<string, string | undefined>;
  /** The contract names of the path parameters, in the order of the template. */
  pathNames: readonly string[];
  /** The request body bytes, if any. */
  raw: Buffer | undefined;
  /** Those bytes decoded as UTF-8, by the first stage that decoded them (validation), so the route's text body is not decoded again. */
  text?: string;
  /** The value of the operation's `in: querystring` parameter (OpenAPI 3.2), read once; undefined without one. */
  querystring?: unknown;
  /**
   * The parameters as validation typed them, by location; or, when validation knew them valid from their
   * text alone, the operation's reader that types them (called only if a route reads its headers).
   * Undefined without validation.
   */
  parameters?: ParameterValues | ((facts: RequestFacts) => ParameterValues);
  /** The parsed body, set by the first stage that parses it (validation), so later stages need not parse again. */
  body?: unknown;
  /** The body is a sequence the route reads item by item as it arrives (lib/sequences/): checked then, not before. */
  streamed?: boolean;
}

/** Parameter values typed by their schemas, by location and name (an `in: querystring` parameter is under query). */
export type ParameterValues = Record<'path' | 'query' | 'header' | 'cookie', Record<string, unknown>>;

/** A path parameter's value by its contract name. */
export function pathParam(facts: RequestFacts, name: string): string | undefined {
  const i = facts.pathNames.indexOf(name);
  return i === -1 ? undefined : facts.pathParams[PARAM_KEYS[i] ?? `p${i}`];
}
