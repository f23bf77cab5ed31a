// forwardPath: the request path appended to the endpoint's, refused when some common backend would resolve
// one of its segments as `.` or `..` (and so reach another of its operations) or split it in two.
import { Errors, svcError } from '../../util/errors.js';

/** Paths with none of these characters (dots, escapes, `;`, `\`, non-ASCII bytes) have no segment a backend could read as a dot segment: the hot path. */
const MAYBE_UNSAFE = /[.%;\\\x80-\uffff]/;
/** How many times a segment is percent-decoded at most (a proxy and an application each decoding once is the usual flaw). */
const MAX_DECODINGS = 4;

/** The request path (after the base path) to append to the endpoint's path; throws the 400 when a segment is unsafe. */
export function forwardablePath(path: string): string {
  if (!MAYBE_UNSAFE.test(path)) return path;
  for (const segment of path.split('/')) if (isUnsafeSegment(segment)) throw svcError(Errors.FORWARD_PATH_UNSAFE);
  return path;
}

/**
 * A segment as each common backend may read it. Every percent-decoding of it (once, twice, ... as
 * double-decoding servers do, `%uXXXX` as IIS does) is looked at, each whole and cut at its first `;`
 * (Tomcat, Jetty and Spring drop path parameters — `..;jsessionid=x` — before resolving dot segments, some
 * before decoding and some after), `?` or `#` (`..%3f`: a server that decodes before it splits the target).
 * Unsafe: any form that is only dots (with blanks Windows servers trim: `..`, `.`, `...`, `.. `), holds a
 * `/` or `\` (a segment split in two) or a NUL (where C-based servers stop reading); or, read as UTF-8, has
 * an overlong form (`%c0%ae`) or turns into one of these under Unicode normalization (NFKC: `．．`, fullwidth
 * dots, sent raw or escaped).
 */
function isUnsafeSegment(segment: string): boolean {
  let text = segment;
  for (let round = 0; ; round++) {
    if (resolvesAway(text) || (NON_ASCII.test(text) && resolvesAwayAsUnicode(Buffer.from(text, 'latin1')))) return true;
    if (!text.includes('%')) return false;
    // Still escaped after this many decodings: nothing legitimate is, so it is refused rather than guessed at.
    if (round === MAX_DECODINGS) return true;
    const bytes = percentDecodedBytes(text);
    if (bytes === undefined) return false;
    text = bytes.toString('latin1');
  }
}

/** The request target's bytes arrive as Latin-1 text: a character above 0x7F is a byte of some encoding. */
const NON_ASCII = /[^\0-\x7f]/;

/** One reading of a segment: a dot segment (whole or before its path parameters), or a segment split in two (or cut at a NUL). */
function resolvesAway(text: string): boolean {
  return isDotLike(text) || isDotLike(pathParametersDropped(text)) || /[/\\\0]/.test(text);
}

/** The bytes read as UTF-8, as Unicode-normalizing (and overlong-tolerant) servers read them. */
function resolvesAwayAsUnicode(bytes: Buffer): boolean {
  return hasOverlongForm(bytes) || resolvesAway(bytes.toString('utf8').normalize('NFKC'));
}

/** The segment up to its path parameters (`;`), or up to a `?` or `#` a server that decodes first would cut at. */
function pathParametersDropped(text: string): string {
  const cut = text.search(/[;?#]/);
  return cut === -1 ? text : text.slice(0, cut);
}

/** Only dots, with blanks around them that Windows and IIS trim: at least one dot. */
function isDotLike(text: string): boolean {
  return /^[.\s]*\.[.\s]*$/.test(text);
}

const ESCAPE = /%u([0-9a-f]{4})|%([0-9a-f]{2})/gi;

/** `%XX` (and IIS's `%uXXXX`) replaced by their bytes, a malformed `%` kept as it is; undefined when nothing was decoded. */
function percentDecodedBytes(text: string): Buffer | undefined {
  let decoded = false;
  const latin1 = text.replace(ESCAPE, (_m, wide: string | undefined, byte: string | undefined) => {
    decoded = true;
    if (byte !== undefined) return String.fromCharCode(parseInt(byte, 16));
    // A %u escape names a code point: IIS maps look-alikes (U+FF0E fullwidth dot, U+2024) to ASCII much as
    // NFKC does; anything that stays beyond Latin-1 becomes a stand-in that spells nothing.
    const char = String.fromCharCode(parseInt(wide!, 16)).normalize('NFKC');
    return /^[\0-\xff]+$/.test(char) ? char : '\xff';
  });
  return decoded ? Buffer.from(latin1, 'latin1') : undefined;
}

/**
 * Overlong UTF-8 (RFC 3629 §10): `C0`/`C1` leads, `E0` followed by `80`–`9F`, `F0` followed by `80`–`8F`.
 * Never valid, so no legitimate client sends them; lenient decoders read `%c0%ae` as `.` and `%c0%af` as `/`.
 */
function hasOverlongForm(bytes: Buffer): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0xc0 || b === 0xc1) return true;
    const next = bytes[i + 1] ?? 0;
    if ((b === 0xe0 && next >= 0x80 && next <= 0x9f) || (b === 0xf0 && next >= 0x80 && next <= 0x8f)) return true;
  }
  return false;
}
