// Where followRedirects may lead (server-side request forgery), once its origin is allowed (redirects.ts):
// never to an address no backend lives at (forbidden-addresses.ts). A host name is resolved here, every
// address it resolves to is judged, and the request connects to the address judged: a DNS answer that
// changes later (rebinding) is never asked.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { forbiddenAddress } from './forbidden-addresses.js';
import type { Hop } from './redirects.js';

/** dns.lookup with `all`: every address of a name (a parameter so the rebinding check can be tested). */
export type Lookup = (hostname: string, callback: (err: Error | null, addresses: LookupAddress[]) => void) => void;

const systemLookup: Lookup = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

/**
 * The hop to another (allowed) origin made to connect to an address judged here: an IP literal at once, a
 * host name once resolved (every address it has is judged; the first is used). A string says why not.
 */
export function checkedHop(hop: Hop, lookup: Lookup = systemLookup): Hop | string | Promise<Hop | string> {
  const { hostname } = hop.endpoint;
  if (isIP(hostname) !== 0) return refusedAddress(hostname) ?? hop;
  return new Promise((resolve) => {
    lookup(hostname, (err, addresses) => {
      if (err !== null || addresses.length === 0) return resolve(`${hostname} does not resolve (${(err as NodeJS.ErrnoException | null)?.code ?? 'no address'})`);
      for (const { address } of addresses) {
        const forbidden = forbiddenAddress(address);
        if (forbidden !== undefined) return resolve(`${hostname} resolves to ${address}, ${forbidden}`);
      }
      const address = addresses[0]!.address;
      const literal = isIP(address) === 6 ? `[${address}]` : address;
      resolve({ ...hop, endpoint: { ...hop.endpoint, connectOrigin: `${hop.endpoint.https ? 'https' : 'http'}://${literal}:${hop.endpoint.port}` } });
    });
  });
}

function refusedAddress(address: string): string | undefined {
  const forbidden = forbiddenAddress(address);
  return forbidden === undefined ? undefined : `${address} is ${forbidden}`;
}
