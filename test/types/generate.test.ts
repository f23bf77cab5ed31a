// `svc-facade types` (the built CLI, dist/main.js) and generateTypes(): what the module says for each kind
// of schema and body, that it compiles, and the command's files, configurations and errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateTypes } from '../../lib/types/generate.js';
import { PETSTORE, ROOT, tempDir } from '../helpers.js';

const MAIN = join(ROOT, 'dist/main.js');
const TSC = join(ROOT, 'node_modules/typescript/bin/tsc');

function cli(args: string[], cwd = ROOT): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** tsc --strict over files in a fresh directory; its diagnostics ('' when it compiles). */
function compile(files: Record<string, string>): string {
  // No @types at all: a generated module needs none (bytes are Uint8Array, not Buffer).
  const tsconfig = { compilerOptions: { strict: true, noEmit: true, target: 'ES2022', module: 'NodeNext', types: [] }, files: Object.keys(files) };
  const dir = tempDir({ ...files, 'package.json': '{"type":"module","private":true}', 'tsconfig.json': JSON.stringify(tsconfig) });
  const run = spawnSync(process.execPath, [TSC, '-p', dir, '--pretty', 'false'], { encoding: 'utf8' });
  return `${run.stdout}${run.stderr}`;
}

const CONTRACT_31 = {
  openapi: '3.1.0',
  info: { title: 'shapes', version: '1' },
  paths: {
    '/nodes/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: {
        parameters: [
          { name: 'tags', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
          { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string' } },
          { name: 'session', in: 'cookie', schema: { type: 'string' } },
          { name: 'Accept', in: 'header', schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'ok', headers: { 'X-Count': { schema: { type: 'integer' } }, 'Content-Type': { schema: { type: 'string' } } }, content: { 'application/json': { schema: { $ref: '#/components/schemas/tree-node' } }, 'text/plain': { schema: { type: 'string' } } } },
          '4xx': { description: 'bad', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } },
        },
      },
      put: {
        requestBody: { content: { 'application/octet-stream': {}, 'application/xml': { schema: { $ref: '#/components/schemas/tree-node' } }, 'application/jsonl': { schema: {} } } },
        responses: { '204': { description: 'stored' } },
      },
    },
    '/free': { get: { responses: { default: { description: 'x', content: { 'image/png': {} } } } } },
  },
  components: {
    schemas: {
      'tree-node': {
        type: 'object',
        required: ['name', 'kind', 'id', 'secret'],
        properties: {
          id: { type: 'integer', readOnly: true },
          secret: { $ref: '#/components/schemas/Secret' },
          name: { type: ['string', 'null'], description: 'the name */ with a comment end' },
          kind: { const: 'node' },
          children: { type: 'array', items: { $ref: '#/components/schemas/tree-node' } },
          pair: { type: 'array', prefixItems: [{ type: 'integer' }, { type: 'boolean' }], items: false },
          'odd-key': { enum: ['a', 1, null] },
          meta: { type: 'object', additionalProperties: { type: 'number' } },
          labelled: { $ref: '#/components/schemas/Problem', required: ['title'] },
        },
        additionalProperties: false,
      },
      Secret: { type: 'string', writeOnly: true },
      Problem: { type: 'object', properties: { title: { type: 'string' }, status: { type: 'integer' } } },
      string: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    },
  },
};

test('generateTypes: schemas, parameters by location and bodies by media type, as TypeScript that compiles', async () => {
  const dir = tempDir({ 'shapes.json': JSON.stringify(CONTRACT_31) });
  const module = await generateTypes(join(dir, 'shapes.json'));
  // The component named like a TypeScript type gets another name; a recursive schema refers to itself.
  assert.match(module, /^export type TreeNode = \{$/m);
  assert.match(module, /^ {2}children\?: TreeNode\[\];$/m);
  assert.match(module, /^export type StringSchema = string \| number;$/m);
  assert.match(module, /^ {2}name: string \| null;$/m);
  // Required but readOnly (absent from requests) or writeOnly (from responses): optional, as validation has it.
  assert.match(module, /^ {2}id\?: number;$/m);
  assert.match(module, /^ {2}secret\?: Secret;$/m);
  assert.match(module, /^ {2}\/\*\* the name \*\\\/ with a comment end \*\/$/m);
  assert.match(module, /^ {2}kind: "node";$/m);
  assert.match(module, /^ {2}pair\?: \[number, boolean\];$/m);
  assert.match(module, /^ {2}"odd-key"\?: "a" \| 1 \| null;$/m);
  assert.match(module, /^ {2}meta\?: \{ \[key: string\]: number \};$/m);
  assert.match(module, /^ {2}labelled\?: Problem & \{\n {4}title: unknown;\n {2}\};$/m);
  // Parameters: the path's own, by location; Accept is the media type's, not a parameter.
  assert.match(module, /path: \{ id: number \};\n {6}query: \{ tags\?: string\[\] \};\n {6}header: \{ "X-Trace": string \};\n {6}cookie: \{ session\?: string \};/);
  // Bodies: JSON by schema, text as strings, bytes as Uint8Array, XML as text when binding is off, sequences as items.
  assert.match(module, /200: \{ headers: \{ "X-Count"\?: number \}; content: \{\n {8}"application\/json": TreeNode;\n {8}"text\/plain": string;/);
  assert.match(module, /"4XX": \{ content: \{\n {8}"application\/problem\+json": Problem;/);
  assert.match(module, /requestBody: \{ required: false; content: \{\n {6}"application\/octet-stream": Uint8Array;\n {6}"application\/xml": string;\n {6}"application\/jsonl": AsyncIterable<unknown>;/);
  assert.match(module, /204: \{ content: \{\} \};/);
  assert.match(module, /"default": \{ content: \{\n {8}"image\/png": string \| Uint8Array;/);
  // An operation without an operationId is keyed as the facade routes it.
  assert.match(module, /^ {2}"GENOPID_GET\.free": \{$/m);
  assert.equal(compile({ 'shapes.ts': module }), '');
});

test('svc-facade types: standard output, -o, a configuration file and its bindingMode', () => {
  const printed = cli(['types', PETSTORE]);
  assert.equal(printed.status, 0, printed.stderr);
  assert.match(printed.stdout, /^export interface Operations \{$/m);

  const dir = tempDir({
    'facade.yaml': `- restConfiguration:\n    bindingMode: xml\n- rest:\n    openApi:\n      specification: ${PETSTORE}\n      missingOperation: mock\n`,
  });
  const written = cli(['types', 'facade.yaml', '-o', 'types/petstore.ts'], dir);
  assert.equal(written.status, 0, written.stderr);
  assert.equal(written.stdout, '');
  const module = readFileSync(join(dir, 'types/petstore.ts'), 'utf8');
  assert.match(module, /bindingMode xml/);
  // Bound XML bodies are values, typed by their schemas.
  assert.match(module, /"application\/xml": Pet;/);
});

test('svc-facade types: usage errors and unreadable inputs are told plainly, with exit code 2', () => {
  const none = cli(['types']);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /^svc-facade: types takes a contract or configuration file \(try svc-facade types --help\)\n$/);
  const two = cli(['types', 'a.json', 'b.json']);
  assert.equal(two.status, 2);
  assert.match(two.stderr, /types takes one contract or configuration file, not a\.json and b\.json/);
  const option = cli(['types', PETSTORE, '--watch']);
  assert.equal(option.status, 2);
  assert.match(option.stderr, /unknown option --watch for types; allowed: -o, --out, --help/);
  const missing = cli(['types', 'no-such.json']);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^svc-facade: no-such\.json: cannot read: ENOENT\n$/);
  const noOut = cli(['types', PETSTORE, '-o']);
  assert.equal(noOut.status, 2);
  assert.match(noOut.stderr, /option -o needs a file/);
  const help = cli(['types', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /^Usage: svc-facade types CONTRACT-OR-CONFIG \[-o FILE\]/);
  const usage = cli(['--help']);
  assert.match(usage.stdout, /svc-facade types CONTRACT-OR-CONFIG \[-o FILE\]/);
});
