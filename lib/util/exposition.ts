// A small writer for the Prometheus text exposition format (version 0.0.4) and the one histogram shape we
// need: buckets fixed at startup, counts kept as plain numbers so observing allocates nothing.

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/** Request duration buckets in seconds (the usual HTTP server buckets, from 1 ms to 10 s). */
export const DURATION_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class Histogram {
  /** Observations per bucket (not cumulative; the writer adds them up); the last slot is +Inf. */
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly buckets: readonly number[] = DURATION_BUCKETS) {
    this.counts = new Float64Array(buckets.length + 1);
  }

  observe(value: number): void {
    const { buckets } = this;
    let i = 0;
    while (i < buckets.length && value > buckets[i]!) i++;
    this.counts[i]!++;
    this.sum += value;
    this.count++;
  }
}

/** A label value as the format wants it: backslash, double quote and line feed escaped. */
export function labelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => (c === '\n' ? '\\n' : `\\${c}`));
}

/** `name{a="x",b="y"}`, the labels given already rendered (`a="x",b="y"`), possibly empty. */
function series(name: string, labels: string): string {
  return labels === '' ? name : `${name}{${labels}}`;
}

/** Collects the lines of one scrape, one metric family after the other. Values are finite numbers (counts, bytes, seconds). */
export class Exposition {
  private readonly lines: string[] = [];

  family(name: string, type: 'counter' | 'gauge' | 'histogram', help: string): this {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    return this;
  }

  sample(name: string, labels: string, value: number): this {
    this.lines.push(`${series(name, labels)} ${value}`);
    return this;
  }

  histogram(name: string, labels: string, h: Histogram): this {
    const sep = labels === '' ? '' : ',';
    let cumulative = 0;
    for (let i = 0; i < h.buckets.length; i++) {
      cumulative += h.counts[i]!;
      this.lines.push(`${name}_bucket{${labels}${sep}le="${h.buckets[i]}"} ${cumulative}`);
    }
    this.lines.push(`${name}_bucket{${labels}${sep}le="+Inf"} ${h.count}`);
    this.lines.push(`${series(`${name}_sum`, labels)} ${h.sum}`);
    this.lines.push(`${series(`${name}_count`, labels)} ${h.count}`);
    return this;
  }

  text(): string {
    return `${this.lines.join('\n')}\n`;
  }
}
