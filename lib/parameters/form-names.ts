// Form field names (application/x-www-form-urlencoded and multipart/form-data) that a common backend stack
// reads as a declared property though they are not spelled as declared — PHP (`role%00x`, ` role`,
// `sort.by` for `sort_by`), Spring (`_role`, `!role`), ASP.NET (`ROLE`) — as query-names.ts refuses them
// for query parameters: the facade would check `role` and hand the backend another value under that name.
// Brackets are the facade's own nesting for forms (`shipping[address]`), so they are not counted here.
import { hasControlCharacter, stackReading } from './query-names.js';
import type { Pairs } from '../http/query.js';
import type { Violations } from '../message/violations.js';

const READ_AS = 'is read as the declared field %s by common backend stacks (PHP, Spring, ASP.NET): its value would reach the backend unchecked';
const CONTROL = 'holds a control character (NUL, CR, LF...): backends cut or read such names differently';

/** Reports each field name posing as one of `declared` (the form schema's properties), and any with a control character. */
export function reportPosingFormNames(pairs: Pairs, declared: readonly string[], out: Violations): void {
  if (pairs.length === 0) return;
  let readings: Map<string, string> | undefined;
  const exact = new Set(declared);
  for (const [name] of pairs) {
    if (exact.has(name)) continue;
    if (hasControlCharacter(name)) {
      out.add('schema', 'body', name, '', CONTROL);
      continue;
    }
    if (declared.length === 0) continue;
    readings ??= new Map(declared.map((d) => [stackReading(d.toLowerCase()), d]));
    const bracket = name.indexOf('[');
    const base = bracket > 0 ? name.slice(0, bracket) : name;
    // `shipping[address]` for a declared `shipping`: the facade's own nesting.
    if (exact.has(base)) continue;
    const lower = base.toLowerCase();
    const unprefixed = lower.length > 1 && (lower[0] === '_' || lower[0] === '!') ? lower.slice(1) : undefined;
    const target = readings.get(stackReading(lower)) ?? (unprefixed === undefined ? undefined : readings.get(stackReading(unprefixed)));
    if (target !== undefined) out.add('schema', 'body', name, '', READ_AS.replace('%s', target));
  }
}
