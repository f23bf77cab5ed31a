// Query parameter names that pose as a declared parameter: exchange headers are case-insensitive, so
// `?Status=evil` lands in the header `status` beside (or instead of) the `status` validation checked; and
// PHP, Rails and the qs parser read `status[]=evil` or `status[x]=evil` in the forwarded query as `status`.
import type { Parameter } from '../contract/operations.js';
import type { Pairs } from '../http/query.js';
import type { Violations } from '../message/violations.js';

const POSING = 'poses as the declared %s (the same name in another letter case, or with [...] after it): its value would reach the route and the backend unchecked';

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
    return bracket > 0 ? this.posedAs.get(name.slice(0, bracket).toLowerCase()) : undefined;
  }

  /** Adds a violation for each pair whose name poses as a declared parameter (validation refuses the request). */
  report(pairs: Pairs, out: Violations): void {
    for (const [name] of pairs) {
      const target = this.posingAs(name);
      if (target !== undefined) out.add('schema', 'query', name, '', POSING.replace('%s', target));
    }
  }
}
