// Typed routes at compile time, on the Petstore, GitHub (744 operations) and Stripe contracts: the types
// `svc-facade types` generates, used with defineRoutes from the built package (dist/index.d.ts, so `npm run
// build` first), compiled by tsc --strict. Each `// @ts-expect-error` line must be where tsc reports an
// error (tsc itself says so when it is not); and a copy of the routes without those lines must get exactly
// one error on each line they stood before and no other, so none of them passes for a reason other than its own.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { generateTypes } from '../../lib/types/generate.js';
import { CORPUS, PETSTORE, ROOT, tempDir, withoutExpectErrors } from '../helpers.js';

const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

const PETSTORE_ROUTES = `import { defineRoutes, type TypedRoutes } from 'svc-facade';
import type { Operations, Pet } from './petstore.js';

declare const rest: Omit<TypedRoutes<Operations>, 'getPetById'>;
declare const fewer: Omit<TypedRoutes<Operations>, 'getPetById' | 'addPet' | 'findPetsByStatus'>;
declare const exceptLogin: Omit<TypedRoutes<Operations>, 'loginUser'>;

export const routes = defineRoutes<Operations>({
  ...rest,
  getPetById: async (ex) => {
    const id: number = ex.params.petId;
    if (id < 0) return ex.reply(404, undefined);
    const pet: Pet = { id, name: 'Rex', photoUrls: [] };
    return pet;
  },
});

// @ts-expect-error the route for getPetById is missing
defineRoutes<Operations>({ ...rest });

defineRoutes<Operations>({
  ...rest,
  getPetById: (ex) => {
    // @ts-expect-error petId is an integer: a number, not a string
    const id: string = ex.params.petId;
    return { name: id, photoUrls: [] };
  },
});

defineRoutes<Operations>({
  ...rest,
  // @ts-expect-error the answer is no Pet: name is a string
  getPetById: () => ({ name: 42, photoUrls: [] }),
});

defineRoutes<Operations>({
  ...rest,
  getPetById: (ex) =>
    // @ts-expect-error 404 declares no body
    ex.reply(404, { message: 'gone' }),
});

defineRoutes<Operations>({
  ...fewer,
  addPet: (ex) => {
    // @ts-expect-error the body is a Pet only when it came as JSON (XML and forms arrive as text)
    const any: Pet = ex.body;
    if (ex.mediaType !== 'application/json') return ex.reply(422, undefined);
    const pet: Pet = ex.body;
    // @ts-expect-error the request body's name is a string
    const n: number = ex.body.name;
    return { ...pet, ...any, name: String(n) };
  },
  findPetsByStatus: (ex) => {
    const status: 'available' | 'pending' | 'sold' = ex.query.status;
    // @ts-expect-error findPetsByStatus has no query parameter "tags"
    void ex.query.tags;
    return status === 'sold' ? [] : [{ name: 'Rex', photoUrls: [] }];
  },
  getPetById: (ex) => ({ id: ex.params.petId, name: 'Rex', photoUrls: [] }),
});

defineRoutes<Operations>({
  ...exceptLogin,
  loginUser: (ex) => {
    const headers = { 'X-Rate-Limit': 100, 'X-Expires-After': new Date(0).toISOString(), 'X-Other': 'free' };
    if (ex.query.username === 'ann') return ex.reply(200, 'token', { headers });
    // @ts-expect-error X-Rate-Limit is declared an integer
    return ex.reply(200, 'token', { headers: { 'X-Rate-Limit': 'many' } });
  },
});
`;

const GITHUB_ROUTES = `import { defineRoutes, type TypedRoutes } from 'svc-facade';
import type { Issue, Operations } from './github.js';

declare const rest: Omit<TypedRoutes<Operations>, 'issues/get'>;
declare const issue: Issue;

export const routes = defineRoutes<Operations>({
  ...rest,
  'issues/get': (ex) => {
    const owner: string = ex.params.owner;
    const n: number = ex.params.issue_number;
    if (n === 0) return ex.reply(404, { message: \`no issue in \${owner}\`, documentation_url: 'https://docs.github.com' });
    return issue;
  },
});

// @ts-expect-error the route for issues/get is missing
defineRoutes<Operations>({ ...rest });

defineRoutes<Operations>({
  ...rest,
  'issues/get': (ex) => {
    // @ts-expect-error issue_number is an integer: a number, not a string
    const n: string = ex.params.issue_number;
    return { ...issue, title: n };
  },
});

defineRoutes<Operations>({
  ...rest,
  // @ts-expect-error the answer is no Issue: number is a number
  'issues/get': () => ({ ...issue, number: 'one' }),
});

defineRoutes<Operations>({
  ...rest,
  'issues/get': (ex) =>
    // @ts-expect-error 410 answers a BasicError, whose message is a string
    ex.reply(410, { message: 410 }),
});
`;

const STRIPE_ROUTES = `import { defineRoutes, type TypedRoutes } from 'svc-facade';
import type { Operations } from './stripe.js';

declare const rest: Omit<TypedRoutes<Operations>, 'GetCustomers'>;

export const routes = defineRoutes<Operations>({
  ...rest,
  GetCustomers: (ex) => {
    const limit: number | undefined = ex.query.limit;
    const expand: string[] | undefined = ex.query.expand;
    if (limit === 0) return ex.reply(400, { error: { type: 'invalid_request_error', message: String(expand) } });
    return { data: [], has_more: false, object: 'list', url: '/v1/customers' };
  },
});

// @ts-expect-error the route for GetCustomers is missing
defineRoutes<Operations>({ ...rest });

defineRoutes<Operations>({
  ...rest,
  GetCustomers: (ex) => {
    // @ts-expect-error limit is an integer: a number, not a string
    const limit: string | undefined = ex.query.limit;
    return { data: [], has_more: false, object: 'list', url: String(limit) };
  },
});

defineRoutes<Operations>({
  ...rest,
  // @ts-expect-error the answer is no customer list: object is always "list"
  GetCustomers: () => ({ data: [], has_more: false, object: 'lists', url: '/v1/customers' }),
});
`;

/** A project that imports `svc-facade` (this repository, built) and has node's types, as a user's would. */
function project(files: Record<string, string>, roots: string[]): string {
  const tsconfig = { compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', types: ['node'] }, files: roots };
  const dir = tempDir({ ...files, 'tsconfig.json': JSON.stringify(tsconfig), 'package.json': '{"type":"module","private":true}' });
  mkdirSync(join(dir, 'node_modules/@types'), { recursive: true });
  symlinkSync(ROOT, join(dir, 'node_modules/svc-facade'), 'dir');
  symlinkSync(join(ROOT, 'node_modules/@types/node'), join(dir, 'node_modules/@types/node'), 'dir');
  return dir;
}

function tsc(dir: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [TSC, '-p', dir, '--pretty', 'false'], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

test('typed routes: missing operations, wrong parameter types and wrong answers are compile errors on Petstore, GitHub and Stripe', async (t) => {
  assert.ok(existsSync(join(ROOT, 'dist/index.d.ts')), 'dist/ is built (npm run build)');
  const started = performance.now();
  const modules = {
    'petstore.ts': await generateTypes(PETSTORE),
    'github.ts': await generateTypes(join(CORPUS, 'github-rest-2020/api.github.com.json')),
    'stripe.ts': await generateTypes(join(CORPUS, 'apisguru-stripe-2020-08-27/openapi.yaml')),
  };
  const generated = performance.now() - started;
  // The corpus' GitHub description has 623 operations (test/corpus/MANIFEST.md), not the issue's 744.
  assert.equal((modules['github.ts'].match(/^ {4}method: /gm) ?? []).length, 623, 'every GitHub operation is typed');
  const routes = { 'petstore-routes.ts': PETSTORE_ROUTES, 'github-routes.ts': GITHUB_ROUTES, 'stripe-routes.ts': STRIPE_ROUTES };

  // One program (the generated modules are checked once): the routes as written, where each expectation must
  // hold, and beside them the same routes without the expectations, where each must show as its one error.
  const stripped = Object.fromEntries(Object.entries(routes).map(([file, source]) => [file.replace(/\.ts$/, '-bare.ts'), withoutExpectErrors(source)]));
  const compiling = performance.now();
  const checked = tsc(project({ ...modules, ...routes, ...Object.fromEntries(Object.entries(stripped).map(([file, s]) => [file, s.text])) }, [...Object.keys(routes), ...Object.keys(stripped)]));
  t.diagnostic(`generating the three modules: ${generated.toFixed(0)} ms; tsc --strict over them and the routes: ${(performance.now() - compiling).toFixed(0)} ms`);
  const reported = [...checked.output.matchAll(/^(\S+?)\((\d+),\d+\): error TS\d+/gm)].map((m) => `${m[1]!.split('/').pop()}:${m[2]}`);
  const expected = Object.entries(stripped).flatMap(([file, s]) => s.lines.map((line) => `${file}:${line}`));
  assert.deepEqual([...new Set(reported)].sort(), expected.sort(), checked.output);
  assert.equal(reported.length, expected.length, `one error each:\n${checked.output}`);
});
