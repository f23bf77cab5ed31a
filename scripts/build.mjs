#!/usr/bin/env node
// `npm run build`: tsc type-checks lib/ and writes the declarations (dist/**/*.d.ts); esbuild bundles the
// two entry points, dist/main.js (the CLI) and dist/index.js (the API), with the code they share in one
// chunk, so that starting costs a few file reads instead of hundreds (ESM and CommonJS load each file on
// its own; yaml, find-my-way and saxes are a hundred, ajv two hundred): the import drops from about 95 ms to
// about 25 ms, and validation's from about 60 ms to about 12 ms. Code imported only when used (validation
// with ajv) gets a chunk of its own. jose stays an external package; tsx is an optional peer, loaded only
// for .ts modules. The licences of what is bundled go to dist/THIRD-PARTY-LICENSES.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json'), '--emitDeclarationOnly'], { stdio: 'inherit' });
const result = await build({
  entryPoints: { main: join(root, 'lib/main.ts'), index: join(root, 'lib/index.ts') },
  outdir: dist,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['jose', 'tsx', 'tsx/*'],
  // Shared code keeps one module instance: a route module importing `svc-facade` under the CLI gets the
  // same RouteBuilder and SvcError classes the CLI checks with instanceof.
  chunkNames: 'chunks/[name]-[hash]',
  // Bundled CommonJS dependencies require() node builtins; ESM has no require of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  sourcemap: 'linked',
  sourcesContent: false, // the maps point into lib/ and node_modules/; they need not carry them
  metafile: true,
  logLevel: 'warning',
});
writeFileSync(join(dist, 'THIRD-PARTY-LICENSES.md'), thirdPartyLicenses(Object.keys(result.metafile.inputs)));

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
