// The YAML DSL's JSON Schema (issue 23): config.schema.json at the package root is what
// lib/config/json-schema.ts generates from the option table and the DSL's keys; every YAML configuration in
// the repository (files, ConfigMaps, YAML blocks of the docs and READMEs) passes it; typos anywhere in a
// configuration are refused by it, as the facade itself refuses them at startup.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { Ajv } from 'ajv';
import { parse, parseAllDocuments } from 'yaml';
import { configurationSchema, configurationSchemaText } from '../../lib/config/json-schema.js';
import { emptyConfig } from '../../lib/config/model.js';
import { propertyLookup } from '../../lib/config/placeholders.js';
import { applyYamlDsl, TOP_LEVEL } from '../../lib/config/yaml-dsl.js';
import { ROOT } from '../helpers.js';

const SCHEMA_FILE = join(ROOT, 'config.schema.json');
const validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object);

/** Every file under `dir` whose name matches, outside node_modules. */
function filesUnder(dir: string, name: RegExp): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'node_modules') return [];
    if (statSync(path).isDirectory()) return filesUnder(path, name);
    return name.test(entry) ? [path] : [];
  });
}

/** A parsed YAML value that is a DSL configuration (a contract, a manifest or a fragment is not). */
function isConfiguration(doc: unknown): boolean {
  const isItem = (v: unknown): boolean => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => (TOP_LEVEL as readonly string[]).includes(k));
  if (Array.isArray(doc)) return doc.some(isItem);
  return isItem(doc) && !Object.hasOwn(doc as object, 'openapi');
}

/** Each YAML configuration of the repository: its text and where it is. */
function repositoryConfigurations(): { where: string; text: string }[] {
  const found: { where: string; text: string }[] = [];
  const consider = (where: string, text: string): void => {
    for (const doc of parseAllDocuments(text)) {
      const value = doc.toJS() as unknown;
      if (isConfiguration(value)) found.push({ where, text: doc.toString() });
      // A Kubernetes ConfigMap holds a configuration file as a string (deploy/kubernetes.yaml).
      const data = (value as { kind?: string; data?: Record<string, unknown> } | null)?.kind === 'ConfigMap' ? (value as { data?: Record<string, unknown> }).data : undefined;
      for (const [key, file] of Object.entries(data ?? {})) if (/\.ya?ml$/.test(key) && typeof file === 'string') consider(`${where} (ConfigMap ${key})`, file);
    }
  };
  const yamlFiles = [join(ROOT, 'config.yaml'), ...['test/fixtures', 'test/binding', 'scripts/bench', 'examples', 'deploy'].flatMap((d) => filesUnder(join(ROOT, d), /\.ya?ml$/))];
  for (const file of yamlFiles) consider(relative(ROOT, file), readFileSync(file, 'utf8'));
  const markdown = [join(ROOT, 'README.md'), ...filesUnder(join(ROOT, 'docs'), /\.md$/), ...filesUnder(join(ROOT, 'examples'), /\.md$/)];
  for (const file of markdown) {
    const text = readFileSync(file, 'utf8');
    for (const block of text.matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)) {
      const line = text.slice(0, block.index).split('\n').length;
      consider(`${relative(ROOT, file)}:${line}`, block[1]!);
    }
  }
  return found;
}

function errorsOf(value: unknown): string {
  return validate(value) ? '' : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');
}

test('config.schema.json is what lib/config/json-schema.ts generates (npm run schema writes it)', () => {
  assert.equal(readFileSync(SCHEMA_FILE, 'utf8'), configurationSchemaText(), 'config.schema.json is stale: run npm run schema');
  assert.deepEqual(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')), configurationSchema());
});

test('the package publishes it as svc-facade/config.schema.json', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; exports: Record<string, unknown> };
  assert.ok(pkg.files.includes('config.schema.json'));
  assert.equal(pkg.exports['./config.schema.json'], './config.schema.json');
  // The package resolving its own name through its exports, as a user's tooling would.
  assert.equal(createRequire(join(ROOT, 'package.json')).resolve('svc-facade/config.schema.json'), SCHEMA_FILE);
});

test('every YAML configuration in the repository passes the schema, and the facade reads each one', () => {
  const configurations = repositoryConfigurations();
  // Not vacuous: config.yaml, the bench and example configurations, the ConfigMap and the docs' blocks.
  assert.ok(configurations.length >= 15, `only ${configurations.length} configurations found`);
  for (const where of ['config.yaml', 'scripts/bench/route.yaml', 'examples/sidecar/app.yaml', 'deploy/kubernetes.yaml (ConfigMap app.yaml)']) {
    assert.ok(configurations.some((c) => c.where === where), `${where} not found`);
  }
  assert.ok(configurations.some((c) => c.where.startsWith('docs/configuration.md')), 'the configuration page has YAML blocks');
  for (const { where, text } of configurations) {
    assert.equal(errorsOf(parse(text)), '', where);
    // The schema and the facade agree: what passes one is read by the other (placeholders with no value
    // take their default, or one made up here).
    const lookup = propertyLookup(new Map(), new Proxy({}, { get: () => '1' }));
    assert.doesNotThrow(() => applyYamlDsl(emptyConfig(ROOT), text, where, lookup), where);
  }
});

/** Configurations the facade refuses at startup, and so does the schema (the failing path in the schema's words). */
const REFUSED: [string, string, string][] = [
  ['a nested typo', '- restConfiguration:\n    clientRequestValidaton: true\n', '/0/restConfiguration must NOT have additional properties'],
  ['a misspelt server option', '- server:\n    prot: 9123\n', '/0/server must NOT have additional properties'],
  ['a port out of range', '- server:\n    port: 70000\n', '/0/server/port must be <= 65535'],
  ['an unknown bindingMode', '- restConfiguration:\n    bindingMode: yaml\n', '/0/restConfiguration/bindingMode must match a schema in anyOf'],
  ['a duration without a known unit', '- backend:\n    timeout: 10h\n', '/0/backend/timeout must match a schema in anyOf'],
  ['a unit that is no unit (an Object.prototype key)', '- backend:\n    timeout: 10constructor\n', '/0/backend/timeout must match a schema in anyOf'],
  ['a context path without a slash', '- restConfiguration:\n    contextPath: api\n', '/0/restConfiguration/contextPath must match a schema in anyOf'],
  ['an unknown top-level item', '- rests:\n    openApi:\n      specification: x.json\n', '/0 must NOT have additional properties'],
  ['an unknown openApi option', '- rest:\n    openApi:\n      specifcation: x.json\n', '/0/rest/openApi must NOT have additional properties'],
  ['a route without from', '- route:\n    uri: direct:x\n', "/0/route must have required property 'from'"],
  ['a from uri of another scheme', '- from:\n    uri: timer:tick\n', '/0/from/uri must match a schema in anyOf'],
  ['an unknown step', '- from:\n    uri: direct:x\n    steps:\n      - setBodyy:\n          constant: 1\n', '/0/from/steps/0 must NOT have additional properties'],
  ['two expressions in one step', '- from:\n    uri: direct:x\n    steps:\n      - setBody:\n          constant: 1\n          simple: x\n', '/0/from/steps/0/setBody must match exactly one schema in oneOf'],
  ['a setHeader without a name', '- from:\n    uri: direct:x\n    steps:\n      - setHeader:\n          constant: 1\n', "/0/from/steps/0/setHeader must have required property 'name'"],
  ['a misspelt step key', '- from:\n    uri: direct:x\n    steps:\n      - setHeader:\n          nmae: X\n          constant: 1\n', '/0/from/steps/0/setHeader must NOT have additional properties'],
  ['a to of another scheme', '- from:\n    uri: direct:x\n    steps:\n      - to: ftp://backend\n', '/0/from/steps/0/to must match a schema in anyOf'],
  ['an endpointProperty without value', '- restConfiguration:\n    endpointProperty:\n      - key: oauthProfile\n', '/0/restConfiguration/endpointProperty must match a schema in anyOf'],
  ['an invalid value under another spelling', '- restConfiguration:\n    client-request-validation: maybe\n', '/0/restConfiguration/client-request-validation must match a schema in anyOf'],
  ['a section that is no mapping', '- observe: true\n', '/0/observe must be object'],
];

/** Configurations both accept: other spellings the facade reads, placeholders, the shorthands. */
const ACCEPTED: string[] = [
  '- restConfiguration:\n    bindingMode: JSON\n    port: 9123\n    host: 127.0.0.1\n',
  '- server:\n    port: "{{PORT:8080}}"\n    requestTimeout: 10s\n    maxBodySize: 2MiB\n    workers: 2\n- backend:\n    timeout: 1500\n    trustedProxies: 10.0.0.0/8\n',
  '- rest:\n    openApi:\n      specification: x.json\n      missingOperation: Mock\n',
  '- from:\n    uri: direct:x\n    steps:\n      - removeHeader: X-Temp\n      - log: hello\n      - setBody:\n          expression:\n            simple: "${body}"\n      - to:\n          uri: http://127.0.0.1:9000\n          parameters: { timeout: 5s }\n',
  'restConfiguration:\n  clientRequestValidation: "true"\n',
  '- restConfiguration:\n    client-request-validation: true\n    binding_mode: auto\n- server:\n    KEEP_ALIVE_TIMEOUT: 1s\n',
  '',
];

test('the schema refuses a typo anywhere (restConfiguration: { clientRequestValidaton: true }), as the facade does at startup', () => {
  for (const [what, text, error] of REFUSED) {
    assert.match(errorsOf(parse(text)), new RegExp(`(^|; )${error.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`), what);
    assert.throws(() => applyYamlDsl(emptyConfig(ROOT), text, 'refused.yaml', propertyLookup(new Map(), {})), what);
  }
});

test('the schema accepts what the facade accepts: any case of an enum value, units, placeholders, step shorthands', () => {
  for (const text of ACCEPTED) {
    assert.equal(errorsOf(parse(text)), '', text);
    assert.doesNotThrow(() => applyYamlDsl(emptyConfig(ROOT), text, 'accepted.yaml', propertyLookup(new Map(), {})), text);
  }
});
