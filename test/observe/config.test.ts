// `svc.observe.*` options on every configuration surface, and invalid values failing startup the standard way.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createFacade, RouteBuilder, silentLogger, type FacadeInput } from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';

const spec = JSON.stringify(PETSTORE);

/** Serves the input and tells which of the probe paths answer 200. */
async function served(input: FacadeInput, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const app = await serve(input, { env });
  try {
    const paths = ['/observe/health/ready', '/observe/metrics', '/ops/health/ready', '/ops/metrics'];
    const statuses = await Promise.all(paths.map(async (p) => (await fetch(`${app.origin}${p}`)).status));
    return paths.filter((_, i) => statuses[i] === 200);
  } finally {
    await app.close();
  }
}

test('YAML, XML, properties, environment, fluent API and plain object all set svc.observe options', async () => {
  const dir = tempDir({
    'app.yaml': `- rest:\n    openApi:\n      specification: ${spec}\n      missingOperation: mock\n- observe:\n    healthPath: /ops/health\n    metrics: false\n`,
    'app.xml': `<svc><rest><openApi specification=${spec} missingOperation="mock"/></rest><observe metricsPath="/ops/metrics" health="false"/></svc>`,
    'app.properties': `svc.rest.openApi.specification=${PETSTORE}\nsvc.rest.openApi.missingOperation=mock\nsvc.observe.health-path=/ops/health\nsvc.observe.metricsPath=/ops/metrics\n`,
  });
  assert.deepEqual(await served([join(dir, 'app.yaml')]), ['/ops/health/ready']);
  assert.deepEqual(await served([join(dir, 'app.xml')]), ['/ops/metrics']);
  assert.deepEqual(await served([join(dir, 'app.properties')]), ['/ops/health/ready', '/ops/metrics']);
  assert.deepEqual(await served([join(dir, 'app.properties')], { SVC_OBSERVE_METRICS_PATH: '/elsewhere', SVC_OBSERVE_HEALTH: 'false' }), [], 'environment overrides properties');
  assert.deepEqual(await served({ specification: PETSTORE, missingOperation: 'mock', observe: { metricsPath: '/ops/metrics' } }), ['/observe/health/ready', '/ops/metrics']);

  class Routes extends RouteBuilder {
    configure(): void {
      this.rest().openApi().specification(PETSTORE).missingOperation('mock');
      this.observe().healthPath('/ops/health').metricsPath('/ops/metrics').accessLog(false).logFormat('json').drainDelay('0s');
    }
  }
  assert.deepEqual(await served(Routes), ['/ops/health/ready', '/ops/metrics']);
});

test('invalid observe options fail startup with exit code 2 naming the source, the option and the allowed values', async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ logFormat: 'xml' }, /^createFacade\(\): option observe\.logFormat has invalid value "xml"; allowed: text, json$/],
    [{ accessLog: 'yes' }, /^createFacade\(\): option observe\.accessLog has invalid value "yes"; allowed: true, false$/],
    [{ port: 70000 }, /option observe\.port has invalid value 70000; allowed: an integer from 0 to 65535$/],
    [{ healthPath: 'health' }, /option observe\.healthPath has invalid value "health"; allowed: a path starting with \/$/],
    [{ healthPath: '/' }, /option observe\.healthPath has invalid value "\/"; allowed: a path starting with \/ other than \/$/],
    [{ drainDelay: 'soon' }, /option observe\.drainDelay has invalid value "soon"/],
    [{ tracing: true }, /^createFacade\(\): unknown option observe\.tracing; allowed: health, healthPath, metrics, metricsPath, port, host, drainDelay, logFormat, accessLog$/],
  ];
  for (const [observe, message] of cases) {
    await assert.rejects(createFacade({ specification: PETSTORE, missingOperation: 'mock', observe }, { logger: silentLogger, env: {} }), (err: { code: string; exitCode: number; message: string }) => {
      assert.match(err.message, message);
      assert.equal(err.exitCode, 2);
      return true;
    });
  }
  const dir = tempDir({ 'app.yaml': `- observe:\n    logformat: yaml\n` });
  await assert.rejects(createFacade([join(dir, 'app.yaml')], { logger: silentLogger, env: {} }), /app\.yaml: option observe\.logFormat has invalid value "yaml"; allowed: text, json/);
});
