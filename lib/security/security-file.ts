// The line files of svc.security.* (API keys, htpasswd users): read once at startup (and on reload), blank
// lines and `#` comments skipped. Errors name the option, the file and the line, never the line's text,
// which holds a secret.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Errors, SvcError, svcError } from '../util/errors.js';

export interface SecurityFile {
  /** The file's absolute path. */
  path: string;
  /** Its lines that hold an entry, trimmed, with their 1-based numbers. */
  entries: { text: string; number: number }[];
  /** The startup error for an entry. */
  invalid(number: number, reason: string): SvcError;
  /** The startup error for the whole file. */
  unusable(reason: string): SvcError;
}

export function readSecurityFile(option: string, file: string, baseDir: string): SecurityFile {
  const path = resolve(baseDir, file);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw svcError(Errors.SECURITY_FILE, option, path, (err as Error).message);
  }
  const entries: SecurityFile['entries'] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line !== '' && !line.startsWith('#')) entries.push({ text: line, number: i + 1 });
  });
  return {
    path,
    entries,
    invalid: (number, reason) => svcError(Errors.SECURITY_FILE, option, `${path} line ${number}`, reason),
    unusable: (reason) => svcError(Errors.SECURITY_FILE, option, path, reason),
  };
}
