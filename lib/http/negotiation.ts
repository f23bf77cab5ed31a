// Content negotiation: Accept parsing with q-values and wildcards (RFC 9110 §12.5.1), and Content-Type
// matching against declared media types. Offers are compiled once per operation; Accept strings are cached.
import { boundedMemo } from '../util/memo.js';
import { weightedItems } from './fields.js';

export interface MediaRange {
  type: string;
  subtype: string;
  q: number;
  /** 0 for `*\/*`, 1 for `type/*`, 2 for `type/subtype`, +1 with parameters. */
  specificity: number;
  params: string;
}

/** `type/subtype` lower-cased, parameters dropped. */
export function essence(mediaType: string): string {
  const semi = mediaType.indexOf(';');
  return (semi === -1 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
}

export function parseAccept(header: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const item of weightedItems(header)) {
    const [type = '', subtype = ''] = item.value.toLowerCase().split('/');
    if (!type || !subtype) continue;
    // A q that is not a number counts as none given.
    const q = Number.isNaN(item.q) ? 1 : item.q;
    const params = item.params.map(([k, v]) => `${k}=${v.replace(/^"|"$/g, '')}`);
    const specificity = (type === '*' ? 0 : subtype === '*' ? 1 : 2) + (params.length > 0 ? 1 : 0);
    out.push({ type, subtype, q, specificity, params: params.join(';') });
  }
  return out;
}

function rangeMatches(range: MediaRange, type: string, subtype: string): boolean {
  return (range.type === '*' || range.type === type || type === '*') && (range.subtype === '*' || range.subtype === subtype || subtype === '*');
}

/** The q-value the Accept ranges give a media type: that of the most specific matching range, 0 if none. */
function qualityOf(ranges: readonly MediaRange[], offer: string): number {
  const [type = '', subtype = ''] = essence(offer).split('/');
  let best: MediaRange | undefined;
  for (const r of ranges) {
    if (rangeMatches(r, type, subtype) && (!best || r.specificity > best.specificity)) best = r;
  }
  return best ? best.q : 0;
}

/**
 * Picks the offered media type the client prefers: highest q, then the server's order. Returns undefined
 * when nothing is acceptable (`q=0` excludes). A missing or empty Accept accepts the first offer.
 */
export function negotiateMediaType(accept: string | undefined, offers: readonly string[]): string | undefined {
  if (offers.length === 0) return undefined;
  if (accept === undefined || accept.trim() === '') return offers[0];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return offers[0];
  let chosen: string | undefined;
  let bestQ = 0;
  for (const offer of offers) {
    const q = qualityOf(ranges, offer);
    if (q > bestQ) [chosen, bestQ] = [offer, q];
  }
  return chosen;
}

/**
 * Every offered media type the client accepts, most preferred first: by q-value, then the server's order;
 * `q=0` and unmatched offers left out. A missing or empty Accept accepts all offers, in the server's order.
 * For answers that may not be producible in the first choice (the mock cannot encode every media type).
 */
export function rankMediaTypes(accept: string | undefined, offers: readonly string[]): string[] {
  if (accept === undefined || accept.trim() === '') return [...offers];
  const ranges = parseAccept(accept);
  if (ranges.length === 0) return [...offers];
  const ranked = offers.map((offer, index) => ({ offer, index, q: qualityOf(ranges, offer) })).filter((r) => r.q > 0);
  ranked.sort((a, b) => b.q - a.q || a.index - b.index);
  return ranked.map((r) => r.offer);
}

/** `rankMediaTypes` bound to one set of offers, remembering the last few Accept headers it saw. */
export function compileRanker(offers: readonly string[]): (accept: string | undefined) => readonly string[] {
  const rank = boundedMemo((accept) => rankMediaTypes(accept, offers));
  const all = [...offers];
  return (accept) => (accept === undefined || accept === '' ? all : rank(accept));
}

/** Does the Accept header allow this media type (q > 0)? A missing or empty Accept allows everything. */
export function acceptsMediaType(accept: string | undefined, type: string): boolean {
  return negotiateMediaType(accept, [type]) !== undefined;
}

export type Negotiator = (accept: string | undefined) => string | undefined;

/**
 * Negotiators by their offers (in order): the operations and statuses of a contract offer the same few lists
 * (GitHub's 623 operations: mostly `application/json` alone), so they share one negotiator and its memory
 * of Accept headers instead of a closure and a Map each. Bounded: full, it starts over (negotiators handed
 * out keep working).
 */
const negotiators = new Map<string, Negotiator>();
const MAX_NEGOTIATORS = 4096;

/** A negotiator for these offers, remembering the last few Accept headers it saw. */
export function compileNegotiator(offers: readonly string[]): Negotiator {
  const key = offers.join('\n');
  let negotiator = negotiators.get(key);
  if (negotiator === undefined) {
    const own = [...offers];
    const negotiate = boundedMemo((accept) => negotiateMediaType(accept, own));
    const first = own[0];
    negotiator = (accept) => (accept === undefined || accept === '' ? first : negotiate(accept));
    if (negotiators.size >= MAX_NEGOTIATORS) negotiators.clear();
    negotiators.set(key, negotiator);
  }
  return negotiator;
}

/** Does a request Content-Type match a declared media type? Parameters and case ignored; wildcards honoured. */
export function mediaTypeMatches(declared: string, actual: string): boolean {
  const [dt = '', ds = ''] = essence(declared).split('/');
  const [at = '', as = ''] = essence(actual).split('/');
  return (dt === '*' || dt === at) && (ds === '*' || ds === as || (ds.startsWith('*+') && as.endsWith(ds.slice(1))));
}

/** The first declared media type matching a Content-Type, or undefined. */
export function findDeclaredMediaType(declared: readonly string[], actual: string): string | undefined {
  return declared.find((d) => mediaTypeMatches(d, actual));
}

export function isJsonMediaType(type: string): boolean {
  const e = essence(type);
  return e === 'application/json' || e.endsWith('+json') || e === 'text/json';
}

export function isXmlMediaType(type: string): boolean {
  const e = essence(type);
  return e === 'application/xml' || e === 'text/xml' || e.endsWith('+xml');
}

export function isYamlMediaType(type: string): boolean {
  const e = essence(type);
  return e === 'application/yaml' || e === 'application/x-yaml' || e === 'text/yaml' || e === 'text/x-yaml' || e.endsWith('+yaml');
}
