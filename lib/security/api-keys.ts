// The API keys of `svc.security.apiKeys`: a file with one key per line, optionally named (`principal: key`),
// each as given or as `sha256:<hex>` (so the file need not hold the keys themselves). Read once at startup.
// A presented key is hashed and compared with every stored digest in constant time: how long the check
// takes tells nothing about which key, or how much of one, matched.
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
  /** Whether the key is one of the file's; with the principal it names, if any. */
  match(key: string): { principal: string | undefined } | undefined;
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
  return {
    file: source.path,
    match(key) {
      const digest = sha256(key);
      let found: StoredKey | undefined;
      // Every stored key is compared, matched or not.
      for (const stored of keys) if (timingSafeEqual(stored.digest, digest) && found === undefined) found = stored;
      return found === undefined ? undefined : { principal: found.principal };
    },
  };
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
