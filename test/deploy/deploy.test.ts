// deploy/: the Dockerfile and the Kubernetes example, checked without a container engine: the manifest
// parses, its configuration starts a real facade whose probes answer where the manifest says, and the
// image's HEALTHCHECK command is run against a real facade.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { createFacade, silentLogger } from '../../lib/index.js';
import { parseProperties } from '../../lib/config/properties.js';
import { ROOT, serve, tempDir } from '../helpers.js';

const DOCKERFILE = readFileSync(join(ROOT, 'deploy/Dockerfile'), 'utf8');
/** Dockerfile instructions, continuation lines joined and comments dropped. */
const INSTRUCTIONS = DOCKERFILE.replace(/\\\n\s*/g, '')
  .split('\n')
  .filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));

interface Container {
  args: string[];
  ports: { name: string; containerPort: number }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  startupProbe: { httpGet: { path: string; port: string } };
  volumeMounts: { name: string; mountPath: string }[];
}

function manifest(): Record<string, Record<string, any>> {
  const docs = parseAllDocuments(readFileSync(join(ROOT, 'deploy/kubernetes.yaml'), 'utf8'));
  for (const d of docs) assert.deepEqual(d.errors, []);
  return Object.fromEntries(docs.map((d) => d.toJS() as Record<string, any>).map((d) => [d.kind, d]));
}

test('kubernetes.yaml: its configuration starts a facade whose probes and metrics answer on the ports and paths the manifest names', async () => {
  const { ConfigMap, Deployment, Service } = manifest();
  assert.ok(ConfigMap && Deployment && Service, 'a ConfigMap, a Deployment and a Service');
  const pod = Deployment.spec.template;
  const container = pod.spec.containers[0] as Container;
  assert.deepEqual(Deployment.spec.selector.matchLabels, pod.metadata.labels);
  assert.deepEqual(Service.spec.selector, pod.metadata.labels);
  const port = (name: string) => container.ports.find((p) => p.name === name)!.containerPort;
  assert.ok(container.ports.some((p) => p.name === Service.spec.ports[0].targetPort), 'the Service targets a named container port');

  // The configuration as the pod mounts it, with the image's /app replaced by this checkout.
  const mount = container.volumeMounts.find((m) => m.name === 'config')!.mountPath;
  const dir = tempDir();
  for (const [name, text] of Object.entries(ConfigMap.data as Record<string, string>)) writeFileSync(join(dir, name), text.replaceAll('/app/', `${ROOT}/`));
  const props = parseProperties(ConfigMap.data['application.properties']);
  assert.equal(Number(props.get('svc.server.port')), port('http'));
  assert.equal(Number(props.get('svc.observe.port')), port('management'));
  assert.equal(String(pod.metadata.annotations['prometheus.io/port']), String(port('management')));
  assert.equal(container.args[0]!.replace(mount, dir).startsWith(dir), true, 'the args name a file of the mounted ConfigMap');

  // Ports 0: the test must not depend on 8080/9876 being free here.
  const facade = await createFacade([container.args[0]!.replace(mount, dir)], { logger: silentLogger, env: { SVC_OBSERVE_PORT: '0' } });
  const main = await facade.listen(0, '127.0.0.1');
  try {
    const management = `http://127.0.0.1:${facade.managementAddress!.port}`;
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
      assert.equal(probe.httpGet.port, 'management');
      assert.equal((await fetch(`${management}${probe.httpGet.path}`)).status, 200, probe.httpGet.path);
    }
    assert.equal((await fetch(`${management}${pod.metadata.annotations['prometheus.io/path']}`)).status, 200);
    assert.equal((await fetch(`http://127.0.0.1:${main.port}/api/v3/user/user1`)).status, 200, 'the example serves the contract');
    // Kubernetes sends SIGKILL after the grace period: the drain delay and the shutdown timeout must fit in it.
    const drain = Number(/^(\d+)s$/.exec(props.get('svc.observe.drainDelay')!)![1]);
    assert.ok(pod.spec.terminationGracePeriodSeconds * 1000 > drain * 1000 + facade.serverOptions.shutdownTimeout);
  } finally {
    await facade.stop();
  }
});

test('Dockerfile: multi-stage, production dependencies only, not root, exec-form entry point, every published path copied', () => {
  const stages = INSTRUCTIONS.filter((l) => /^FROM /i.test(l));
  assert.ok(stages.length >= 2, 'multi-stage');
  const runtime = INSTRUCTIONS.slice(INSTRUCTIONS.lastIndexOf(stages.at(-1)!));
  assert.ok(INSTRUCTIONS.some((l) => /^RUN npm ci --omit=dev\b/.test(l)), 'production dependencies from the lockfile');
  assert.ok(runtime.some((l) => /^COPY --from=deps \/app\/node_modules /.test(l)), 'the runtime takes the production node_modules');
  assert.ok(!runtime.some((l) => /^RUN npm (ci|install)(?!.*--omit=dev)/.test(l)), 'no dev dependencies in the runtime');
  const user = runtime.filter((l) => /^USER /.test(l)).at(-1);
  assert.ok(user && !/^USER (root|0)(:|$)/.test(user), `runs as a non-root user (${user})`);
  assert.deepEqual(JSON.parse(runtime.find((l) => l.startsWith('ENTRYPOINT '))!.slice('ENTRYPOINT '.length)), ['node', 'dist/main.js'], 'exec form: node is PID 1 and gets SIGTERM');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] };
  const copied = runtime.filter((l) => l.startsWith('COPY ')).join('\n');
  for (const path of pkg.files) assert.match(copied, new RegExp(`[ /]${path.replace('.', '\\.')}\\b`), `the image has ${path}, as the package does`);

  const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  for (const needed of ['lib', 'spec', 'svc-mock', 'package.json', 'package-lock.json', 'tsconfig.json', 'config.yaml']) assert.ok(!ignored.includes(needed), `${needed} is in the build context`);
  for (const kept of ['node_modules', '.git', 'dist']) assert.ok(ignored.includes(kept), `${kept} stays out of the build context`);
  // Everything the build stage copies is in the context (a `!` line brings back one file of an ignored folder).
  for (const line of INSTRUCTIONS.filter((l) => /^COPY (?!--from)/.test(l))) {
    for (const source of line.split(/\s+/).slice(1, -1)) {
      assert.ok(existsSync(join(ROOT, source)), `${source} exists`);
      const excluded = ignored.some((i) => source === i || source.startsWith(`${i}/`));
      assert.ok(!excluded || ignored.includes(`!${source}`), `${source} is in the build context`);
    }
  }
});

// The image's HEALTHCHECK (dist/healthcheck.js) is run against the real CLI in test/deploy/healthcheck.test.ts.
