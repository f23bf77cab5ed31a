// The facade's metrics (Prometheus text at `svc.observe.metricsPath`). Counting is on the request path, so
// every label set is rendered once at startup and every count is a plain number field; the text is made
// only when scraped.
import cluster from 'node:cluster';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Exposition, Histogram, labelValue } from '../util/exposition.js';

const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];

/**
 * Each `node:cluster` worker counts its own requests: its series carry `worker="<id>"`, so the series of
 * different workers never mix when one scrape reaches one worker and the next another.
 */
const WORKER_LABEL = cluster.isWorker && cluster.worker !== undefined ? `worker="${cluster.worker.id}"` : '';

const withWorker = (labels: string): string => (WORKER_LABEL === '' ? labels : labels === '' ? WORKER_LABEL : `${labels},${WORKER_LABEL}`);

/** One operation's counters; its labels (`operationId`, `method`) are rendered once. */
export class OperationMetrics {
  readonly labels: string;
  /** Answered requests by status class (index 0 = 1xx ... 4 = 5xx). */
  readonly requests = [0, 0, 0, 0, 0];
  /** Duration histograms by status class, made on the first answer of that class. */
  readonly durations: (Histogram | undefined)[] = [undefined, undefined, undefined, undefined, undefined];
  private readonly classLabels: readonly string[];
  requestBytes = 0;
  responseBytes = 0;
  rejections = 0;
  /** Requests refused (500) because a schema they need could not be compiled: never let through unchecked. */
  uncompilable = 0;
  mockAnswers = 0;

  constructor(operationId: string, method: string) {
    this.labels = withWorker(`operationId="${labelValue(operationId)}",method="${method}"`);
    this.classLabels = STATUS_CLASSES.map((c) => `${this.labels},status_class="${c}"`);
  }

  answered(status: number, seconds: number, bytes: number): void {
    const c = status >= 100 && status < 600 ? ((status / 100) | 0) - 1 : 4;
    this.requests[c]!++;
    (this.durations[c] ??= new Histogram()).observe(seconds);
    this.responseBytes += bytes;
  }

  /** Adds this operation's samples of one family (only classes it has answered). */
  byClass(out: Exposition, name: string, sample: (c: number) => number | Histogram): void {
    for (let c = 0; c < STATUS_CLASSES.length; c++) {
      if (this.requests[c] === 0) continue;
      const value = sample(c);
      if (typeof value === 'number') out.sample(name, this.classLabels[c]!, value);
      else out.histogram(name, this.classLabels[c]!, value);
    }
  }
}

/**
 * The event-loop monitor's timer interval. Node records the whole time between two of its firings, so an
 * idle loop reads as this interval; the exposition subtracts it (how late the timer fired is the delay).
 */
const LOOP_DELAY_RESOLUTION_MS = 20;

export class FacadeMetrics {
  inFlight = 0;
  /** Requests whose client went away before the answer. */
  aborted = 0;
  notFound = 0;
  methodNotAllowed = 0;
  private readonly operations: OperationMetrics[] = [];
  private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
  private readonly startTime = Math.round(Date.now() / 1000 - process.uptime());
  /** Families of the listeners (TLS certificates), which outlive a version's metrics across reloads. */
  private readonly listenerFamilies: ((out: Exposition) => void)[] = [];
  /** More families rendered with every scrape (the backends', backend-metrics.ts), given the worker label. */
  readonly families: ((out: Exposition, withWorkerLabel: (labels: string) => string) => void)[] = [];

  constructor() {
    this.loopDelay.enable();
  }

  operation(operationId: string, method: string): OperationMetrics {
    const m = new OperationMetrics(operationId, method);
    this.operations.push(m);
    return m;
  }

  stop(): void {
    this.loopDelay.disable();
  }

  addListenerFamilies(write: (out: Exposition) => void): void {
    this.listenerFamilies.push(write);
  }

  /** The exposition text: every family always present; per-operation series once an operation has answered. */
  render(): string {
    const out = new Exposition();
    const ops = this.operations.filter((m) => m.requests.some((n) => n > 0));
    out.family('svc_http_requests_total', 'counter', 'Requests answered, by operation, method and status class.');
    for (const m of ops) m.byClass(out, 'svc_http_requests_total', (c) => m.requests[c]!);
    out.family('svc_http_request_duration_seconds', 'histogram', 'Time from the request reaching the operation to the end of the answer.');
    for (const m of ops) m.byClass(out, 'svc_http_request_duration_seconds', (c) => m.durations[c]!);
    out.family('svc_http_request_body_bytes_total', 'counter', 'Request body bytes read, by operation.');
    for (const m of ops) out.sample('svc_http_request_body_bytes_total', m.labels, m.requestBytes);
    out.family('svc_http_response_body_bytes_total', 'counter', 'Response body bytes sent, by operation.');
    for (const m of ops) out.sample('svc_http_response_body_bytes_total', m.labels, m.responseBytes);
    out.family('svc_validation_rejections_total', 'counter', 'Requests rejected by request validation (400, 406, 415), by operation.');
    for (const m of ops) if (m.rejections > 0) out.sample('svc_validation_rejections_total', m.labels, m.rejections);
    out.family('svc_validation_uncompilable_total', 'counter', 'Requests refused with 500 because a schema of the contract they need cannot be compiled, by operation.');
    for (const m of ops) if (m.uncompilable > 0) out.sample('svc_validation_uncompilable_total', m.labels, m.uncompilable);
    out.family('svc_mock_answers_total', 'counter', 'Requests answered by the mock, by operation.');
    for (const m of ops) if (m.mockAnswers > 0) out.sample('svc_mock_answers_total', m.labels, m.mockAnswers);
    out.family('svc_http_requests_in_flight', 'gauge', 'Requests being served by an operation right now.').sample('svc_http_requests_in_flight', WORKER_LABEL, this.inFlight);
    out.family('svc_http_requests_aborted_total', 'counter', 'Requests whose client closed the connection before the answer.');
    out.sample('svc_http_requests_aborted_total', WORKER_LABEL, this.aborted);
    out.family('svc_http_unmatched_requests_total', 'counter', 'Requests no operation answers: unknown path (404) or method (405).');
    out.sample('svc_http_unmatched_requests_total', withWorker('status="404"'), this.notFound);
    out.sample('svc_http_unmatched_requests_total', withWorker('status="405"'), this.methodNotAllowed);
    for (const write of this.listenerFamilies) write(out);
    for (const add of this.families) add(out, withWorker);
    this.processFamilies(out);
    return out.text();
  }

  private processFamilies(out: Exposition): void {
    const memory = process.memoryUsage();
    const cpu = process.cpuUsage();
    const w = WORKER_LABEL;
    out.family('process_resident_memory_bytes', 'gauge', 'Resident set size in bytes.').sample('process_resident_memory_bytes', w, memory.rss);
    out.family('nodejs_heap_size_used_bytes', 'gauge', 'V8 heap in use, in bytes.').sample('nodejs_heap_size_used_bytes', w, memory.heapUsed);
    out.family('nodejs_heap_size_total_bytes', 'gauge', 'V8 heap reserved, in bytes.').sample('nodejs_heap_size_total_bytes', w, memory.heapTotal);
    out.family('process_cpu_seconds_total', 'counter', 'User and system CPU time spent, in seconds.').sample('process_cpu_seconds_total', w, (cpu.user + cpu.system) / 1e6);
    out.family('process_start_time_seconds', 'gauge', 'Start time of the process since the Unix epoch, in seconds.').sample('process_start_time_seconds', w, this.startTime);
    // Event-loop delay since the previous scrape (sampled every 20 ms), then the histogram starts over.
    const d = this.loopDelay;
    const seconds = (ns: number): number => (Number.isFinite(ns) ? Math.max(0, ns - LOOP_DELAY_RESOLUTION_MS * 1e6) / 1e9 : 0);
    for (const [name, help, value] of [
      ['nodejs_eventloop_delay_p50_seconds', 'Median event-loop delay since the previous scrape.', d.percentile(50)],
      ['nodejs_eventloop_delay_p99_seconds', '99th percentile event-loop delay since the previous scrape.', d.percentile(99)],
      ['nodejs_eventloop_delay_max_seconds', 'Largest event-loop delay since the previous scrape.', d.max],
    ] as const) {
      out.family(name, 'gauge', help).sample(name, w, d.count === 0 ? 0 : seconds(value));
    }
    d.reset();
  }
}
