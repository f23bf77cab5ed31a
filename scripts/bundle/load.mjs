// dist/load.js (copied there by scripts/build.mjs): runs dist/svc-facade.cjs, the one bundle the CLI
// (dist/main.js) and the API (dist/index.js) share, so that both see the same classes.
//
// Why not a plain import: compiling a megabyte of JavaScript is most of a start. The bundle goes through
// vm.Script with the V8 code cache dist/svc-facade.v8cache, which the build wrote after a warm-up (every
// function a Petstore start and its first requests compile): V8 then deserializes instead of parsing and
// compiling. A cache from another Node or V8 version, or other V8 flags, is rejected by V8 itself
// (script.cachedDataRejected); the bundle then compiles from source as usual, only slower to start.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const file = fileURLToPath(new URL('./svc-facade.cjs', import.meta.url));
const cacheFile = fileURLToPath(new URL('./svc-facade.v8cache', import.meta.url));

/**
 * The code cache, or undefined when there is none (a build without it, SVC_CODE_CACHE=off). glibc serves a
 * block of 128 KiB to 32 MiB from its own mapping, and freeing one raises its mmap threshold to the block's
 * size for the life of the process: later buffers below that size (a big contract's text, its parse) then
 * stay in the process once freed (Stripe's first start idled at 92 MiB instead of 89). Above 32 MiB the
 * threshold stays, so the cache is read into the start of a 33 MiB block: only the pages read are memory.
 */
function cachedData() {
  if (process.env.SVC_CODE_CACHE === 'off') return undefined;
  let fd;
  try {
    fd = openSync(cacheFile, 'r');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const buffer = Buffer.allocUnsafeSlow(Math.max(size, 33 * 1024 * 1024));
    let read = 0;
    for (let n; read < size && (n = readSync(fd, buffer, read, size - read, read)) > 0; ) read += n;
    return buffer.subarray(0, read);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The bundle's text, read 64 KiB at a time: one read of the whole file would free a block of its size (above). */
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

/**
 * The name stack traces give the bundle. V8 keeps the name a code cache was made under (the build's
 * directory, /src/dist in the image) over the one given here, so it is one that holds wherever dist/ lies.
 */
const SCRIPT_NAME = 'svc-facade/dist/svc-facade.cjs';

/**
 * Under `node --enable-source-maps`, node's CommonJS compiler runs the bundle instead, which reads its
 * sourceMappingURL: stack traces then name lib/*.ts lines. It uses no code cache (a slower start).
 */
function compileWithSourceMap(source) {
  const loader = new Module(file);
  loader.filename = file;
  loader.paths = Module._nodeModulePaths(dirname(file));
  // The banner line starts the function expression: assigning it shifts no line the map describes.
  loader._compile(`module.exports=${source}`, file);
  return loader.exports;
}

// The file is one function expression taking CommonJS's parameters and the host's import() (see
// lib/util/external-import.ts); nothing is concatenated around it.
const mapped = process.sourceMapsEnabled === true;
export const script = mapped ? undefined : new Script(readSource(file), { filename: SCRIPT_NAME, cachedData: cachedData() });
const run = mapped ? compileWithSourceMap(readSource(file)) : script.runInThisContext();
const module = { exports: {} };
run(module.exports, createRequire(file), module, file, dirname(file), (specifier) => import(specifier));

/** The bundle's exports: lib/index.ts's public API and runCli (lib/main.ts). */
export const api = module.exports;
