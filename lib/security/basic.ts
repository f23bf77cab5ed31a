// HTTP Basic credentials (RFC 7617) for the contract's `http` `basic` schemes: the form of the Authorization
// field, and, with `svc.security.basicUsers`, the user and password against an htpasswd file: bcrypt
// entries as `htpasswd -B` writes them (`$2y$`, also `$2b$`/`$2a$`), and `{SHA}` ones for compatibility.
// bcrypt is checked with bcryptjs (pure JavaScript, asynchronous, so a check never blocks the event loop);
// a verified pair is then trusted for a minute, so a client repeating its credentials pays bcrypt once.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readSecurityFile } from './security-file.js';
import { TokenCache } from './token-cache.js';

const MAX_AUTHORIZATION_LENGTH = 8192;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const BASIC = 'basic';
const CACHE_SIZE = 1000;
const CACHE_MS = 60_000;
/** Compared against when the user is unknown, so an unknown user takes as long as a wrong password. */
const UNKNOWN_USER_HASH = '$2b$10$5mxz72v.9N/ejuKEVoDcROmetKUlhdK/fSwhUU28E95Q0IFLKmctu';

export interface BasicCredentials {
  user: string;
  password: string;
}

/** The user and password of `Basic <base64(user:password)>`; undefined when the field is not of that form. */
export function basicCredentials(authorization: string): BasicCredentials | undefined {
  if (authorization.length > MAX_AUTHORIZATION_LENGTH || authorization.length < 7 || authorization.charCodeAt(5) !== 0x20) return undefined;
  for (let i = 0; i < BASIC.length; i++) if ((authorization.charCodeAt(i) | 0x20) !== BASIC.charCodeAt(i)) return undefined;
  const encoded = authorization.slice(6).trim();
  if (!BASE64.test(encoded)) return undefined;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  // RFC 7617 §2: the user-id holds no colon and no control character.
  if (colon === -1 || CONTROL.test(decoded)) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

type Entry = { kind: 'bcrypt'; hash: string } | { kind: 'sha'; digest: Buffer };

export interface BasicUsers {
  /** Resolves to true when the user is in the file and the password is its. */
  verify(credentials: BasicCredentials, authorization: string): boolean | Promise<boolean>;
}

type Bcrypt = { compare(password: string, hash: string): Promise<boolean> };
let bcrypt: Promise<Bcrypt> | undefined;
/** bcryptjs, imported once on first need (a facade without bcrypt users never loads it). */
const loadBcrypt = (): Promise<Bcrypt> => (bcrypt ??= import('bcryptjs').then((m) => (m.default ?? m) as Bcrypt));

export function readBasicUsers(file: string, baseDir: string): BasicUsers {
  const source = readSecurityFile('svc.security.basicUsers', file, baseDir);
  const users = new Map<string, Entry>();
  for (const { text: line, number } of source.entries) {
    const fail = (reason: string): never => {
      throw source.invalid(number, reason);
    };
    const colon = line.indexOf(':');
    if (colon <= 0) fail('not of the form user:hash');
    const user = line.slice(0, colon);
    const hash = line.slice(colon + 1);
    if (users.has(user)) fail(`user ${JSON.stringify(user)} is listed twice`);
    if (/^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/.test(hash)) users.set(user, { kind: 'bcrypt', hash });
    else if (/^\{SHA\}[A-Za-z0-9+/]{27}=$/.test(hash)) users.set(user, { kind: 'sha', digest: Buffer.from(hash.slice(5), 'base64') });
    else fail(`the hash of user ${JSON.stringify(user)} is neither bcrypt ($2y$, $2b$, $2a$: htpasswd -B) nor {SHA} (htpasswd -s); other formats (MD5 $apr1$, crypt, plain text) are not accepted`);
  }
  if (users.size === 0) throw source.unusable('it lists no user, so no request could be admitted');
  // Loaded now, so the first request does not wait for the import.
  void loadBcrypt();
  const verified = new TokenCache<true>(CACHE_SIZE);

  return {
    verify({ user, password }, authorization) {
      // By a digest of the field: the cache compares keys with ===, which must not time the credentials themselves.
      const key = createHash('sha256').update(authorization).digest('base64');
      const now = Date.now();
      if (verified.get(key, now) === true) return true;
      const entry = users.get(user);
      if (entry?.kind === 'sha') {
        const ok = timingSafeEqual(createHash('sha1').update(password, 'utf8').digest(), entry.digest);
        if (ok) verified.set(key, true, now + CACHE_MS);
        return ok;
      }
      const hash = entry?.hash ?? UNKNOWN_USER_HASH;
      return loadBcrypt().then(async (b) => {
        const ok = (await b.compare(password, hash)) && entry !== undefined;
        if (ok) verified.set(key, true, Date.now() + CACHE_MS);
        return ok;
      });
    },
  };
}
