// A TypeScript project that installs the packed package as a user would (`npm pack`, then `npm install
// --omit=dev --offline` of the tarball: production dependencies only), generates the Petstore's types with
// the installed CLI, writes typed routes, compiles with `tsc --strict` and no skipLibCheck, and runs the
// result against a real request. dist/ must be built first (`npm test` does it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, tempDir } from '../helpers.js';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');
const NPM_ENV = { ...process.env, npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

// Every Petstore operation has a route (leaving one out would not compile); most answer 501, which the
// contract's `default` responses allow, with no body, which they declare.
const APP = `import { createFacade, defineRoutes, type TokenValidationResult } from 'svc-facade';
import type { Operations, Pet } from './petstore.js';

const pets = new Map<number, Pet>([[7, { id: 7, name: 'Rex', photoUrls: [], status: 'available' }]]);

const routes = defineRoutes<Operations>({
  getPetById: (ex) => {
    const pet = pets.get(ex.params.petId);
    return pet ?? ex.reply(404, undefined);
  },
  addPet: (ex) => {
    if (ex.mediaType !== 'application/json') return ex.reply(415, undefined);
    const pet: Pet = { ...ex.body, id: pets.size + 1 };
    pets.set(pet.id!, pet);
    return pet;
  },
  findPetsByStatus: (ex) => [...pets.values()].filter((p) => p.status === ex.query.status),
  updatePet: (ex) => ex.reply(501, undefined),
  findPetsByTags: (ex) => ex.reply(501, undefined),
  updatePetWithForm: (ex) => ex.reply(501, undefined),
  deletePet: (ex) => ex.reply(501, undefined),
  uploadFile: (ex) => ex.reply(501, undefined),
  getInventory: (ex) => ex.reply(501, undefined),
  placeOrder: (ex) => ex.reply(501, undefined),
  getOrderById: (ex) => ex.reply(501, undefined),
  deleteOrder: (ex) => ex.reply(501, undefined),
  createUser: (ex) => ex.reply(501, undefined),
  createUsersWithListInput: (ex) => ex.reply(501, undefined),
  loginUser: (ex) => ex.reply(501, undefined),
  logoutUser: (ex) => ex.reply(501, undefined),
  getUserByName: (ex) => ex.reply(501, undefined),
  updateUser: (ex) => ex.reply(501, undefined),
  deleteUser: (ex) => ex.reply(501, undefined),
});

const token: TokenValidationResult | undefined = undefined;
const facade = await createFacade({
  specification: 'node_modules/svc-facade/spec/petstore-v3.json',
  restConfiguration: { clientRequestValidation: true },
  routes,
});
const { port } = await facade.listen(0, '127.0.0.1');
const origin = \`http://127.0.0.1:\${port}/api/v3\`;
const found = await fetch(\`\${origin}/pet/7\`);
const added = await fetch(\`\${origin}/pet\`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Tom', photoUrls: [], status: 'available' }) });
const listed = await fetch(\`\${origin}/pet/findByStatus\`);
const invalid = await fetch(\`\${origin}/pet/seven\`);
console.log(JSON.stringify({ found: [found.status, await found.json()], added: [added.status, await added.json()], listed: [listed.status, await listed.json()], invalid: invalid.status, token: token ?? null }));
await facade.stop();
`;

const TSCONFIG = JSON.stringify({
  compilerOptions: { strict: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'], outDir: 'out' },
  files: ['app.ts'],
});

test('a project installing the packed package with production dependencies only compiles with tsc --strict (no skipLibCheck) and runs', (t) => {
  assert.ok(existsSync(join(ROOT, 'dist/index.d.ts')), 'dist/ is built (npm run build)');
  const packs = tempDir();
  execFileSync('npm', ['pack', '--pack-destination', packs, '--silent'], { cwd: ROOT, env: NPM_ENV, encoding: 'utf8' });
  const tarball = join(packs, readdirSync(packs).find((f) => f.endsWith('.tgz'))!);

  const app = tempDir({ 'package.json': '{"name":"consumer","private":true,"type":"module"}', 'tsconfig.json': TSCONFIG, 'app.ts': APP });
  execFileSync('npm', ['install', '--omit=dev', '--offline', tarball], { cwd: app, env: NPM_ENV, encoding: 'utf8' });
  // Everything svc-facade runs on is bundled: the install brings no other package.
  assert.deepEqual(readdirSync(join(app, 'node_modules')).filter((d) => !d.startsWith('.')), ['svc-facade']);
  // The user's own development dependency, as any Node project in TypeScript has it.
  mkdirSync(join(app, 'node_modules/@types'));
  symlinkSync(join(ROOT, 'node_modules/@types/node'), join(app, 'node_modules/@types/node'), 'dir');

  const generated = spawnSync(process.execPath, ['node_modules/svc-facade/dist/main.js', 'types', 'node_modules/svc-facade/spec/petstore-v3.json', '-o', 'petstore.ts'], { cwd: app, encoding: 'utf8' });
  assert.equal(generated.status, 0, generated.stderr);
  assert.match(readFileSync(join(app, 'petstore.ts'), 'utf8'), /getPetById: \{/);

  const started = performance.now();
  const compiled = spawnSync(process.execPath, [TSC, '-p', app, '--pretty', 'false'], { encoding: 'utf8' });
  t.diagnostic(`tsc --strict of the consumer project: ${(performance.now() - started).toFixed(0)} ms`);
  assert.equal(`${compiled.stdout}${compiled.stderr}`, '', 'no error, in the package declarations included');
  assert.equal(compiled.status, 0);

  // The public declarations show no internals of the exchange's headers.
  const exchange = readFileSync(join(app, 'node_modules/svc-facade/dist/message/exchange.d.ts'), 'utf8');
  assert.doesNotMatch(exchange, /LazyRequestHeaders|NEEDS_FILL/);

  const ran = spawnSync(process.execPath, ['out/app.js'], { cwd: app, encoding: 'utf8', timeout: 120_000 });
  assert.equal(ran.status, 0, ran.stderr);
  assert.deepEqual(JSON.parse(ran.stdout), {
    found: [200, { id: 7, name: 'Rex', photoUrls: [], status: 'available' }],
    added: [200, { id: 2, name: 'Tom', photoUrls: [], status: 'available' }],
    listed: [200, [{ id: 7, name: 'Rex', photoUrls: [], status: 'available' }, { id: 2, name: 'Tom', photoUrls: [], status: 'available' }]],
    invalid: 400,
    token: null,
  });
});
