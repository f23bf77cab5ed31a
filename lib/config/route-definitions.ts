// Route definitions as the configuration holds them (what the YAML and XML DSLs and the fluent API produce);
// lib/routes/steps.ts compiles them into step functions.
import type { Exchange } from '../message/exchange.js';

export type Expression = { constant: unknown } | { simple: string } | { json: unknown } | ((ex: Exchange) => unknown);

export type StepDefinition =
  | { kind: 'process'; fn: (ex: Exchange) => unknown }
  | { kind: 'setBody'; expression: Expression }
  | { kind: 'setHeader'; name: string; expression: Expression }
  | { kind: 'removeHeader'; name: string }
  | { kind: 'setProperty'; name: string; expression: Expression }
  | { kind: 'log'; message: string; loggerName?: string | undefined }
  | { kind: 'to'; uri: string; parameters?: Record<string, unknown> | undefined }
  | { kind: 'circuitBreaker'; configuration?: Record<string, unknown> | undefined; steps: StepDefinition[]; onFallback?: StepDefinition[] | undefined }
  | { kind: 'loadBalance'; strategy: Strategy; steps: StepDefinition[] };

/** How a `loadBalance` step picks among its endpoints (lib/routes/load-balance.ts). */
export type Strategy = { kind: 'roundRobin' } | { kind: 'random' } | { kind: 'weighted'; ratios: number[] } | { kind: 'failover'; maximumFailoverAttempts: number };

export interface RouteDefinition {
  /** `direct:<name>`. */
  from: string;
  steps: StepDefinition[];
  /** The file (or `fluent`) the route came from, for messages. */
  source: string;
}
