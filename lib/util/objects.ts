// Building objects from untrusted keys (JSON, XML, forms, query strings).

/** Sets `key` as an own data property, so a key named `__proto__` never replaces the object's prototype. */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** Freezes a value and everything it holds (values handed to routes and tokens' claims stay as built). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Keys a parsed body must not keep: code that merges the body into another object could reach a prototype. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
/** Byte strings whose presence in a body means it may hold a forbidden key (a `\\u` escape could spell one in JSON). */
const FORBIDDEN_KEY_HINTS = ['__proto__', 'constructor', 'prototype', '\\u'];

/**
 * Removes `__proto__`, `constructor` and `prototype` keys from a parsed body (JSON.parse and the XML codec
 * create them as own properties; code that merges the body into another object could otherwise reach a
 * prototype). Only walks when the body text could hold one; iterative, so depth is no concern.
 */
export function dropForbiddenKeys(value: unknown, raw: Buffer): void {
  if (!FORBIDDEN_KEY_HINTS.some((hint) => raw.includes(hint))) return;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next !== 'object') continue;
    const node = next as Record<string, unknown>;
    for (const key of Object.keys(node)) {
      if (FORBIDDEN_KEYS.has(key)) delete node[key];
      else pending.push(node[key]);
    }
  }
}
