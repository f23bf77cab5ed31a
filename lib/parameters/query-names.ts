// Query parameter names that pose as a declared parameter: exchange headers are case-insensitive, so
// `?Status=evil` lands in the header `status` beside (or instead of) the `status` validation checked; and
// PHP, Rails and the qs parser read `status[]=evil` or `status[x]=evil` in the forwarded query as `status`,
// PHP `status%00x`, ` status` and `+status` too (and `sort.by` as `sort_by`), Spring `_status` and `!status`.
// ASP.NET's model binding ignores letter case, as the first rule does.
import type { Parameter } from '../contract/operations.js';
import type { Pairs } from '../http/query.js';
import type { Violations } from '../message/violations.js';

const POSING = 'poses as the declared %s (the same name in another letter case, or with [...] after it): its value would reach the route and the backend unchecked';
const READ_AS = 'is read as the declared %s by common backend stacks (PHP, Spring...): its value would reach the backend unchecked';
const CONTROL = 'holds a control character (NUL, CR, LF...): backends cut or read such names differently';

export class PosingQueryNames {
  private constructor(
    /** Declared query parameter names, exactly as written: the common case is one Set lookup. */
    private readonly exact: ReadonlySet<string>,
    /** Lower-cased names of what a query name may pose as, with what to call it. */
    private readonly posedAs: ReadonlyMap<string, string>,
    /** `name[` prefixes that are a deepObject parameter's own. */
    private readonly deepObjects: readonly string[],
  ) {}

  /**
   * For an operation's parameters; undefined when there is nothing to pose as, or when an `in: querystring`
   * parameter takes the whole query (its pairs then become no headers).
   */
  static of(parameters: readonly Parameter[]): PosingQueryNames | undefined {
    if (parameters.some((p) => p.in === 'querystring')) return undefined;
    const posedAs = new Map<string, string>();
    // Header parameters first: a query parameter declared under the same name is the one it names.
    for (const p of parameters) if (p.in === 'header') posedAs.set(p.name.toLowerCase(), `header parameter ${p.name}`);
    for (const p of parameters) {
      if (p.in !== 'query') continue;
      posedAs.set(p.name.toLowerCase(), `query parameter ${p.name}`);
      // A name declared with brackets (`ids[]`, PHP style): `ids` and `ids[0]` are the same variable to PHP.
      const bracket = p.name.indexOf('[');
      if (bracket > 0 && p.style !== 'deepObject') {
        const base = p.name.slice(0, bracket).toLowerCase();
        if (!posedAs.has(base)) posedAs.set(base, `query parameter ${p.name}`);
      }
    }
    if (posedAs.size === 0) return undefined;
    // What other stacks make of a declared name (PHP: `sort.by` is `sort_by`): a query name they read the same way poses too.
    for (const [name, what] of [...posedAs]) {
      const read = stackReading(name);
      if (!posedAs.has(read)) posedAs.set(read, what);
    }
    const query = parameters.filter((p) => p.in === 'query');
    return new PosingQueryNames(new Set(query.map((p) => p.name)), posedAs, query.filter((p) => p.style === 'deepObject').map((p) => `${p.name}[`));
  }

  /** What `name` poses as (`query parameter status`), or undefined when it is declared itself or unrelated. */
  posingAs(name: string): string | undefined {
    if (this.exact.has(name)) return undefined;
    for (const prefix of this.deepObjects) if (name.startsWith(prefix)) return undefined;
    const whole = this.posedAs.get(name.toLowerCase());
    if (whole !== undefined) return whole;
    const bracket = name.indexOf('[');
    if (bracket > 0) {
      const base = this.posedAs.get(name.slice(0, bracket).toLowerCase());
      if (base !== undefined) return base;
    }
    return this.readAs(name);
  }

  /** The declared parameter another stack reads `name` as (see stackReading), with the message's wording. */
  private readAs(name: string): string | undefined {
    const lower = name.toLowerCase();
    const read = stackReading(lower);
    if (read !== lower && read !== '') {
      const target = this.posedAs.get(read);
      if (target !== undefined) return target;
    }
    // Spring's data binder: `_status` (field marker) and `!status` (field default) set `status` when it is absent.
    if (lower.length > 1 && (lower[0] === '_' || lower[0] === '!')) return this.posedAs.get(stackReading(lower.slice(1)));
    return undefined;
  }

  /** Adds a violation for each pair whose name poses as a declared parameter (validation refuses the request). */
  report(pairs: Pairs, out: Violations): void {
    for (const [name] of pairs) {
      if (this.exact.has(name) || hasControlCharacter(name)) continue;
      const target = this.posingAs(name);
      if (target === undefined) continue;
      const spelledAlike = name.toLowerCase() === stackReading(name.toLowerCase()) || name.includes('[');
      out.add('schema', 'query', name, '', (spelledAlike ? POSING : READ_AS).replace('%s', target));
    }
  }
}

/**
 * The name PHP makes of a query or form name (lower-cased input): cut at the first NUL, leading blanks
 * dropped, what follows a `[` left to the bracket rules, `.` and blank made `_` (`sort.by` and `+sort.by`
 * are `$_GET['sort_by']`). Trailing blanks are trimmed too: several frameworks trim names.
 */
export function stackReading(lower: string): string {
  let name = lower;
  const nul = name.indexOf('\0');
  if (nul !== -1) name = name.slice(0, nul);
  const bracket = name.indexOf('[');
  if (bracket > 0) name = name.slice(0, bracket);
  name = name.trim();
  return name.replace(/[. ]/g, '_');
}

const CONTROL_CHARACTER = /[\x00-\x1f\x7f]/;

export function hasControlCharacter(name: string): boolean {
  return CONTROL_CHARACTER.test(name);
}

/** With validation, a query name holding a control character is refused whatever the operation declares. */
export function reportControlNames(pairs: Pairs, out: Violations): void {
  for (const [name] of pairs) if (hasControlCharacter(name)) out.add('schema', 'query', name, '', CONTROL);
}
