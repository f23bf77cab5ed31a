// Health for probes and load balancers (`/observe/health`, `/live`, `/ready`), as MicroProfile Health and
// Camel answer it: `{"status":"UP"|"DOWN","checks":[...]}`, 200 when UP, 503 when DOWN.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { withRequestId } from '../message/request-id.js';

export type Probe = (req: IncomingMessage, res: ServerResponse) => void;

interface Check {
  name: string;
  status: 'UP' | 'DOWN';
  data?: Record<string, number>;
}

/**
 * Ready once the facade exists (the contract is loaded, every route compiled and registered); not ready
 * from the moment a graceful stop begins, while in-flight requests still finish.
 */
export class Health {
  private stopping = false;
  private readonly live: Buffer;
  private readonly up: Buffer;
  private readonly down: Buffer;

  constructor(operations: number, routes: number) {
    const checks = (shutdown: Check['status']): Check[] => [
      { name: 'contract', status: 'UP', data: { operations } },
      { name: 'routes', status: 'UP', data: { routes } },
      { name: 'shutdown', status: shutdown },
    ];
    this.live = body({ status: 'UP', checks: [{ name: 'process', status: 'UP' }] });
    this.up = body({ status: 'UP', checks: checks('UP') });
    this.down = body({ status: 'DOWN', checks: checks('DOWN') });
  }

  /** A graceful stop has begun: ready (and the overall health) answer 503 from now on. */
  drain(): void {
    this.stopping = true;
  }

  /** The three probes by path suffix: '' (overall), '/live', '/ready'. */
  probes(): Record<'' | '/live' | '/ready', Probe> {
    const readiness: Probe = (req, res) => (this.stopping ? send(req, res, 503, this.down) : send(req, res, 200, this.up));
    return { '': readiness, '/live': (req, res) => send(req, res, 200, this.live), '/ready': readiness };
  }
}

function body(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/** Answers a probe or scrape: never cached; HEAD gets the headers only. */
export function send(req: IncomingMessage, res: ServerResponse, status: number, payload: Buffer | string, type = 'application/json'): void {
  res.writeHead(status, withRequestId(res, { 'content-type': type, 'content-length': Buffer.byteLength(payload), 'cache-control': 'no-store' }));
  if (req.method === 'HEAD') res.end();
  else res.end(payload);
}
