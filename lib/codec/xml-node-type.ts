// Which XML node a property's schema makes (the OpenAPI XML Object). OpenAPI 3.2 says it with `nodeType`
// (`element`, `attribute`, `text`, `cdata`, `none`); 3.0/3.1 with `attribute: true` and, for arrays,
// `wrapped: true`, which 3.2 still reads (deprecated: `nodeType: attribute` and `nodeType: element`).
// An explicit `nodeType` wins over both.

export type NodeType = 'element' | 'attribute' | 'text' | 'cdata' | 'none';
const NODE_TYPES: ReadonlySet<string> = new Set(['element', 'attribute', 'text', 'cdata', 'none']);

export function isNodeType(value: unknown): value is NodeType {
  return typeof value === 'string' && NODE_TYPES.has(value);
}

/**
 * How a property is carried:
 * - `attribute`: an attribute of the parent element;
 * - `text` / `cdata`: the parent element's character data (a text node, a CDATA section);
 * - `element`: its own element (for an array, the wrapper of its items);
 * - `items`: an array without wrapper, its items repeat in the parent (3.2's default `none` for arrays);
 * - `inline`: an object without element of its own, its properties' nodes sit in the parent (`none`).
 * A scalar with `none` has no node of its own either: its text is the parent's character data.
 */
export type Carriage = 'attribute' | 'text' | 'cdata' | 'element' | 'items' | 'inline';

export function carriageOf(hints: { nodeType?: NodeType; attribute?: boolean; wrapped?: boolean }, kind: string, hasProperties: boolean): Carriage {
  const { nodeType } = hints;
  if (nodeType === 'attribute' || (nodeType === undefined && hints.attribute === true)) return 'attribute';
  if (kind === 'array') return nodeType === 'element' || (nodeType === undefined && hints.wrapped === true) ? 'element' : 'items';
  if (nodeType === 'text' || nodeType === 'cdata') return nodeType;
  if (nodeType === 'none') return kind === 'object' || hasProperties ? 'inline' : 'text';
  return 'element';
}

/** A CDATA section holding `text`; a `]]>` inside is split across two sections, as XML requires. */
export function cdataSection(text: string): string {
  return `<![CDATA[${text.replace(/]]>/g, ']]]]><![CDATA[>')}]]>`;
}
