// The mock's own seeded generator (sfc32, a small fast counter-based PRNG): the same seed gives the same
// sequence on every platform and every run, so `Prefer: dynamic=true, seed=42` repeats across restarts.
// Not for anything secret.

export class Random {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  /** A seed is any string or number; it is hashed (cyrb128) into the four 32-bit words of the state. */
  constructor(seed: string | number) {
    const text = String(seed);
    let h1 = 1779033703;
    let h2 = 3144134277;
    let h3 = 1013904242;
    let h4 = 2773480762;
    for (let i = 0; i < text.length; i++) {
      const k = text.charCodeAt(i);
      h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
      h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
      h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
      h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
    }
    h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
    h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
    h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
    h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
    this.a = (h1 ^ h2 ^ h3 ^ h4) >>> 0;
    this.b = (h2 ^ h1) >>> 0;
    this.c = (h3 ^ h1) >>> 0;
    this.d = (h4 ^ h1) >>> 0;
    for (let i = 0; i < 12; i++) this.next(); // mix the state before the first value is used
  }

  /** A uniform 32-bit unsigned integer. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** An integer in [min, max] (both inclusive; the span may exceed 2^32 up to safe integers). */
  int(min: number, max: number): number {
    if (max <= min) return min;
    const span = max - min + 1;
    if (span <= 4294967296) return min + Math.floor(this.float() * span);
    return Math.min(max, min + Math.floor((this.next() * 4294967296 + this.next()) / 18446744073709551616 * span));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.float() < p;
  }

  pick<T>(list: readonly T[]): T {
    return list[this.int(0, list.length - 1)]!;
  }
}
