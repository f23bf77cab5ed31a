// The fast YAML parser (js-yaml with YAML 1.2's core schema as `yaml` reads it) must give exactly the
// document `yaml` gives: on every YAML file of the corpus, and on the scalars where the two libraries'
// own schemas differ. Whatever it leaves to `yaml` (anchors, directives, errors) must still come out as today.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseDocument, parseWithYaml } from '../../lib/contract/parse.js';
import { parseYamlFast } from '../../lib/contract/yaml-fast.js';
import { CORPUS } from '../helpers.js';

function yamlFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? yamlFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []));
}

test('every YAML file of the corpus parses to the same document with both parsers', () => {
  const files = yamlFiles(CORPUS);
  assert.ok(files.length > 100, `only ${files.length} YAML files found under ${CORPUS}`);
  const fastPath: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const fast = parseYamlFast(text);
    if (fast === undefined) continue;
    fastPath.push(relative(CORPUS, file));
    assert.deepStrictEqual(fast.doc, parseWithYaml(text), relative(CORPUS, file));
  }
  // The big contracts, the reason for the fast parser, do take it.
  assert.ok(fastPath.includes('apisguru-stripe-2020-08-27/openapi.yaml'), 'Stripe was left to yaml');
  assert.ok(fastPath.length > files.length * 0.8, `only ${fastPath.length} of ${files.length} files took the fast path`);
});

test('scalars resolve as in YAML 1.2 core, where js-yaml and yaml schemas differ', () => {
  const text = [
    'underscored: 1_000',
    'binary: 0b101',
    'octal: 0o17',
    'leadingZero: 017',
    'hex: 0x1F',
    'plusFloat: +.5',
    'exp: 1e3',
    'inf: -.inf',
    'nan: .NaN',
    'yes: yes',
    'on: off',
    'tilde: ~',
    'empty:',
    'bools: [True, FALSE, tRue]',
    'date: 2020-08-27',
    'sexagesimal: 1:30',
    'version: 1.10',
    'quoted: "123"',
    'negZero: -0',
    '"__proto__": {polluted: true}',
    '200: ok',
  ].join('\n');
  const fast = parseYamlFast(text);
  assert.ok(fast !== undefined);
  assert.deepStrictEqual(fast.doc, parseWithYaml(text));
  const doc = fast.doc as Record<string, unknown>;
  assert.equal(doc.underscored, '1_000');
  assert.equal(doc.binary, '0b101');
  assert.equal(doc.octal, 15);
  assert.equal(doc.date, '2020-08-27');
  assert.equal(doc.yes, 'yes');
  assert.equal(Object.getPrototypeOf(doc), Object.prototype);
  assert.deepStrictEqual(Object.getOwnPropertyDescriptor(doc, '__proto__')?.value, { polluted: true });
});

test('duplicate keys still fail with yaml\'s message, naming the line', () => {
  const text = `openapi: 3.0.3\ninfo:\n  title: t\n  version: '1'\npaths: {}\ninfo: again\n`;
  assert.equal(parseYamlFast(text), undefined);
  assert.throws(() => parseDocument(text), (err: Error) => /Map keys must be unique/.test(err.message) && /line 6/.test(err.message));
});

test('anchors, directives and unknown tags are left to yaml, which reads them as before', () => {
  const anchored = 'a: &x {b: 1}\nc: *x\n';
  assert.equal(parseYamlFast(anchored), undefined);
  const doc = parseDocument(anchored) as Record<string, unknown>;
  assert.equal(doc.a, doc.c);
  const yaml11 = '%YAML 1.1\n---\nflag: yes\n';
  assert.equal(parseYamlFast(yaml11), undefined);
  assert.deepStrictEqual(parseDocument(yaml11), { flag: true });
  const laughs = ['a: &a [x, x, x, x, x, x, x, x, x]', ...'bcdefghij'.split('').map((k, i) => `${k}: &${k} [${Array(9).fill(`*${'abcdefghij'[i]}`).join(', ')}]`)].join('\n');
  assert.throws(() => parseDocument(laughs), /[Aa]lias/);
});
