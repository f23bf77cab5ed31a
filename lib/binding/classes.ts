// The classes bodies bind to (docs/binding.md): those an embedder passes (`bindingClasses`) and every class
// exported by the modules of the `bindingPackageScan` directory, imported once at startup.
import { ensureTypeScriptLoader } from '../config/typescript.js';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FacadeConfig } from '../config/model.js';
import { locateResource, resourceRoots } from '../contract/resources.js';
import { Errors, svcError } from '../util/errors.js';
import { importExternal } from '../util/external-import.js';

/** A class a body can become: constructed without arguments, or through its `static fromJSON(obj)`. */
export type BindingClass = (new () => object) & { fromJSON?: (value: unknown) => unknown };

/** Classes by name. */
export type ClassRegistry = ReadonlyMap<string, BindingClass>;

const MODULE_FILE = /\.(?:m?js|ts)$/;
const DECLARATION_FILE = /\.d\.ts$/;

export async function loadBindingClasses(config: FacadeConfig): Promise<ClassRegistry> {
  const classes = new Map<string, BindingClass>();
  const origins = new Map<string, string>();
  const add = (name: string, cls: BindingClass, origin: string): void => {
    const existing = classes.get(name);
    if (existing === cls) return; // the same class re-exported by another module
    if (existing !== undefined) {
      throw svcError(Errors.BINDING_SCAN, origin, `class ${name} is also defined in ${origins.get(name)}; class names must be unique`);
    }
    classes.set(name, cls);
    origins.set(name, origin);
  };

  for (const cls of config.bindingClasses) {
    if (!isClass(cls) || cls.name === '') {
      throw svcError(Errors.CONFIG_INVALID, 'bindingClasses', 'bindingClasses', typeof cls === 'function' ? `function ${cls.name || '(anonymous)'}` : String(cls), 'named classes');
    }
    add(cls.name, cls, 'bindingClasses');
  }

  const location = config.rest.bindingPackageScan;
  if (location !== undefined && location !== '') {
    const dir = scanDirectory(location, config.baseDir);
    for (const file of moduleFiles(dir)) {
      const exports = await importModule(file);
      for (const [exportName, value] of exportsOf(exports)) {
        if (!isClass(value)) continue;
        // Named exports bind by their export name; a default export by the class's own name.
        const name = exportName === 'default' ? value.name : exportName;
        if (name !== '') add(name, value, file);
      }
    }
  }
  return classes;
}

function scanDirectory(location: string, baseDir: string): string {
  const found = locateResource(location, baseDir);
  if (found === undefined || found.kind !== 'file') {
    const reason = found?.kind === 'url' ? 'must be a directory, not a URL' : `no such directory (searched ${resourceRoots(baseDir).join(', ')})`;
    throw svcError(Errors.BINDING_SCAN, location, reason);
  }
  if (!statSync(found.path).isDirectory()) throw svcError(Errors.BINDING_SCAN, found.path, 'is not a directory');
  return found.path;
}

/** Module files under the directory and its subdirectories (Camel scans sub-packages too), sorted. */
function moduleFiles(dir: string): string[] {
  const files: string[] = [];
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.isFile() && MODULE_FILE.test(entry.name) && !DECLARATION_FILE.test(entry.name)) files.push(path);
    }
  }
  return files.sort();
}

async function importModule(file: string): Promise<Record<string, unknown>> {
  if (file.endsWith('.ts')) await ensureTypeScriptLoader(file);
  try {
    return (await importExternal(pathToFileURL(file).href)) as Record<string, unknown>;
  } catch (err) {
    throw svcError(Errors.BINDING_SCAN, file, `cannot import: ${String((err as Error)?.message ?? err).split('\n')[0]}`);
  }
}


/**
 * `.ts` modules need tsx's loader unless the process already runs under tsx (as config/load.ts does). Both
 * hooks: outside a `"type": "module"` package a `.ts` file is CommonJS, which the ESM hook alone cannot load.
 */
/** A module's exports by name; a CommonJS module's `module.exports` object counts as its named exports. */
function exportsOf(namespace: Record<string, unknown>): [string, unknown][] {
  const entries = Object.entries(namespace);
  const commonJs = namespace.default;
  if (commonJs !== null && typeof commonJs === 'object') {
    for (const [name, value] of Object.entries(commonJs)) if (!Object.hasOwn(namespace, name)) entries.push([name, value]);
  }
  return entries;
}

/** ES classes only: plain functions and arrow functions exported beside them are not candidates. */
function isClass(value: unknown): value is BindingClass {
  return typeof value === 'function' && Function.prototype.toString.call(value).startsWith('class');
}
