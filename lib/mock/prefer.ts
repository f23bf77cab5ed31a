// The `Prefer` request header (RFC 7240) as the mock reads it, with Prism's preference names:
// `code=404`, `example=cat`, `dynamic=true`, `seed=42`. Preferences are separated by commas (several
// `Prefer` headers are one list); `;` parameters are read the same way, so `code=201; example=dog` works
// too. Values may be quoted; a name without a value means `true`; other preferences are ignored.

export interface Preference {
  code?: string;
  example?: string;
  /** undefined: not said (the `mockDynamic` option decides). */
  dynamic?: boolean;
  seed?: string;
}

export function parsePrefer(header: string | string[]): Preference {
  const preference: Preference = {};
  for (const part of (Array.isArray(header) ? header.join(',') : header).split(/[,;]/)) {
    const eq = part.indexOf('=');
    const name = (eq === -1 ? part : part.slice(0, eq)).trim().toLowerCase();
    const value = eq === -1 ? 'true' : part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'code') preference.code = value;
    else if (name === 'example') preference.example = value;
    else if (name === 'dynamic') preference.dynamic = value.toLowerCase() === 'true';
    else if (name === 'seed' && value !== '') preference.seed = value;
  }
  return preference;
}
