// Answers worked out once per key and remembered. Most keys are request header values (Content-Type,
// Accept) that a client chooses freely, so the memory is bounded: full, it starts over.

const MAX_REMEMBERED = 64;

/**
 * `compute` with its answers remembered by key (undefined answers included), at most 64 at a time. The Map
 * is made on the first call: a large contract compiles thousands of these, most for operations never called.
 */
export function boundedMemo<T>(compute: (key: string) => T): (key: string) => T {
  let remembered: Map<string, T> | undefined;
  // The last key and its answer, compared before the Map: a header value is a new string on every request,
  // and comparing it with the last one is cheaper than hashing it for the lookup.
  let lastKey: string | undefined;
  let lastValue: T | undefined;
  return (key) => {
    if (key === lastKey) return lastValue as T;
    remembered ??= new Map<string, T>();
    let value = remembered.get(key);
    if (value === undefined && !remembered.has(key)) {
      value = compute(key);
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(key, value);
    }
    lastKey = key;
    lastValue = value;
    return value as T;
  };
}
