// Percent-decoding (RFC 3986 §2.1) of text that comes from outside: a malformed escape is an answer, not a throw.

/** The text with its `%XX` escapes decoded as UTF-8; undefined when one is malformed. */
export function percentDecoded(text: string): string | undefined {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
