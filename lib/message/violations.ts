// Collecting every violation of one request (docs/errors.md, docs/validation.md) and choosing the problem's `detail`: Camel's text
// when all violations are of the one kind it has a text for, the general text otherwise.
import { escapePointerToken, unescapePointerToken } from '../contract/refs.js';
import { Errors, SvcError, type ErrorDef, type Violation } from '../util/errors.js';

export type ViolationKind = 'body-missing' | 'json' | 'xml' | 'query-missing' | 'header-missing' | 'schema';

const DETAIL: Record<ViolationKind, ErrorDef> = {
  'body-missing': Errors.BODY_MISSING,
  json: Errors.INVALID_JSON,
  xml: Errors.INVALID_XML,
  'query-missing': Errors.QUERY_MISSING,
  'header-missing': Errors.HEADERS_MISSING,
  schema: Errors.REQUEST_NOT_CONFORMING,
};

/**
 * What addSchemaErrors reads of one schema error: the fields of ajv's ErrorObject it uses, declared here so
 * that the published declarations need no ajv (it is bundled, not installed beside the package).
 */
export interface SchemaError {
  keyword: string;
  instancePath: string;
  params: object;
  message?: string | undefined;
}

/** One request's violations; created for every checked request, so it allocates nothing until the first. */
export class Violations {
  readonly items: Violation[] = [];
  private kinds: Set<ViolationKind> | undefined;
  private seen: Set<string> | undefined;

  add(kind: ViolationKind, where: Violation['in'], name: string, pointer: string, message: string): void {
    // oneOf/anyOf branches often repeat the same complaint; say it once.
    const key = `${where}\u0000${name}\u0000${pointer}\u0000${message}`;
    this.seen ??= new Set();
    if (this.seen.has(key)) return;
    this.seen.add(key);
    (this.kinds ??= new Set()).add(kind);
    this.items.push({ in: where, name, pointer, message });
  }

  /**
   * Adds ajv errors for a value. `locate` maps an instance path to the violation's location and name (a
   * body is one location; parameters are checked as one object `{path: {...}, query: {...}, ...}`).
   */
  addSchemaErrors(errors: readonly SchemaError[], locate: (segments: string[]) => { in: Violation['in']; name: string; pointer: string }): void {
    for (const e of errors) {
      if (e.keyword === 'if') continue; // the failing `then` branch reports the details
      const segments = e.instancePath === '' ? [] : e.instancePath.slice(1).split('/').map(unescapePointerToken);
      let message = e.message ?? 'is invalid';
      if (e.keyword === 'required') segments.push(String((e.params as { missingProperty: string }).missingProperty));
      else if (e.keyword === 'additionalProperties') {
        segments.push(String((e.params as { additionalProperty: string }).additionalProperty));
        message = 'is not allowed (no additional properties)';
      } else if (e.keyword === 'enum') message += `: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
      const at = locate(segments);
      this.add('schema', at.in, at.name, at.pointer, message);
    }
  }

  get size(): number {
    return this.items.length;
  }

  toError(): SvcError {
    const only = this.kinds?.size === 1 ? [...this.kinds][0]! : 'schema';
    return new SvcError(DETAIL[only], [], this.items);
  }
}

export function pointerOf(segments: readonly string[]): string {
  return segments.map((s) => `/${escapePointerToken(s)}`).join('');
}
