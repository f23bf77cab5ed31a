// Choosing among `oneOf`/`anyOf` branches (docs/mocking.md): the first branch that fits with everything else
// the schema says (dynamic mode varies an `anyOf`'s, where any pick stays valid); under a discriminator, one
// option per mapped value with that value set, `defaultMapping`'s schema last. A `oneOf` value must also
// match its branch only: exclusive-choice.ts. A subtype that includes a base schema's discriminator through
// `allOf` names itself in that property (inheritedDiscriminator).
import { derefRef, discriminatorDispatch, schemaRef, type Dispatch } from '../schema/discriminator.js';
import { exclusiveChoice, type BranchFacts } from './exclusive-choice.js';
import { fits } from './fits.js';
import type { Generator, Synthesis } from './generation.js';
import { factsOf, mergeFacts, type Facts } from './schema-facts.js';

/** `oneOf`/`anyOf`: the first branch that fits with everything else (at random in dynamic mode). */
export function choiceGenerator(s: Synthesis, f: Facts): Generator {
  const [choice, ...rest] = f.choices;
  const base: Facts = { ...f, choices: rest };
  const options: Generator[] = [];
  const branchOf: BranchFacts[] = [];
  const dispatch = discriminatorDispatch(choice!.owner.value, choice!.owner.uri, s.contract.refs);
  if (dispatch !== undefined) {
    // Explicit mapping entries come first; a branch they already name gets no second, implicit value.
    const reached = new Set<unknown>();
    for (const [value, target] of dispatch.targets) {
      const located = s.contract.refs.resolveRef(target.ref, target.uri);
      const schema = s.contract.refs.deref(located.value, located.uri).value;
      if (reached.has(schema)) continue;
      reached.add(schema);
      const facts = mergeFacts(base, factsOf([located], s.contract));
      if (facts.impossible) continue;
      branchOf.push({ index: choice!.branches.findIndex((b) => s.contract.refs.deref(b.value, b.uri).value === schema), facts });
      const name = dispatch.propertyName;
      let gen: Generator | undefined;
      options.push((g, depth) => {
        const made = (gen ??= s.compile(facts, undefined))(g, depth);
        return made !== null && typeof made === 'object' && !Array.isArray(made) ? { ...made, [name]: value } : made;
      });
    }
    const fallback = dispatch.fallback && fallbackOption(s, dispatch, base, reached);
    if (fallback !== undefined) {
      options.push(fallback);
      branchOf.push({ index: -1, facts: base });
    }
  } else {
    for (const [index, branch] of choice!.branches.entries()) {
      const facts = mergeFacts(base, factsOf([branch], s.contract));
      if (facts.impossible) continue;
      let gen: Generator | undefined;
      options.push((g, depth) => (gen ??= s.compile(facts, undefined))(g, depth));
      branchOf.push({ index, facts });
    }
  }
  if (options.length === 0) return s.compile(base, undefined);
  if (choice!.keyword === 'oneOf') return exclusiveChoice(s, choice!.branches, options, branchOf, dispatch !== undefined);
  // Dynamic mode varies the branch of an `anyOf`, where any pick stays valid.
  return (g, depth) => (g.random === undefined || options.length === 1 ? options[0]! : g.random.pick(options))(g, depth);
}

/**
 * `defaultMapping`'s schema as one more option (last, so static answers keep the first mapped branch),
 * unless a mapping names it already. It must not carry a value that maps elsewhere: such a value is dropped.
 */
function fallbackOption(s: Synthesis, dispatch: Dispatch, base: Facts, reached: Set<unknown>): Generator | undefined {
  const located = s.contract.refs.resolveRef(dispatch.fallback!.ref, dispatch.fallback!.uri);
  if (reached.has(s.contract.refs.deref(located.value, located.uri).value)) return undefined;
  const facts = mergeFacts(base, factsOf([located], s.contract));
  if (facts.impossible) return undefined;
  const name = dispatch.propertyName;
  let gen: Generator | undefined;
  return (g, depth) => {
    const made = (gen ??= s.compile(facts, undefined))(g, depth);
    if (made === null || typeof made !== 'object' || Array.isArray(made)) return made;
    const value = (made as Record<string, unknown>)[name];
    if (typeof value !== 'string' || !dispatch.targets.has(value)) return made;
    const { [name]: _mapped, ...rest } = made as Record<string, unknown>;
    return rest;
  };
}

/**
 * A subtype that includes a base schema's discriminator through `allOf` names itself in that property:
 * the mapping key that points to it, else its component name.
 */
export function inheritedDiscriminator(s: Synthesis, f: Facts, self: object | undefined): { name: string; value: string } | undefined {
  const disc = f.discriminator;
  if (disc === undefined || self === undefined || !f.properties.has(disc.propertyName)) return undefined;
  let value: string | undefined;
  for (const [key, ref] of Object.entries(disc.mapping ?? {})) {
    if (typeof ref !== 'string') continue;
    try {
      if (derefRef(schemaRef(ref), disc.uri, s.contract.refs).value === self) value = key;
    } catch {
      // a mapping that points nowhere names nothing
    }
  }
  value ??= s.componentName(self);
  if (value === undefined) return undefined;
  const prop = factsOf(f.properties.get(disc.propertyName)!, s.contract);
  return fits(s, value, prop) ? { name: disc.propertyName, value } : undefined;
}
