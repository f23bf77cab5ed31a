// YAML contracts are parsed with js-yaml first: on megabyte contracts it is several times faster than `yaml`
// and makes far less garbage (figures: docs/performance.md), and like
// `yaml` it refuses duplicate keys. The schema below is YAML 1.2's core schema exactly as `yaml` resolves it
// (js-yaml's own core schema also reads `1_000`, `0b1` and `+.5e3`-style extras), so both give the same
// document; test/contract/yaml-parsers.test.ts compares them on every YAML file of the corpus.
//
// `yaml` still has the last word wherever the two could differ or its messages matter: texts with anchors
// (its alias limit guards against "billion laughs"), with directives (`%YAML 1.1` switches its schema), and
// any text js-yaml refuses (parsed again by `yaml`, which gives today's error, naming the line).
import { FAILSAFE_SCHEMA, load, Type } from 'js-yaml';

const scalar = (tag: string, pattern: RegExp, construct: (s: string) => unknown): Type =>
  new Type(`tag:yaml.org,2002:${tag}`, { kind: 'scalar', resolve: (s: string) => pattern.test(s), construct });

/**
 * The regular expressions and conversions of `yaml`'s core schema (yaml/dist/schema/core). js-yaml keeps one
 * implicit type per tag, so the int forms (decimal, 0o, 0x) and float forms (.inf/.nan, exponent, dotted) are
 * one type each.
 */
const CORE_1_2 = FAILSAFE_SCHEMA.extend({
  implicit: [
    scalar('null', /^(?:~|[Nn]ull|NULL)?$/, () => null),
    scalar('bool', /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, (s) => s[0] === 't' || s[0] === 'T'),
    scalar('int', /^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$/, (s) => (s[1] === 'o' ? parseInt(s.slice(2), 8) : s[1] === 'x' ? parseInt(s.slice(2), 16) : parseInt(s, 10))),
    scalar('float', /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+|[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*))$/, (s) =>
      s.endsWith('nan') || s.endsWith('NaN') || s.endsWith('NAN') ? NaN : /inf$/i.test(s) ? (s[0] === '-' ? -Infinity : Infinity) : parseFloat(s),
    ),
  ],
});

/** An anchor (`&name`) where YAML allows one, or a directive line; a few false alarms only cost speed. */
const NEEDS_YAML = /(?:^|[\s[{,])&[^\s[\]{},]|^%/m;

/** The parsed document, or undefined when `yaml` must parse this text. */
export function parseYamlFast(text: string): { doc: unknown } | undefined {
  if (NEEDS_YAML.test(text)) return undefined;
  try {
    return { doc: load(text, { schema: CORE_1_2 }) };
  } catch {
    return undefined;
  }
}
