// The XML Object's nodeType over real HTTP with the 3.2 contract: the mock writes its XML example with
// attributes, text, CDATA, wrapped and unwrapped arrays and an inlined object; a routed operation parses
// that same document (binding), answers it as JSON and writes it back as the identical XML; validation
// reads typed attributes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withContract32, text } from './fixture.js';

const LABEL_XML =
  '<?xml version="1.0" encoding="UTF-8"?><label id="7" rev="3"><price currency="EUR">9.5</price>' +
  '<![CDATA[fragile <glass> & ]]]]><![CDATA[> more]]><tags><tag>red</tag><tag>round</tag></tags>' +
  '<color>blue</color><color>green</color><author>ann</author></label>';
const LABEL = {
  id: 7,
  price: { currency: 'EUR', amount: 9.5 },
  notes: 'fragile <glass> & ]]> more',
  tags: ['red', 'round'],
  colors: ['blue', 'green'],
  meta: { author: 'ann', revision: 3 },
};

const put = (url: string, body: string, accept: string) => fetch(url, { method: 'PUT', headers: { 'content-type': 'application/xml', accept }, body });

test('the mock writes the XML example by nodeType', async () => {
  await withContract32({}, async (v1) => {
    const res = await text(await fetch(`${v1}/labels/7`));
    assert.equal(res.status, 200);
    assert.equal(res.type, 'application/xml');
    assert.equal(res.body, LABEL_XML);
  });
});

test('binding parses that document into the value, and writes the value back as the same document', async () => {
  const seen: unknown[] = [];
  await withContract32({ missingOperation: 'ignore', restConfiguration: { bindingMode: 'auto' }, routes: { putLabel: (ex) => void seen.push(ex.body) } }, async (v1) => {
    const json = await text(await put(`${v1}/labels/7`, LABEL_XML, 'application/json'));
    assert.equal(json.status, 200);
    assert.equal(json.type, 'application/json');
    assert.deepEqual(JSON.parse(json.body), LABEL);
    assert.deepEqual(seen[0], LABEL);
    const xml = await text(await put(`${v1}/labels/7`, LABEL_XML, 'application/xml'));
    assert.equal(xml.status, 200);
    assert.equal(xml.type, 'application/xml');
    assert.equal(xml.body, LABEL_XML);
  });
});

test('validation types attributes and text by their schemas', async () => {
  await withContract32({ restConfiguration: { clientRequestValidation: true } }, async (v1) => {
    const ok = await put(`${v1}/labels/7`, LABEL_XML, 'application/xml');
    assert.equal(ok.status, 200);
    await ok.text();
    const bad = await put(`${v1}/labels/7`, LABEL_XML.replace('id="7"', 'id="seven"').replace('>9.5<', '>cheap<'), 'application/xml');
    assert.equal(bad.status, 400);
    const problem = await bad.json();
    assert.deepEqual(problem.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/id', '/price/amount']);
  });
});
