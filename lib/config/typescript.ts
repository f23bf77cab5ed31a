// Loading user TypeScript modules (route builders, binding classes) under plain `node dist/main.js`.
let loader: Promise<void> | undefined;

/**
 * Registers tsx's ESM and CommonJS hooks once, unless already running under tsx. Both are needed: a `.ts`
 * file in a folder without `"type": "module"` is loaded as CommonJS.
 */
export function ensureTypeScriptLoader(): Promise<void> {
  if (process.execArgv.some((arg) => arg.includes('tsx'))) return Promise.resolve();
  loader ??= Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]).then(([esm, cjs]) => {
    esm.register();
    cjs.register();
  });
  return loader;
}
