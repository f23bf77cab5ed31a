// dist/load.js (copied there by scripts/build.mjs): runs dist/svc-facade.cjs, the one bundle the CLI
// (dist/main.js) and the API (dist/index.js) share, so that both see the same classes.
//
// Why not a plain import: compiling a megabyte of JavaScript is most of a start. The bundle goes through
// vm.Script with the V8 code cache dist/svc-facade.v8cache, which the build wrote after a warm-up (every
// function a Petstore start and its first requests compile): V8 then deserializes instead of parsing and
// compiling. A cache from another Node or V8 version, or other V8 flags, is rejected by V8 itself
// (script.cachedDataRejected); the bundle then compiles from source as usual, only slower to start.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const file = fileURLToPath(new URL('./svc-facade.cjs', import.meta.url));
const cacheFile = fileURLToPath(new URL('./svc-facade.v8cache', import.meta.url));

/** The code cache, or undefined when there is none (a build without it, SVC_CODE_CACHE=off). */
function cachedData() {
  if (process.env.SVC_CODE_CACHE === 'off') return undefined;
  try {
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

/**
 * The bundle's text, read 64 KiB at a time. One read of the whole file would malloc and free a buffer of its
 * size, and glibc then raises its mmap threshold to that size for good: later buffers below it (a big
 * contract's, YAML's) stay in the process's heap once freed instead of going back to the system (Stripe's
 * contract idled at 91 MiB instead of 88).
 */
function readSource(path) {
  const decoder = new TextDecoder();
  const chunk = Buffer.allocUnsafe(64 * 1024);
  const fd = openSync(path, 'r');
  let text = '';
  try {
    for (let n; (n = readSync(fd, chunk, 0, chunk.length, null)) > 0; ) text += decoder.decode(chunk.subarray(0, n), { stream: true });
  } finally {
    closeSync(fd);
  }
  return text + decoder.decode();
}

// The file is one function expression taking CommonJS's parameters and the host's import() (see
// lib/external-import.ts); nothing is concatenated around it.
export const script = new Script(readSource(file), { filename: file, cachedData: cachedData() });
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), (specifier) => import(specifier));

/** The bundle's exports: lib/index.ts's public API and runCli (lib/main.ts). */
export const api = module.exports;
