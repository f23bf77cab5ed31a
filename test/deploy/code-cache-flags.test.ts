// The shipped Kubernetes manifest must not run node under V8 flags the image's code cache was not built with:
// V8 then rejects the cache (silently) and every start compiles the bundle from source (see
// scripts/bundle/load.mjs). Checked for real: dist/load.js under the manifest's NODE_OPTIONS keeps its cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ROOT } from '../helpers.js';

const ENV = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SVC_|NODE_OPTIONS$|NODE_V8_COVERAGE$)/.test(k)));

function rejected(nodeOptions: string | undefined): boolean {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', "const { script } = await import('./dist/load.js'); console.log(script.cachedDataRejected);"], {
    cwd: ROOT,
    env: nodeOptions === undefined ? ENV : { ...ENV, NODE_OPTIONS: nodeOptions },
    encoding: 'utf8',
  });
  return out.trim() === 'true';
}

test("kubernetes.yaml: the container's NODE_OPTIONS keep the image's V8 code cache", () => {
  const deployment = parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes.yaml'), 'utf8')).map((d) => d.toJS() as Record<string, any>).find((d) => d.kind === 'Deployment')!;
  const env = (deployment.spec.template.spec.containers[0].env ?? []) as { name: string; value?: string }[];
  const nodeOptions = env.find((e) => e.name === 'NODE_OPTIONS')?.value;
  assert.equal(rejected(undefined), false, 'the build wrote a cache this node accepts');
  assert.equal(rejected(nodeOptions), false, `NODE_OPTIONS=${nodeOptions} makes V8 reject the code cache`);
  // The check can fail: a heap limit is such a flag.
  assert.equal(rejected('--max-old-space-size=192'), true);
});
