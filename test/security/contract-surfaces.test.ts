// clientSecurityValidation and svc.security.* on every configuration surface, each seen at work: the API key
// file is read (a key not in it is refused, one in it admitted) only when the surface set both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { createFacade, RouteBuilder } from '../../lib/index.js';
import { memoryLogger } from '../helpers.js';
import { call, KEYS, securedDir } from './contract-security-fixture.js';

const XML = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<svc xmlns="http://svc-facade.dev/xml">\n${body}\n</svc>\n`;

async function expectKeysEnforced(input: Parameters<typeof createFacade>[0], env: NodeJS.ProcessEnv = {}): Promise<void> {
  const facade = await createFacade(input, { logger: memoryLogger(), env });
  const { port } = await facade.listen(0, '127.0.0.1');
  const origin = `http://127.0.0.1:${port}`;
  try {
    assert.equal((await call(origin, '/key')).status, 401, 'enforced');
    assert.equal((await call(origin, '/key', { 'x-api-key': 'not-in-the-file' })).status, 401, 'checked against the file');
    assert.equal((await call(origin, '/key', { 'x-api-key': KEYS.alice })).status, 200);
  } finally {
    await facade.stop();
  }
}

const REST = '- rest:\n    openApi:\n      specification: contract.json\n      missingOperation: mock\n';

test('YAML DSL: restConfiguration clientSecurityValidation and a security item', async () => {
  const dir = securedDir({ 'config.yaml': `- restConfiguration:\n    clientSecurityValidation: true\n${REST}- security:\n    apiKeys: api-keys.txt\n    principalHeader: X-User\n` });
  await expectKeysEnforced(join(dir, 'config.yaml'));
});

test('XML DSL: <restConfiguration clientSecurityValidation> and <security apiKeys>', async () => {
  const dir = securedDir({ 'config.xml': XML('<restConfiguration clientSecurityValidation="true"/>\n<rest><openApi specification="contract.json" missingOperation="mock"/></rest>\n<security apiKeys="api-keys.txt"/>') });
  await expectKeysEnforced(join(dir, 'config.xml'));
});

test('properties svc.rest.clientSecurityValidation and svc.security.apiKeys', async () => {
  const dir = securedDir({ 'application.properties': 'svc.rest.openApi.specification=contract.json\nsvc.rest.openApi.missingOperation=mock\nsvc.rest.clientSecurityValidation=true\nsvc.security.apiKeys=api-keys.txt\n' });
  await expectKeysEnforced(join(dir, 'application.properties'));
});

test('environment SVC_REST_CLIENTSECURITYVALIDATION and SVC_SECURITY_APIKEYS', async () => {
  const dir = securedDir({ 'config.yaml': REST });
  await expectKeysEnforced(join(dir, 'config.yaml'), { SVC_REST_CLIENTSECURITYVALIDATION: 'true', SVC_SECURITY_APIKEYS: join(dir, 'api-keys.txt') });
});

test('fluent API: restConfiguration().clientSecurityValidation() and security().apiKeys().handler()', async () => {
  const dir = securedDir();
  let handled = 0;
  class Routes extends RouteBuilder {
    configure(): void {
      this.restConfiguration().clientSecurityValidation(true);
      this.rest().openApi().specification(join(dir, 'contract.json')).missingOperation('mock');
      this.security().apiKeys(join(dir, 'api-keys.txt')).principalHeader('X-User').handler('custom', () => (handled++, true));
    }
  }
  await expectKeysEnforced(Routes);
  const facade = await createFacade(Routes, { logger: memoryLogger(), env: {} });
  const { port } = await facade.listen(0, '127.0.0.1');
  try {
    assert.equal((await call(`http://127.0.0.1:${port}`, '/custom')).status, 200);
    assert.equal(handled, 1);
  } finally {
    await facade.stop();
  }
});

test('createFacade: restConfiguration, security and securityHandlers; a bad value fails naming the option', async () => {
  const dir = securedDir();
  await expectKeysEnforced({ specification: join(dir, 'contract.json'), missingOperation: 'mock', baseDir: dir, restConfiguration: { clientSecurityValidation: true }, security: { apiKeys: 'api-keys.txt' } });
  await assert.rejects(createFacade({ specification: join(dir, 'contract.json'), restConfiguration: { clientSecurityValidation: 'yes' as unknown as boolean } }, { logger: memoryLogger(), env: {} }), /option clientSecurityValidation has invalid value "yes"; allowed: true, false/);
  await assert.rejects(createFacade({ specification: join(dir, 'contract.json'), security: { apiKey: 'x' } as never }, { logger: memoryLogger(), env: {} }), /unknown option security\.apiKey; allowed: apiKeys, basicUsers, principalHeader/);
});
