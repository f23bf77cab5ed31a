// Where a schema holds subschemas: the keywords the validator converts and the startup reference check
// walks, kept in one place so both see the same schemas (a `$ref` the check never saw must not reach ajv).

/** Keywords holding one subschema. */
export const ONE_SUBSCHEMA: readonly string[] = ['not', 'if', 'then', 'else', 'additionalProperties', 'propertyNames', 'contains', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems'];
/** Keywords holding a list of subschemas. */
export const SUBSCHEMA_LIST: readonly string[] = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
/** Keywords holding a map of subschemas. */
export const SUBSCHEMA_MAP: readonly string[] = ['properties', 'patternProperties', 'dependentSchemas'];
// Besides these: `items` (one subschema, or a list of them) and `dependencies` (each value a subschema or a
// list of property names).
