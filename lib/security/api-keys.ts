// The API keys of `svc.security.apiKeys`: a file with one key per line, optionally named (`principal: key`),
// each as given or as `sha256:<hex>` (so the file need not hold the keys themselves). Read once at startup.
// A presented key is hashed and compared with every stored digest in constant time: how long the check
// takes tells nothing about which key, or how much of one, matched. A kept-alive client sends the same key
// with every request, so each connection remembers the last key it presented and what it was found to be:
// the next request's key is compared with it (in constant time too, since one connection from a proxy may
// carry several clients' keys), and hashed only when it differs.
import { createHash, timingSafeEqual } from 'node:crypto';
import { readSecurityFile } from './security-file.js';

interface StoredKey {
  digest: Buffer;
  principal: string | undefined;
}

const SHA256_KEY = /^sha256:[0-9a-fA-F]{64}$/;

export interface ApiKeys {
  /** The file, for messages. */
  readonly file: string;
  /**
   * Whether the key is one of the file's; with the principal it names, if any. `connection` (the request's
   * socket) remembers the answer for the next request on it.
   */
  match(key: string, connection?: object): KeyMatch | undefined;
}

export interface KeyMatch {
  principal: string | undefined;
}

/** Keys of at most this many characters are remembered per connection; longer ones are hashed every time. */
const REMEMBERED_KEY_LENGTH = 64;
const LAST_KEY = Symbol('svc.apiKeys.last');

interface LastKey {
  keys: ApiKeys;
  /** The key, padded with NULs to REMEMBERED_KEY_LENGTH characters. */
  padded: string;
  length: number;
  found: KeyMatch | undefined;
}

type RememberingConnection = { [LAST_KEY]?: LastKey };

/**
 * Whether a presented key (at most REMEMBERED_KEY_LENGTH characters) is the remembered one, in a time that
 * does not depend on the remembered key: every position of it is compared, and the lengths too. Only the
 * presented key's own length (its sender knows it) decides where it reads as padding.
 */
function isLastKey(last: LastKey, key: string): boolean {
  let diff = last.length ^ key.length;
  for (let i = 0; i < REMEMBERED_KEY_LENGTH; i++) diff |= (i < key.length ? key.charCodeAt(i) : 0) ^ last.padded.charCodeAt(i);
  return diff === 0;
}

export function readApiKeys(file: string, baseDir: string): ApiKeys {
  const source = readSecurityFile('svc.security.apiKeys', file, baseDir);
  const keys: StoredKey[] = [];
  for (const { text: line, number } of source.entries) {
    const fail = (reason: string): never => {
      throw source.invalid(number, reason);
    };
    let principal: string | undefined;
    let key = line;
    if (!SHA256_KEY.test(line)) {
      const colon = line.indexOf(':');
      if (colon !== -1) {
        principal = line.slice(0, colon).trim();
        key = line.slice(colon + 1).trim();
        if (principal === '') fail('the principal before ":" is empty');
        if (key === '') fail('no key after the principal');
      }
    }
    if (key.toLowerCase().startsWith('sha256:') && !SHA256_KEY.test(key)) fail('a sha256: key needs 64 hexadecimal digits');
    const digest = SHA256_KEY.test(key) ? Buffer.from(key.slice('sha256:'.length), 'hex') : sha256(key);
    if (keys.some((k) => k.digest.equals(digest))) fail('the same key is listed twice');
    keys.push({ digest, principal });
  }
  if (keys.length === 0) throw source.unusable('it lists no key, so no request could be admitted');
  const lookUp = (key: string): KeyMatch | undefined => {
    const digest = sha256(key);
    let found: StoredKey | undefined;
    // Every stored key is compared, matched or not.
    for (const stored of keys) if (timingSafeEqual(stored.digest, digest) && found === undefined) found = stored;
    return found === undefined ? undefined : { principal: found.principal };
  };
  const apiKeys: ApiKeys = {
    file: source.path,
    match(key, connection) {
      if (connection === undefined || key.length > REMEMBERED_KEY_LENGTH) return lookUp(key);
      const last = (connection as RememberingConnection)[LAST_KEY];
      // The same key file (a reload replaces it) and the same key: the same answer.
      if (last !== undefined && last.keys === apiKeys && isLastKey(last, key)) return last.found;
      const found = lookUp(key);
      (connection as RememberingConnection)[LAST_KEY] = { keys: apiKeys, padded: key.padEnd(REMEMBERED_KEY_LENGTH, '\0'), length: key.length, found };
      return found;
    },
  };
  return apiKeys;
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
