// Loading user TypeScript modules (route builders, binding classes) under plain `node dist/main.js`.
// tsx is an optional peer dependency: only users with `.ts` modules install it.
import { Errors, svcError } from '../util/errors.js';
import { importExternal } from '../util/external-import.js';

let loader: Promise<boolean> | undefined;

/**
 * Registers tsx's ESM and CommonJS hooks once, unless already running under tsx. Both are needed: a `.ts`
 * file in a folder without `"type": "module"` is loaded as CommonJS. Without tsx installed, startup fails
 * naming the module and the missing package.
 */
export async function ensureTypeScriptLoader(file: string): Promise<void> {
  if (process.execArgv.some((arg) => arg.includes('tsx'))) return;
  loader ??= Promise.all([importExternal('tsx/esm/api') as Promise<typeof import('tsx/esm/api')>, importExternal('tsx/cjs/api') as Promise<typeof import('tsx/cjs/api')>]).then(
    ([esm, cjs]) => {
      esm.register();
      cjs.register();
      return true;
    },
    (err: NodeJS.ErrnoException) => {
      if (err?.code === 'ERR_MODULE_NOT_FOUND' || err?.code === 'MODULE_NOT_FOUND') return false;
      throw err;
    },
  );
  if (!(await loader)) throw svcError(Errors.TYPESCRIPT_LOADER_MISSING, file);
}
