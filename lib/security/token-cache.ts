// Verified tokens by their text, until they expire: each distinct token is verified once (a signature check
// costs more than the rest of a request). Bounded: when full, the oldest entry makes room.

interface Entry<V> {
  value: V;
  /** Epoch ms after which the entry is no longer valid. */
  until: number;
}

export class TokenCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(private readonly capacity: number) {}

  get(token: string, now: number): V | undefined {
    const entry = this.entries.get(token);
    if (entry === undefined) return undefined;
    if (now < entry.until) return entry.value;
    this.entries.delete(token);
    return undefined;
  }

  set(token: string, value: V, until: number): void {
    if (this.entries.size >= this.capacity && !this.entries.has(token)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(token, { value, until });
  }

  get size(): number {
    return this.entries.size;
  }
}
