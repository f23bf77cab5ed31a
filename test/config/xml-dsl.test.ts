// The XML DSL (SPEC §12): <svc> with <restConfiguration>, <rest><openApi/></rest> and <route>s.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFacade, Errors, silentLogger, SvcError } from '../../lib/index.js';
import { PETSTORE, serve, tempDir } from '../helpers.js';

const xml = (body: string) => `<?xml version="1.0" encoding="UTF-8"?>\n<svc xmlns="http://svc-facade.dev/xml">\n${body}\n</svc>\n`;

test('restConfiguration, rest/openApi and routes with every step', async () => {
  const dir = tempDir({
    'petstore.json': readFileSync(PETSTORE),
    'routes.xml': xml(`
  <restConfiguration contextPath="/xml" clientRequestValidation="false">
    <endpointProperty key="custom" value="v"/>
  </restConfiguration>
  <rest>
    <openApi specification="petstore.json" missingOperation="ignore"/>
  </rest>
  <route>
    <from uri="direct:getPetById"/>
    <setProperty name="kind"><constant>dog</constant></setProperty>
    <setHeader name="X-Temp"><constant>t</constant></setHeader>
    <removeHeader name="X-Temp"/>
    <setHeader name="X-Camel"><constant>c</constant></setHeader>
    <removeHeader headerName="X-Camel"/>
    <log message="pet \${header.petId}"/>
    <to uri="direct:decorate"/>
    <setBody><simple>{"id": \${header.petId}, "kind": "\${exchangeProperty.kind}", "note": "a &amp; b &lt;c&gt;"}</simple></setBody>
    <setHeader name="Content-Type"><constant>application/json</constant></setHeader>
  </route>
  <route>
    <from uri="direct:decorate"/>
    <setHeader name="X-Decorated"><simple>\${header.SvcHttpMethod}</simple></setHeader>
  </route>
  <route>
    <from uri="direct:getInventory"/>
    <setBody><json>{"available": 3, "sold": [1, 2]}</json></setBody>
  </route>
  <route>
    <from uri="direct:logoutUser"/>
    <setBody><constant><![CDATA[<bye/>]]></constant></setBody>
    <setHeader name="Content-Type"><constant>application/xml</constant></setHeader>
  </route>`),
  });
  const running = await serve([join(dir, 'routes.xml')], { env: {} });
  try {
    assert.equal(running.facade.basePath, '/xml');
    assert.equal(running.facade.contract.uri, join(dir, 'petstore.json'), 'the specification is found beside the XML file');
    const pet = await fetch(`${running.origin}/xml/pet/5`);
    assert.equal(pet.status, 200);
    assert.equal(pet.headers.get('x-decorated'), 'GET');
    assert.equal(pet.headers.get('x-temp'), null);
    assert.equal(pet.headers.get('x-camel'), null, "Camel's headerName attribute works too");
    assert.deepEqual(await pet.json(), { id: 5, kind: 'dog', note: 'a & b <c>' });
    assert.ok(running.logger.lines.includes('INFO [getPetById] pet 5'));
    const inventory = await fetch(`${running.origin}/xml/store/inventory`);
    assert.equal(inventory.headers.get('content-type'), 'application/json');
    assert.deepEqual(await inventory.json(), { available: 3, sold: [1, 2] }, '<json> holds a JSON value, not a string');
    const bye = await fetch(`${running.origin}/xml/user/logout`);
    assert.equal(await bye.text(), '<bye/>');
    assert.equal(bye.headers.get('content-type'), 'application/xml');
  } finally {
    await running.close();
  }
});

test('a rest-openapi consumer URI in <from> configures the contract', async () => {
  const dir = tempDir({ 'consumer.xml': xml(`<route><from uri="rest-openapi:${PETSTORE}?consumerComponentName=platform-http&amp;missingOperation=ignore"/></route>`) });
  const facade = await createFacade([join(dir, 'consumer.xml')], { env: {}, logger: silentLogger });
  assert.equal(facade.operations.length, 19);
  assert.ok(facade.operations.every((o) => o.disposition === 'ignored'));
});

test('invalid XML configuration fails startup naming the file, the option and what is allowed', async () => {
  const cases: [string, RegExp, number][] = [
    [xml('<restConfiguration bindingMode="yes"/>'), /option bindingMode has invalid value "yes"; allowed: off, auto, json, xml, json_xml/, 2],
    [xml('<restConfiguration colour="blue"/>'), /unknown option colour; allowed: contextPath, clientRequestValidation/, 2],
    [xml('<rest><openApi specification="x.json" missingOperation="later"/></rest>'), /option openApi\.missingOperation has invalid value "later"; allowed: fail, ignore, mock/, 2],
    [xml('<rest><swagger/></rest>'), /unknown option rest\/swagger; allowed: openApi/, 2],
    [xml('<beans/>'), /unknown option <beans>; allowed: restConfiguration, rest, route/, 2],
    [xml('<route><setBody><constant>x</constant></setBody></route>'), /<route> must start with <from uri="..."\/>/, 2],
    [xml('<route><from uri="direct:a"/><bean ref="x"/></route>'), /\(direct:a\): unknown step bean; allowed: setBody, setHeader/, 2],
    [xml('<route><from uri="direct:a"/><setBody><json>{nope}</json></setBody></route>'), /<json> must hold a JSON value/, 2],
    [xml('<route><from uri="direct:a"/><setHeader name="X"><constnt>y</constnt></setHeader></route>'), /unknown option setHeader\.constnt; allowed: name, constant/, 2],
    ['<svc><unclosed></svc>', /not valid XML/, 2],
    ['<?xml version="1.0"?><!DOCTYPE svc [<!ENTITY x "boom">]><svc>&x;</svc>', /DOCTYPE declarations are not allowed/, 2],
  ];
  for (const [text, message, exitCode] of cases) {
    const dir = tempDir({ 'bad.xml': text });
    const file = join(dir, 'bad.xml');
    await assert.rejects(createFacade([file], { env: {}, logger: silentLogger }), (err: SvcError) => {
      assert.ok(err instanceof SvcError, String(err));
      assert.ok(err.message.startsWith(file), err.message);
      assert.match(err.message, message);
      assert.equal(err.exitCode, exitCode);
      return true;
    });
  }
  assert.equal(Errors.CONFIG_INVALID.exitCode, 2);
});
