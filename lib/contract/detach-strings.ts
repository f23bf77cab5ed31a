// A YAML parser hands out each string value as a slice of the text it read (V8 keeps a substring of 13 or
// more characters as a view of its parent), so a parsed contract holds its whole source text for as long
// as it lives: 5.8 MB for GitHub's 2.9 MB YAML description (one character outside Latin-1 makes V8 store
// all of it in two bytes a character). The long strings are copied out in one batch: a JSON round trip of
// all of them at once, native both ways, gives flat strings of their own (one byte a character where they
// fit), and the source text can be collected.

/** Shorter substrings are copies already (V8's SlicedString::kMinLength). */
const SLICED_FROM = 13;

interface Slot {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
}

/** Replaces, in place, every string value of at least SLICED_FROM characters in `doc` by a copy of its own. */
export function detachStrings(doc: unknown): void {
  const slots: Slot[] = [];
  const values: string[] = [];
  const stack: unknown[] = [doc];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) visit(node, i, node[i]);
    } else if (node !== null && typeof node === 'object') {
      for (const key of Object.keys(node)) visit(node as Record<string, unknown>, key, (node as Record<string, unknown>)[key]);
    }
  }
  function visit(holder: Slot['holder'], key: string | number, value: unknown): void {
    if (typeof value === 'string') {
      if (value.length < SLICED_FROM) return;
      slots.push({ holder, key });
      values.push(value);
    } else if (value !== null && typeof value === 'object') stack.push(value);
  }
  if (values.length === 0) return;
  const copies = JSON.parse(JSON.stringify(values)) as string[];
  for (let i = 0; i < slots.length; i++) {
    const { holder, key } = slots[i]!;
    (holder as Record<string | number, unknown>)[key] = copies[i];
  }
}
