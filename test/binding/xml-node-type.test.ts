// The XML Object's `nodeType` (OpenAPI 3.2) in the codec: attribute, text, cdata, element (a wrapped
// array), none (an unwrapped array, an object whose properties sit in its parent); `attribute` and
// `wrapped` still read as 3.0/3.1 wrote them. Each case is written, then parsed back to the same value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseXml, writeXml, type Deref, type Schema } from '../../lib/codec/xml.js';

const deref: Deref = (schema) => schema;
const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';
const object = (properties: Record<string, Schema>, xml?: Schema): Schema => ({ type: 'object', properties, ...(xml ? { xml } : {}) });

function roundTrip(schema: Schema, value: unknown, xml: string): void {
  const written = writeXml(value, schema, { deref });
  assert.equal(written, PROLOG + xml);
  assert.deepEqual(parseXml(written, schema, { deref }), value);
}

test('nodeType attribute and attribute: true both make attributes, typed when parsed', () => {
  const schema = object({ id: { type: 'integer', xml: { nodeType: 'attribute' } }, code: { type: 'string', xml: { attribute: true, name: 'c' } }, name: { type: 'string' } }, { name: 'item' });
  roundTrip(schema, { id: 7, code: 'x1', name: 'seven' }, '<item id="7" c="x1"><name>seven</name></item>');
});

test('nodeType text: an element with attributes and a typed text value', () => {
  const price = object({ currency: { type: 'string', xml: { nodeType: 'attribute' } }, amount: { type: 'number', xml: { nodeType: 'text' } } });
  roundTrip(object({ price }, { name: 'offer' }), { price: { currency: 'EUR', amount: 9.5 } }, '<offer><price currency="EUR">9.5</price></offer>');
  // Escaped on the way out, unescaped on the way in.
  const note = object({ lang: { type: 'string', xml: { nodeType: 'attribute' } }, body: { type: 'string', xml: { nodeType: 'text' } } }, { name: 'note' });
  roundTrip(note, { lang: 'en', body: 'a < b & c' }, '<note lang="en">a &lt; b &amp; c</note>');
});

test('nodeType cdata: a CDATA section, a "]]>" inside split across two sections', () => {
  const schema = object({ title: { type: 'string' }, html: { type: 'string', xml: { nodeType: 'cdata' } } }, { name: 'doc' });
  roundTrip(schema, { title: 't', html: '<b>bold</b> ]]> & more' }, '<doc><title>t</title><![CDATA[<b>bold</b> ]]]]><![CDATA[> & more]]></doc>');
});

test('arrays: nodeType element wraps, none (the 3.2 default) repeats the items; wrapped: true still wraps', () => {
  const item = { type: 'string', xml: { name: 'tag' } };
  const schema = object(
    {
      wrappedByNodeType: { type: 'array', xml: { nodeType: 'element', name: 'tags' }, items: item },
      unwrapped: { type: 'array', xml: { nodeType: 'none' }, items: { type: 'string', xml: { name: 'color' } } },
      byDefault: { type: 'array', items: { type: 'integer', xml: { name: 'n' } } },
      wrapped31: { type: 'array', xml: { wrapped: true, name: 'olds' }, items: { type: 'string' } },
    },
    { name: 'lists' },
  );
  roundTrip(
    schema,
    { wrappedByNodeType: ['a', 'b'], unwrapped: ['red', 'blue'], byDefault: [1, 2], wrapped31: ['o'] },
    '<lists><tags><tag>a</tag><tag>b</tag></tags><color>red</color><color>blue</color><n>1</n><n>2</n><olds><wrapped31>o</wrapped31></olds></lists>',
  );
});

test('nodeType none on an object: its properties (elements and attributes) sit in the parent element', () => {
  const meta = object({ author: { type: 'string' }, revision: { type: 'integer', xml: { name: 'rev', nodeType: 'attribute' } } }, { nodeType: 'none' });
  const schema = object({ title: { type: 'string' }, meta }, { name: 'page' });
  roundTrip(schema, { title: 'Home', meta: { author: 'ann', revision: 3 } }, '<page rev="3"><title>Home</title><author>ann</author></page>');
});

test('nodeType none on a scalar: its text is the parent element\'s character data', () => {
  const schema = object({ unit: { type: 'string', xml: { nodeType: 'attribute' } }, value: { type: 'integer', xml: { nodeType: 'none' } } }, { name: 'size' });
  roundTrip(schema, { unit: 'cm', value: 12 }, '<size unit="cm">12</size>');
});

test('an explicit nodeType wins over attribute: true', () => {
  const schema = object({ id: { type: 'integer', xml: { nodeType: 'element', attribute: true } } }, { name: 'thing' });
  roundTrip(schema, { id: 1 }, '<thing><id>1</id></thing>');
});

test('parsing: whitespace between child elements is no text; text and CDATA both reach a text property', () => {
  const schema = object({ kind: { type: 'string', xml: { nodeType: 'attribute' } }, child: { type: 'string' }, content: { type: 'string', xml: { nodeType: 'text' } } }, { name: 'mixed' });
  const parsed = parseXml('<mixed kind="k">\n  <child>c</child>\n  hello <![CDATA[<world>]]>\n</mixed>', schema, { deref });
  assert.deepEqual(parsed, { kind: 'k', child: 'c', content: '\n  hello <world>' });
});

test('an object that inlines itself through nodeType none stops there (no endless plan)', () => {
  const node: Schema = { type: 'object', xml: { name: 'node' }, properties: { name: { type: 'string' } } };
  (node.properties as Record<string, Schema>).inner = { ...node, xml: { nodeType: 'none' } };
  const self = node.properties as Record<string, Schema>;
  (self.inner!.properties as Record<string, Schema>) = self; // the inlined object's properties are the parent's
  assert.equal(writeXml({ name: 'a', inner: { name: 'b' } }, node, { deref }), `${PROLOG}<node><name>a</name><name>b</name></node>`);
});
