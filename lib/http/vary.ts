// The Vary field of an answer that also depends on one more request field (Origin, Accept-Encoding).

/** A Vary value with `name` in it: added once, and not at all when `*` already covers every field. */
export function withVary(vary: unknown, name: string): string {
  if (vary === undefined || vary === null || vary === '') return name;
  const text = Array.isArray(vary) ? vary.join(', ') : String(vary);
  const listed = text.split(',').map((v) => v.trim().toLowerCase());
  return listed.includes('*') || listed.includes(name.toLowerCase()) ? text : `${text}, ${name}`;
}
