// The in-process `direct:` bus: one consumer per endpoint name, called synchronously when it can be.
import { Errors, svcError } from '../util/errors.js';
import type { Exchange } from '../message/exchange.js';

export interface Route {
  /** The endpoint name after `direct:`. */
  name: string;
  /** Where the route was defined (a file name, or `fluent`), for messages. */
  source: string;
  /** Runs the route; returns a promise only when a step is asynchronous. */
  run(ex: Exchange): void | Promise<void>;
  /**
   * The route ends by forwarding the client's body to a backend and no earlier step reads it: the runtime
   * may hand it the request as a stream instead of reading it first.
   */
  streamsRequestBody?: boolean;
}

export class DirectBus {
  private readonly routes = new Map<string, Route>();

  register(route: Route): void {
    const twin = this.routes.get(route.name);
    if (twin) throw svcError(Errors.DUPLICATE_ROUTE, `direct:${route.name}`, twin.source, route.source);
    this.routes.set(route.name, route);
  }

  has(name: string): boolean {
    return this.routes.has(name);
  }

  get(name: string): Route | undefined {
    return this.routes.get(name);
  }

  call(name: string, ex: Exchange): void | Promise<void> {
    const route = this.routes.get(name);
    if (!route) throw svcError(Errors.NO_ROUTE, name);
    return route.run(ex);
  }
}
