// svc.server.tls.*, svc.server.http2 and svc.observe.tls.* on every surface: YAML (`tls:` under `server:`),
// XML (`<server><tls/></server>`), properties, environment, the fluent API and createFacade, all to the
// same values, with the same errors; and in config.schema.json.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { RouteBuilder } from '../../lib/index.js';
import { loadConfigFiles } from '../../lib/config/load.js';
import { emptyConfig, setOptions } from '../../lib/config/model.js';
import { applyEnvironment } from '../../lib/config/env.js';
import { ROOT, tempDir } from '../helpers.js';

const EXPECTED_TLS = { certFile: 'server.pem', keyFile: 'server.key', caFile: 'ca.pem', clientAuth: 'require', minVersion: 'TLSv1.3', forwardClientCert: true };
const EXPECTED_OBSERVE_TLS = { certFile: 'm.pem', keyFile: 'm.key' };

test('every surface sets svc.server.tls.*, svc.server.http2 and svc.observe.tls.* to the same values', async () => {
  const dir = tempDir({
    'app.yaml': `- server:\n    http2: false\n    tls:\n      certFile: server.pem\n      keyFile: server.key\n      caFile: ca.pem\n      clientAuth: REQUIRE\n      min-version: TLSv1.3\n      forwardClientCert: true\n- observe:\n    port: 9876\n    tls: { certFile: m.pem, keyFile: m.key }\n`,
    'app.xml': `<svc><server http2="false"><tls certFile="server.pem" keyFile="server.key" caFile="ca.pem" clientAuth="require" minVersion="TLSv1.3" forwardClientCert="true"/></server><observe port="9876"><tls certFile="m.pem" keyFile="m.key"/></observe></svc>`,
    'app.properties': 'svc.server.http2=false\nsvc.server.tls.certFile=server.pem\nsvc.server.tls.key-file=server.key\nsvc.server.tls.caFile=ca.pem\nsvc.server.tls.clientAuth=require\nsvc.server.tls.minVersion=TLSv1.3\nsvc.server.tls.forwardClientCert=true\nsvc.observe.tls.certFile=m.pem\nsvc.observe.tls.keyFile=m.key\n',
  });
  const configs = [await loadConfigFiles([join(dir, 'app.yaml')], {}), await loadConfigFiles([join(dir, 'app.xml')], {}), await loadConfigFiles([join(dir, 'app.properties')], {})];

  const fromEnv = emptyConfig();
  applyEnvironment(fromEnv, { SVC_SERVER_HTTP2: 'false', SVC_SERVER_TLS_CERTFILE: 'server.pem', SVC_SERVER_TLS_KEY_FILE: 'server.key', SVC_SERVER_TLS_CAFILE: 'ca.pem', SVC_SERVER_TLS_CLIENTAUTH: 'require', SVC_SERVER_TLS_MINVERSION: 'TLSv1.3', SVC_SERVER_TLS_FORWARDCLIENTCERT: 'true', SVC_OBSERVE_TLS_CERTFILE: 'm.pem', SVC_OBSERVE_TLS_KEYFILE: 'm.key' });
  configs.push(fromEnv);

  const fromObject = emptyConfig();
  setOptions(fromObject, 'server', { http2: false, tls: { certFile: 'server.pem', keyFile: 'server.key', caFile: 'ca.pem', clientAuth: 'require', minVersion: 'TLSv1.3', forwardClientCert: true } }, 'createFacade()');
  setOptions(fromObject, 'observe', { tls: { certFile: 'm.pem', keyFile: 'm.key' } }, 'createFacade()');
  configs.push(fromObject);

  class Fluent extends RouteBuilder {
    configure(): void {
      this.server().http2(false).tls({ certFile: 'server.pem', keyFile: 'server.key', caFile: 'ca.pem', clientAuth: 'require', minVersion: 'TLSv1.3', forwardClientCert: true });
      this.observe().tls({ certFile: 'm.pem', keyFile: 'm.key' });
    }
  }
  const fromFluent = emptyConfig();
  await new Fluent().applyTo(fromFluent);
  configs.push(fromFluent);

  for (const [i, config] of configs.entries()) {
    assert.deepEqual(config.tls, EXPECTED_TLS, `surface ${i}`);
    assert.deepEqual(config.observeTls, EXPECTED_OBSERVE_TLS, `surface ${i}`);
    assert.equal(config.server.http2, false, `surface ${i}`);
  }
});

test('a wrong TLS option fails naming it as svc.server.tls.* on every surface', async () => {
  const dir = tempDir({
    'a.yaml': '- server:\n    tls:\n      clientAuth: maybe\n',
    'b.properties': 'svc.server.tls.minVersion=TLSv1.1\n',
    'c.yaml': '- server:\n    tls:\n      certFiel: x.pem\n',
    'd.yaml': '- server:\n    tls: on\n',
    'e.xml': '<svc><server><ssl certFile="x"/></server></svc>',
  });
  await assert.rejects(loadConfigFiles([join(dir, 'a.yaml')], {}), /option server\.tls\.clientAuth has invalid value "maybe"; allowed: none, request, require/);
  await assert.rejects(loadConfigFiles([join(dir, 'b.properties')], {}), /option server\.tls\.minVersion has invalid value "TLSv1\.1"; allowed: TLSv1\.2, TLSv1\.3/);
  await assert.rejects(loadConfigFiles([join(dir, 'c.yaml')], {}), /unknown option server\.tls\.certFiel; allowed: certFile, keyFile, caFile, clientAuth, minVersion, forwardClientCert/);
  await assert.rejects(loadConfigFiles([join(dir, 'd.yaml')], {}), /option server\.tls has invalid value "on"; allowed: a mapping of certFile/);
  await assert.rejects(loadConfigFiles([join(dir, 'e.xml')], {}), /<server> takes its options as attributes, not <ssl>/);
});

test('config.schema.json knows server.tls and observe.tls', () => {
  const validate = new Ajv({ allErrors: true, allowUnionTypes: true }).compile(JSON.parse(readFileSync(join(ROOT, 'config.schema.json'), 'utf8')) as object);
  assert.equal(validate([{ server: { http2: true, tls: { certFile: 'a.pem', keyFile: 'a.key', clientAuth: 'request', caFile: 'ca.pem', minVersion: 'TLSv1.2' } } }, { observe: { tls: { certFile: 'm.pem', keyFile: 'm.key' } } }]), true, JSON.stringify(validate.errors));
  assert.equal(validate([{ server: { tls: { clientAuth: 'maybe' } } }]), false);
  assert.equal(validate([{ observe: { tls: { forwardClientCert: true } } }]), false, 'forwardClientCert is the main port\'s');
});
