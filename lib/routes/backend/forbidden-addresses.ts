// Addresses no backend lives at, that a redirect is never followed to (redirect-guard.ts): link-local
// (169.254.0.0/16, fe80::/10, where clouds serve instance credentials), the metadata addresses, unspecified,
// broadcast and multicast. The URL parser has already turned every IPv4 spelling (hex, octal, one decimal
// number, short forms) into a dotted quad; an IPv6 address that carries an IPv4 one (mapped, compatible,
// NAT64) is judged by that address. Also the `redirectOrigins` option, which may not list such an address.
import { isIP } from 'node:net';

/** Metadata services outside 169.254.0.0/16: AWS over IPv6, Alibaba Cloud. */
const METADATA_V4 = new Set([ipv4Number('100.100.100.200')]);
const METADATA_V6 = 'fd00:ec2::254';

/** Why a request may never be sent to `address` (an IPv4 or IPv6 literal); undefined when it may, or when it is not an address. */
export function forbiddenAddress(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(bare);
  if (family === 4) return forbiddenIpv4(ipv4Number(bare));
  if (family !== 6) return undefined;
  const words = ipv6Words(bare);
  const embedded = embeddedIpv4(words);
  if (embedded !== undefined) return forbiddenIpv4(embedded);
  if (words.every((w) => w === 0)) return 'the unspecified address';
  if ((words[0]! & 0xffc0) === 0xfe80) return 'a link-local address';
  if (words.join(':') === ipv6Words(METADATA_V6).join(':')) return 'a cloud metadata address';
  if ((words[0]! & 0xff00) === 0xff00) return 'a multicast address';
  return undefined;
}

function forbiddenIpv4(n: number): string | undefined {
  if (n >>> 24 === 0) return 'the unspecified address';
  if (n >>> 16 === 0xa9fe) return n === ipv4Number('169.254.169.254') || n === ipv4Number('169.254.170.2') ? 'a cloud metadata address' : 'a link-local address';
  if (METADATA_V4.has(n)) return 'a cloud metadata address';
  if (n === 0xffffffff) return 'the broadcast address';
  if (n >>> 28 === 0xe) return 'a multicast address';
  return undefined;
}

function ipv4Number(dotted: string): number {
  return dotted.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** The eight 16-bit words of a valid IPv6 literal (`::` expanded, a trailing dotted quad as two words). */
function ipv6Words(text: string): number[] {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  let hex = text;
  if (dotted !== null) {
    const n = ipv4Number(dotted[1]!);
    hex = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = hex.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

/** The IPv4 address an IPv6 one stands for: ::ffff:a.b.c.d (mapped), ::a.b.c.d (compatible), 64:ff9b::a.b.c.d (NAT64). */
function embeddedIpv4(w: number[]): number | undefined {
  const zeros = (from: number, to: number): boolean => w.slice(from, to).every((x) => x === 0);
  const mapped = zeros(0, 5) && w[5] === 0xffff;
  const compatible = zeros(0, 6) && (w[6] !== 0 || w[7]! > 1);
  const nat64 = w[0] === 0x64 && w[1] === 0xff9b && zeros(2, 6);
  return mapped || compatible || nat64 ? (w[6]! << 16 | w[7]!) >>> 0 : undefined;
}

/** `svc.backend.redirectOrigins` / the `redirectOrigins` endpoint option: comma-separated http(s) origins. Throws naming a bad entry. */
export function parseRedirectOrigins(value: string): ReadonlySet<string> {
  const origins = new Set<string>();
  for (const entry of value.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const url = URL.canParse(entry) ? new URL(entry) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '') {
      throw new Error(`redirectOrigins: ${JSON.stringify(entry)} is not an origin; allowed: http(s)://host[:port] separated by commas`);
    }
    const forbidden = forbiddenAddress(url.hostname);
    if (forbidden !== undefined) throw new Error(`redirectOrigins: ${url.origin} is ${forbidden}, which a redirect never goes to`);
    origins.add(url.origin);
  }
  return origins;
}
