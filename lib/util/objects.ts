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
