// Builds the configuration from CLI inputs: files typed by extension, merged in order (docs/configuration.md).
// Precedence: DSL files in order < properties files < environment variables.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Errors, SvcError, svcError } from '../util/errors.js';
import { importExternal } from '../util/external-import.js';
import { applyEnvironment } from './env.js';
import { RouteBuilder } from './fluent.js';
import { emptyConfig, type FacadeConfig } from './model.js';
import { propertyLookup } from './placeholders.js';
import { applyProperties, parseProperties } from './properties.js';
import { applyXmlDsl } from './xml-dsl.js';
import { ensureTypeScriptLoader } from './typescript.js';
import { applyYamlDsl } from './yaml-dsl.js';

const KINDS: Record<string, 'yaml' | 'xml' | 'properties' | 'module'> = {
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.xml': 'xml',
  '.properties': 'properties',
  '.js': 'module',
  '.mjs': 'module',
  '.ts': 'module',
  '.mts': 'module',
};

export interface LoadOptions {
  /** Import route modules anew rather than from the module cache (a reload: lib/facade/build.ts). */
  fresh?: boolean;
}

export async function loadConfigFiles(files: readonly string[], env: NodeJS.ProcessEnv = process.env, options: LoadOptions = {}): Promise<FacadeConfig> {
  const inputs = files.map((f) => resolve(f));
  const config = emptyConfig(inputs[0] ? dirname(inputs[0]) : process.cwd());
  for (const file of inputs) {
    if (!KINDS[extname(file).toLowerCase()]) throw svcError(Errors.CLI_USAGE, `${file}: unknown file type ${extname(file) || '(none)'}; allowed: ${Object.keys(KINDS).join(', ')}`);
    if (!existsSync(file)) throw svcError(Errors.CLI_USAGE, `${file}: no such file`);
  }
  // Properties first, so that DSL placeholders can read them; application.properties beside the first file leads.
  const [beside] = besideFiles(inputs);
  const propertyFiles = [...(beside && existsSync(beside) && !inputs.includes(beside) ? [beside] : []), ...inputs.filter((f) => KINDS[extname(f).toLowerCase()] === 'properties')];
  const layers = propertyFiles.map((file) => ({ file, props: parseProperties(readText(file)) }));
  const merged = new Map<string, string>();
  for (const { props } of layers) for (const [k, v] of props) merged.set(k, v);
  const lookup = propertyLookup(merged, env);

  for (const file of inputs) {
    const kind = KINDS[extname(file).toLowerCase()];
    if (kind === 'yaml') applyYamlDsl(config, readText(file), file, lookup);
    else if (kind === 'xml') applyXmlDsl(config, readText(file), file, lookup);
    else if (kind === 'module') await applyModule(config, file, options.fresh === true);
  }
  for (const { file, props } of layers) applyProperties(config, props, file);
  applyEnvironment(config, env);
  return config;
}

/** Files read besides those named: application.properties beside the first one, whether it exists or not. */
export function besideFiles(files: readonly string[]): string[] {
  return files[0] ? [join(dirname(resolve(files[0])), 'application.properties')] : [];
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw svcError(Errors.CLI_USAGE, `${file}: cannot read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Counts fresh imports: each gets a URL of its own, which the module cache has not seen. */
let freshImports = 0;

/**
 * A module whose default export is a RouteBuilder subclass or instance. `fresh`: imported under a new URL, so
 * an edited file is evaluated again (the modules it imports itself still come from the cache).
 */
async function applyModule(config: FacadeConfig, file: string, fresh: boolean): Promise<void> {
  if (/\.m?ts$/.test(file)) await ensureTypeScriptLoader(file);
  // A module loaded as CommonJS (a .ts or .js file in a folder without "type": "module") is cached by its
  // path, whatever the URL's query: it is evaluated again only once out of require's cache.
  if (fresh) delete createRequire(file).cache[file];
  let mod: { default?: unknown };
  try {
    mod = (await importExternal(pathToFileURL(file).href + (fresh ? `?reload=${++freshImports}` : ''))) as { default?: unknown };
  } catch (err) {
    throw svcError(Errors.CONFIG_FILE, file, `cannot import: ${importFailure(err)}`);
  }
  const builder = toRouteBuilder(mod.default);
  if (!builder) throw svcError(Errors.CONFIG_FILE, file, 'the default export must be a RouteBuilder subclass or instance');
  try {
    await builder.applyTo(config, file);
  } catch (err) {
    if (err instanceof SvcError) throw err;
    throw svcError(Errors.CONFIG_FILE, file, `configure() failed: ${(err as Error)?.message ?? String(err)}`);
  }
}

/**
 * The first line of an import failure; with the next one when the first only announces it (tsx: "Transform
 * failed with 1 error:", then the file, line and what is wrong).
 */
function importFailure(err: unknown): string {
  const lines = ((err as Error)?.message ?? String(err)).split('\n').map((line) => line.trim()).filter((line) => line !== '');
  return lines[0]?.endsWith(':') && lines[1] !== undefined ? `${lines[0]} ${lines[1]}` : (lines[0] ?? '');
}

export function toRouteBuilder(value: unknown): RouteBuilder | undefined {
  if (value instanceof RouteBuilder) return value;
  if (typeof value === 'function' && value.prototype instanceof RouteBuilder) return new (value as new () => RouteBuilder)();
  // A builder from another copy of this package still works if it quacks like one.
  if (typeof value === 'function' && typeof value.prototype?.applyTo === 'function') return new (value as new () => RouteBuilder)();
  if (value && typeof (value as RouteBuilder).applyTo === 'function') return value as RouteBuilder;
  return undefined;
}
