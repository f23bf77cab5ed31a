// Where a request's credentials are, for the contract's security schemes: the Authorization field (already
// taken off the request, lib/http/credentials.ts), other header fields, query parameters and cookies, each
// parsed at most once per request and only when a scheme asks.
import type { IncomingMessage } from 'node:http';
import { parseQuery, type Pairs } from '../http/query.js';
import { parseCookies } from '../parameters/parameters.js';

export class RequestCredentials {
  private queryPairs: Pairs | undefined;
  private cookiePairs: Pairs | undefined;

  constructor(
    /** The Authorization field(s): a list when the client sent several. */
    readonly authorization: string | readonly string[] | undefined,
    readonly req: IncomingMessage,
  ) {}

  /** A header field by its lower-cased name: a list when sent several times. */
  header(name: string): string | readonly string[] | undefined {
    return name === 'authorization' ? this.authorization : this.req.headers[name];
  }

  /** The first value of a query parameter. */
  query(name: string): string | undefined {
    if (this.queryPairs === undefined) {
      const url = this.req.url ?? '';
      const q = url.indexOf('?');
      this.queryPairs = parseQuery(q === -1 ? '' : url.slice(q + 1));
    }
    return this.queryPairs.find(([n]) => n === name)?.[1];
  }

  /** The first value of a cookie. */
  cookie(name: string): string | undefined {
    const header = this.req.headers.cookie;
    this.cookiePairs ??= parseCookies(Array.isArray(header) ? header.join('; ') : header);
    return this.cookiePairs.find(([n]) => n === name)?.[1];
  }
}
