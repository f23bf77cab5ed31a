// The contract rules of OpenAPI 3.2's `in: querystring` parameter, checked once per operation at startup:
// at most one (path-level parameters included), never beside `in: query` parameters, described by `content`.
import { Errors, svcError } from '../errors.js';
import type { Operation } from './operations.js';

export function checkQuerystring(op: Operation): void {
  const whole = op.parameters.filter((p) => p.in === 'querystring');
  if (whole.length === 0) return;
  const where = `${op.method} ${op.path} (direct:${op.id})`;
  if (whole.length > 1) throw svcError(Errors.QUERYSTRING_TWICE, where, whole.length, whole.map((p) => p.name).join(', '));
  const param = whole[0]!;
  const query = op.parameters.filter((p) => p.in === 'query');
  if (query.length > 0) throw svcError(Errors.QUERYSTRING_WITH_QUERY, where, param.name, query.map((p) => p.name).join(', '));
  if (param.contentType === undefined) throw svcError(Errors.QUERYSTRING_NO_CONTENT, where, param.name);
}
