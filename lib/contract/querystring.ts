// The contract rules of OpenAPI 3.2's `in: querystring` parameter, checked once per operation at startup:
// at most one (path-level parameters included), never beside `in: query` parameters, described by `content`.
import { Errors, svcError } from '../util/errors.js';

/** What the rules look at of a compiled parameter (operations.ts, which calls this, defines the whole). */
interface DeclaredParameter {
  name: string;
  in: string;
  contentType: string | undefined;
}

/** `where` names the operation in the error: `GET /items (direct:listItems)`. */
export function checkQuerystring(where: string, parameters: readonly DeclaredParameter[]): void {
  const whole = parameters.filter((p) => p.in === 'querystring');
  if (whole.length === 0) return;
  if (whole.length > 1) throw svcError(Errors.QUERYSTRING_TWICE, where, whole.length, whole.map((p) => p.name).join(', '));
  const param = whole[0]!;
  const query = parameters.filter((p) => p.in === 'query');
  if (query.length > 0) throw svcError(Errors.QUERYSTRING_WITH_QUERY, where, param.name, query.map((p) => p.name).join(', '));
  if (param.contentType === undefined) throw svcError(Errors.QUERYSTRING_NO_CONTENT, where, param.name);
}
