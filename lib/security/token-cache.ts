// Verified tokens by their text, until they expire: each distinct token is verified once (a signature check
// costs more than the rest of a request). Bounded: when full, the oldest entry makes room.

/**
 * Entries are found by the token's last characters (its signature) and then compared whole: hashing a
 * 700-character string for a Map costs more than the rest of the check, comparing two is cheap. Tokens that
 * share a suffix only replace each other's entry.
 */
const KEY_LENGTH = 32;

interface Entry<V> {
  token: string;
  value: V;
  /** Epoch ms after which the entry is no longer valid. */
  until: number;
}

export class TokenCache<V> {
  private readonly entries = new Map<string, Entry<V>>();

  constructor(private readonly capacity: number) {}

  get(token: string, now: number): V | undefined {
    const key = keyOf(token);
    const entry = this.entries.get(key);
    if (entry === undefined || entry.token !== token) return undefined;
    if (now < entry.until) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  set(token: string, value: V, until: number): void {
    const key = keyOf(token);
    if (this.entries.size >= this.capacity && !this.entries.has(key)) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { token, value, until });
  }

  get size(): number {
    return this.entries.size;
  }
}

function keyOf(token: string): string {
  return token.length > KEY_LENGTH ? token.slice(-KEY_LENGTH) : token;
}
