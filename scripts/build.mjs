#!/usr/bin/env node
// `npm run build`: tsc type-checks lib/ and writes the declarations (dist/**/*.d.ts); esbuild bundles the
// CLI (lib/main.ts) and the API (lib/index.ts) with every runtime dependency (jose too) into one CommonJS
// file, dist/svc-facade.cjs, so that starting costs one file read instead of hundreds (ESM and CommonJS load
// each file on its own; yaml, find-my-way and saxes are a hundred, ajv two hundred). That file is one
// function expression: dist/load.js compiles it with vm.Script and V8's code cache dist/svc-facade.v8cache,
// which scripts/bundle/warm-up.mjs writes last, after a Petstore start and its first requests (compiling the
// bundle was most of a start). dist/main.js (the bin) and dist/index.js (the API, ESM) are small files
// over dist/load.js, so a route module importing `svc-facade` under the CLI gets the same RouteBuilder and
// SvcError classes the CLI checks with instanceof. Modules used only sometimes (validation with ajv) stay in
// the bundle but run only when imported. tsx is an optional peer, imported only for .ts modules. The
// licences of what is bundled go to dist/THIRD-PARTY-LICENSES.md.
//
// Only when something changed: dist/.build-stamp holds a hash of every input (lib/, this script and
// scripts/bundle/, package.json, package-lock.json, tsconfig.json, the node version); the same hash skips
// the build (`npm start`, `npm test` then start at once). `--force` builds anyway. And never with dist/
// missing: the new build is made in a directory of its own beside it and renamed into place, so a CLI or
// test reading dist/ meanwhile finds the old build or the new one.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const final = join(root, 'dist');
const STAMP = '.build-stamp';

const inputsHash = hashInputs();
if (!process.argv.includes('--force') && readStamp() === inputsHash) {
  console.log('dist/ is up to date (no input changed; --force builds anyway)');
  process.exit(0);
}
// The build's own directory on the same file system as dist/, so that the rename below is one step.
const dist = mkdtempSync(join(root, '.dist-build-'));
process.on('exit', () => rmSync(dist, { recursive: true, force: true }));
// --stripInternal: what is marked @internal (the lazy request headers' machinery) is no public type.
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json'), '--emitDeclarationOnly', '--stripInternal', '--outDir', dist], { stdio: 'inherit' });
pruneUnusedImports(dist);
checkPublicDeclarations(join(dist, 'index.d.ts'));
// The bundle's entry: the public API, and the CLI, whose module runs main() when imported, so only on runCli().
const entry = "export * from './lib/index.ts';\nexport const runCli = () => import('./lib/main.ts');\n";
const result = await build({
  stdin: { contents: entry, resolveDir: root, sourcefile: 'svc-facade-entry.ts', loader: 'ts' },
  outfile: join(dist, 'svc-facade.cjs'),
  bundle: true,
  format: 'cjs',
  minifyWhitespace: true,
  // Minified, but in lines of about 160 characters: an uncaught error prints the line it was thrown from, and
  // one line of a megabyte printed ~16 KB of bundle before the message. Startup is the same (measured).
  lineLimit: 160,
  minifySyntax: true,
  platform: 'node',
  target: 'node20',
  external: ['tsx', 'tsx/*'],
  // One function expression (see dist/load.js); __svcImport is the host's import() (lib/util/external-import.ts).
  banner: { js: '(function (exports, require, module, __filename, __dirname, __svcImport) {' },
  footer: { js: '})' },
  // lib/main.ts reads ../package.json next to dist/ for --version.
  define: { 'import.meta.url': '__svcImportMetaUrl' },
  inject: [join(root, 'scripts/bundle/import-meta-url.js')],
  sourcemap: 'linked',
  sourcesContent: false, // the map points into lib/ and node_modules/; it need not carry them
  metafile: true,
  logLevel: 'warning',
});
// import() inside the vm.Script throws (no loader): external modules go through lib/util/external-import.ts, the
// one import() left in the bundle (its fallback under tsx). Fail here rather than in a user's start.
const imports = readFileSync(join(dist, 'svc-facade.cjs'), 'utf8').match(/(?<![\w$.])import\(/g) ?? [];
if (imports.length !== 1) throw new Error(`dist/svc-facade.cjs has ${imports.length} import() calls; import external modules with importExternal (lib/util/external-import.ts)`);
copyFileSync(join(root, 'scripts/bundle/load.mjs'), join(dist, 'load.js'));
copyFileSync(join(root, 'scripts/bundle/healthcheck.mjs'), join(dist, 'healthcheck.js'));
const { api } = await import(pathToFileURL(join(dist, 'load.js')).href);
const names = Object.keys(api).filter((name) => name !== 'runCli').sort();
writeFileSync(join(dist, 'index.js'), `// svc-facade's public API (types: index.d.ts), from the bundle dist/load.js runs.\nimport { api } from './load.js';\n\nexport const { ${names.join(', ')} } = api;\n`);
writeFileSync(join(dist, 'main.js'), "#!/usr/bin/env node\n// The svc-facade CLI (lib/main.ts), from the bundle dist/load.js runs.\nimport { api } from './load.js';\n\napi.runCli();\n");
chmodSync(join(dist, 'main.js'), 0o755);
writeFileSync(join(dist, 'THIRD-PARTY-LICENSES.md'), thirdPartyLicenses(Object.keys(result.metafile.inputs)));
swapIntoPlace();
// A child process: the cache must come from a plain `node` (V8 rejects a cache made under other flags). Made
// in place, after the swap: the paths a start compiled under are dist/'s. Until it is written, a start
// compiles the bundle from source, as with a cache V8 rejects. The stamp is last: the build is complete.
execFileSync(process.execPath, [join(root, 'scripts/bundle/warm-up.mjs'), final, join(root, 'config.yaml')], { stdio: 'inherit' });
writeFileSync(join(final, STAMP), `${inputsHash}\n`);

/** dist/ replaced by the new build: two renames, so that dist/ is missing for no longer than between them. */
function swapIntoPlace() {
  const old = `${dist}-old`;
  if (existsSync(final)) renameSync(final, old);
  renameSync(dist, final);
  rmSync(old, { recursive: true, force: true });
}

/** SHA-256 over the path and bytes of every input of the build, and the node version (the code cache's). */
function hashInputs() {
  const hash = createHash('sha256').update(process.version);
  const files = ['package.json', 'package-lock.json', 'tsconfig.json', 'config.yaml', 'scripts/build.mjs'].map((f) => join(root, f));
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  walk(join(root, 'lib'));
  walk(join(root, 'scripts/bundle'));
  for (const file of files.sort()) {
    hash.update(`\0${relative(root, file)}\0`);
    if (existsSync(file)) hash.update(readFileSync(file));
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return readFileSync(join(final, STAMP), 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * --stripInternal drops what is @internal but keeps the imports only it used; a declaration file keeps an
 * imported name only if it still names it, so an internal's types (a bundled package's) do not stay reachable.
 */
function pruneUnusedImports(dir) {
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
    if (!name.endsWith('.d.ts')) continue;
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    const pruned = text.replace(/^import (type )?\{([^}]*)\} from ('[^']+');\n/gm, (line, typeOnly, list, from) => {
      const rest = text.replace(line, '');
      const kept = list.split(',').map((s) => s.trim()).filter((s) => s !== '' && new RegExp(`\\b${s.split(/\s+as\s+/).pop().replace(/^type\s+/, '').replace(/\$/g, '\\$')}\\b`).test(rest));
      return kept.length === 0 ? '' : `import ${typeOnly ?? ''}{ ${kept.join(', ')} } from ${from};\n`;
    });
    if (pruned !== text) writeFileSync(file, pruned);
  }
}

/**
 * The declarations a user's compiler reads (those reachable from dist/index.d.ts) may import only node's
 * modules: every other package is bundled, not installed beside svc-facade, so an import of one (jose, ajv)
 * fails a user's `tsc` without skipLibCheck (TS2307). Fail the build instead.
 */
function checkPublicDeclarations(entry) {
  const seen = new Set();
  const offending = [];
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/(?:\bfrom|\bimport\()\s*['"]([^'"]+)['"]/g)) {
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier.replace(/\.js$/, '.d.ts')));
      else if (!specifier.startsWith('node:')) offending.push(`${file.slice(dist.length + 1)} imports ${specifier}`);
    }
  };
  visit(entry);
  if (offending.length > 0) throw new Error(`the public declarations import bundled packages, which users do not install:\n  ${offending.join('\n  ')}`);
}

/** Name, version, licence and licence text of every package a bundle took files from. */
function thirdPartyLicenses(inputs) {
  const packages = new Set();
  for (const input of inputs) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) packages.add(m[1]);
  }
  const sections = [...packages].sort().map((dir) => {
    const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
    const file = readdirSync(join(root, dir)).find((f) => /^licen[cs]e/i.test(f));
    const text = file && existsSync(join(root, dir, file)) ? readFileSync(join(root, dir, file), 'utf8').trim() : `${pkg.license}`;
    return `## ${pkg.name} ${pkg.version} (${pkg.license})\n\n\`\`\`\n${text}\n\`\`\`\n`;
  });
  return `# Third-party software bundled in dist/\n\n${sections.join('\n')}`;
}
