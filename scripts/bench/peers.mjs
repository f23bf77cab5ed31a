// The bench's peers (Fastify and its plugins, ...) live in their own package under scripts/bench/peers/, so
// `npm install && npm start` stays lean: they are installed there on demand, the first time a bench needs them.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const PEERS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'peers');

/** Installs the peers package's dependencies unless all of them are there already (one added later counts). */
export function ensurePeers() {
  const { dependencies } = JSON.parse(readFileSync(join(PEERS_DIR, 'package.json'), 'utf8'));
  if (Object.keys(dependencies).every((name) => existsSync(join(PEERS_DIR, 'node_modules', name, 'package.json')))) return;
  console.log('bench: installing the peers (scripts/bench/peers) ...');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: PEERS_DIR, stdio: 'inherit' });
}

/** Imports a peer package installed under scripts/bench/peers/. */
export async function importPeer(name) {
  ensurePeers();
  const resolved = createRequire(join(PEERS_DIR, 'package.json')).resolve(name);
  return import(pathToFileURL(resolved).href);
}
