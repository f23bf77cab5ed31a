// Answers worked out once per key and remembered. Most keys are request header values (Content-Type,
// Accept) that a client chooses freely, so the memory is bounded: full, it starts over.

const MAX_REMEMBERED = 64;

/**
 * `compute` with its answers remembered by key (undefined answers included), at most 64 at a time. The Map
 * is made on the first call: a large contract compiles thousands of these, most for operations never called.
 */
export function boundedMemo<T>(compute: (key: string) => T): (key: string) => T {
  let remembered: Map<string, T> | undefined;
  return (key) => {
    remembered ??= new Map<string, T>();
    let value = remembered.get(key);
    if (value === undefined && !remembered.has(key)) {
      value = compute(key);
      if (remembered.size >= MAX_REMEMBERED) remembered.clear();
      remembered.set(key, value);
    }
    return value as T;
  };
}
