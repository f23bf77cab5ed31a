// oauthProfile and consumer components from every configuration surface (SPEC §11, §12): YAML, XML,
// properties, environment variables, the fluent API and the rest-openapi URI, each enforcing the same profile
// and each failing closed with a component that does not declare support.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFacade, registerConsumerComponent, RouteBuilder, silentLogger, type FacadeInput } from '../../lib/index.js';
import { PETSTORE, serve } from '../helpers.js';
import { tempDir } from '../helpers.js';
import { AUDIENCE, ISSUER, signingKey, token } from './tokens.js';

const key = await signingKey('surface');
registerConsumerComponent('unchecked-http', { supportsOAuthProfile: false, create: () => ({}) });

// The profile lives in application.properties beside the DSL file (SPEC §1), its key file beside it too.
const PROFILE = `svc.oauth.main.issuer=${ISSUER}\nsvc.oauth.main.audience=${AUDIENCE}\nsvc.oauth.main.public-key-file=public.pem\n`;
const ROUTE_YAML = `- route:\n    from:\n      uri: direct:getPetById\n      steps:\n        - setBody:\n            simple: 'hello \${exchangeProperty.SvcOAuthTokenValidationResult.subject}'\n`;
const ROUTE_XML = `<route><from uri="direct:getPetById"/><setBody><simple>hello \${exchangeProperty.SvcOAuthTokenValidationResult.subject}</simple></setBody></route>`;
const xml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<svc>\n${body}\n</svc>\n`;

function project(files: Record<string, string>): string {
  const dir = tempDir({ 'public.pem': key.publicPem, 'application.properties': PROFILE, ...files });
  copyFileSync(PETSTORE, join(dir, 'petstore.json'));
  return dir;
}

class FluentRoutes extends RouteBuilder {
  constructor(private readonly component = 'platform-http') {
    super();
  }
  override configure(): void {
    this.restConfiguration().component(this.component).oauthProfile('main');
    this.oauth('main').issuer(ISSUER).audience(AUDIENCE, 'other').publicKeyFile(join(keyDir, 'public.pem')).algorithms('RS256', 'ES256').clockTolerance(5).jwksCooldown(10);
    this.rest().openApi().specification(PETSTORE).missingOperation('ignore');
    this.from('direct:getPetById').process((ex) => void (ex.message.body = `hello ${(ex.properties.SvcOAuthTokenValidationResult as { subject: string }).subject}`));
  }
}
const keyDir = project({});

/** Each surface, given the component to name: the facade input and its environment. */
const SURFACES: Record<string, (component: string) => { input: FacadeInput; env?: NodeJS.ProcessEnv }> = {
  'YAML restConfiguration endpointProperty': (component) => {
    const dir = project({
      'app.yaml': `- restConfiguration:\n    component: ${component}\n    endpointProperty:\n      - key: oauthProfile\n        value: main\n- rest:\n    openApi:\n      specification: petstore.json\n      missingOperation: ignore\n${ROUTE_YAML}`,
    });
    return { input: [join(dir, 'app.yaml')] };
  },
  'YAML rest-openapi URI': (component) => {
    const dir = project({ 'app.yaml': `- from:\n    uri: rest-openapi:petstore.json?consumerComponentName=${component}&oauthProfile=main&missingOperation=ignore\n${ROUTE_YAML}` });
    return { input: [join(dir, 'app.yaml')] };
  },
  'XML restConfiguration endpointProperty': (component) => {
    const dir = project({
      'app.xml': xml(`<restConfiguration component="${component}"><endpointProperty key="oauthProfile" value="main"/></restConfiguration><rest><openApi specification="petstore.json" missingOperation="ignore"/></rest>${ROUTE_XML}`),
    });
    return { input: [join(dir, 'app.xml')] };
  },
  'XML rest-openapi URI': (component) => {
    const dir = project({ 'app.xml': xml(`<route><from uri="rest-openapi:petstore.json?consumerComponentName=${component}&amp;oauthProfile=main&amp;missingOperation=ignore"/></route>${ROUTE_XML}`) });
    return { input: [join(dir, 'app.xml')] };
  },
  'properties file': (component) => {
    const dir = project({
      'app.properties': `svc.rest.openApi.specification=petstore.json\nsvc.rest.openApi.missingOperation=ignore\nsvc.rest.component=${component}\nsvc.rest.endpoint-property.oauthProfile=main\n`,
      'routes.yaml': ROUTE_YAML,
    });
    return { input: [join(dir, 'routes.yaml'), join(dir, 'app.properties')] };
  },
  'environment variables': (component) => {
    const dir = project({ 'routes.yaml': `- rest:\n    openApi:\n      specification: petstore.json\n      missingOperation: ignore\n${ROUTE_YAML}`, 'application.properties': '' });
    const env = {
      SVC_REST_COMPONENT: component,
      SVC_REST_ENDPOINTPROPERTY_OAUTHPROFILE: 'main',
      SVC_OAUTH_MAIN_ISSUER: ISSUER,
      SVC_OAUTH_MAIN_AUDIENCE: AUDIENCE,
      SVC_OAUTH_MAIN_PUBLIC_KEY_FILE: join(keyDir, 'public.pem'),
    };
    return { input: [join(dir, 'routes.yaml')], env };
  },
  'fluent API': (component) => ({ input: new FluentRoutes(component) }),
};

for (const [surface, make] of Object.entries(SURFACES)) {
  test(`${surface}: the profile is enforced on platform-http`, async () => {
    const { input, env } = make('platform-http');
    const running = await serve(input, { env: env ?? {} });
    try {
      const url = `${running.origin}/api/v3/pet/1`;
      const none = await fetch(url);
      assert.equal(none.status, 401);
      assert.equal(none.headers.get('www-authenticate'), 'Bearer');
      const wrong = await fetch(url, { headers: { authorization: `Bearer ${await token(key, { audience: 'nobody' })}` } });
      assert.equal(wrong.status, 401);
      const ok = await fetch(url, { headers: { authorization: `Bearer ${await token(key, { claims: { sub: 'bob' } })}` } });
      assert.equal(ok.status, 200);
      assert.equal(await ok.text(), 'hello bob');
    } finally {
      await running.close();
    }
  });

  test(`${surface}: a component that does not support oauthProfile fails startup`, async () => {
    const { input, env } = make('unchecked-http');
    await assert.rejects(createFacade(input, { env: env ?? {}, logger: silentLogger }), {
      message: 'The oauthProfile option is not supported by the resolved consumer component (unchecked-http); select a consumer component that enforces oauthProfile',
    });
  });
}
