import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseXml, writeXml, xmlRootName, type Schema, type Deref } from '../../lib/codec/xml.js';
import { SvcError } from '../../lib/util/errors.js';

// ---- the real Petstore contract and a tiny local deref over its components ----

const petstore = JSON.parse(readFileSync(fileURLToPath(new URL('../../spec/petstore-v3.json', import.meta.url)), 'utf8')) as {
  components: { schemas: Record<string, Schema> };
};

/** Follows `#/components/schemas/X` in the given components; other schemas are returned as they are. */
function derefIn(schemas: Record<string, Schema>): Deref {
  return (schema) => {
    const ref = schema.$ref;
    if (typeof ref !== 'string') return schema;
    const prefix = '#/components/schemas/';
    if (!ref.startsWith(prefix)) throw new Error(`unsupported $ref ${ref}`);
    const name = ref.slice(prefix.length).replace(/~1/g, '/').replace(/~0/g, '~');
    const target = schemas[name];
    if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
    return target;
  };
}

const deref = derefIn(petstore.components.schemas);
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const PET = ref('Pet');

function isInvalidXml(e: unknown): boolean {
  return e instanceof SvcError && e.code === 'SVC_INVALID_XML' && e.status === 400 && e.message === 'Invalid XML payload.';
}
const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';

// ---- Petstore ----

test('Pet round trip: write then parse gives the original object', () => {
  const pet = {
    id: 10,
    name: 'doggie',
    category: { id: 1, name: 'Dogs' },
    photoUrls: ['https://example.com/a.png', 'https://example.com/b.png'],
    tags: [
      { id: 1, name: 'friendly' },
      { id: 2, name: 'fluffy' },
    ],
    status: 'available',
  };
  const xml = writeXml(pet, PET, { deref });
  assert.ok(xml.startsWith(PROLOG + '<pet>'), xml);
  assert.ok(xml.endsWith('</pet>'), xml);
  assert.match(xml, /<category><id>1<\/id><name>Dogs<\/name><\/category>/);
  assert.match(xml, /<photoUrls><photoUrl>https:\/\/example.com\/a.png<\/photoUrl><photoUrl>https:\/\/example.com\/b.png<\/photoUrl><\/photoUrls>/);
  assert.match(xml, /<tags><tag><id>1<\/id><name>friendly<\/name><\/tag><tag><id>2<\/id><name>fluffy<\/name><\/tag><\/tags>/);
  assert.deepEqual(parseXml(xml, PET, { deref }), pet);
});

test('Pet written exactly as the Petstore XML examples look', () => {
  const xml = writeXml({ id: 1, name: 'rex', photoUrls: ['u'], tags: [{ id: 3, name: 'x' }] }, PET, { deref });
  assert.equal(
    xml,
    PROLOG + '<pet><id>1</id><name>rex</name><photoUrls><photoUrl>u</photoUrl></photoUrls><tags><tag><id>3</id><name>x</name></tag></tags></pet>',
  );
});

test('Pet parsed from a hand-written document with whitespace, comments and CDATA', () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<!-- a pet -->
<pet>
  <id> 42 </id>
  <name><![CDATA[Rex & <Co>]]></name>
  <category><id>7</id><name>Dogs</name></category>
  <photoUrls>
    <photoUrl>one</photoUrl>
  </photoUrls>
  <tags/>
  <status>sold</status>
</pet>
`;
  assert.deepEqual(parseXml(xml, PET, { deref }), {
    id: 42,
    name: 'Rex & <Co>',
    category: { id: 7, name: 'Dogs' },
    photoUrls: ['one'], // a single wrapped item is still an array
    tags: [],
    status: 'sold',
  });
});

test('Order: integer, boolean and date-time string coercion', () => {
  const xml = '<order><id>5</id><petId>198772</petId><quantity>7</quantity><shipDate>2024-01-02T03:04:05.000Z</shipDate><status>placed</status><complete>true</complete></order>';
  assert.deepEqual(parseXml(xml, ref('Order'), { deref }), {
    id: 5,
    petId: 198772,
    quantity: 7,
    shipDate: '2024-01-02T03:04:05.000Z',
    status: 'placed',
    complete: true,
  });
  const v = parseXml('<order><complete>false</complete><quantity>-1.5e2</quantity></order>', ref('Order'), { deref });
  assert.deepEqual(v, { complete: false, quantity: -150 });
});

test('invalid numbers and booleans stay strings so validation can report them', () => {
  const v = parseXml('<pet><id>abc</id><name>n</name><photoUrls/></pet>', PET, { deref });
  assert.deepEqual(v, { id: 'abc', name: 'n', photoUrls: [] });
  for (const bad of ['', '12abc', '0x10', '1e999', 'Infinity', 'NaN', '1 2']) {
    const got = parseXml(`<order><id>${bad}</id></order>`, ref('Order'), { deref }) as { id: unknown };
    assert.equal(got.id, bad, `id ${JSON.stringify(bad)}`);
  }
  assert.deepEqual(parseXml('<order><complete>yes</complete></order>', ref('Order'), { deref }), { complete: 'yes' });
});

test('a string property keeps numeric-looking text as a string', () => {
  const v = parseXml('<pet><name>007</name><photoUrls><photoUrl>1</photoUrl></photoUrls></pet>', PET, { deref });
  assert.deepEqual(v, { name: '007', photoUrls: ['1'] });
});

// ---- xml object semantics ----

const bookSchemas: Record<string, Schema> = {
  Book: {
    type: 'object',
    xml: { name: 'book', prefix: 'bk', namespace: 'urn:books' },
    properties: {
      id: { type: 'integer', xml: { attribute: true } },
      lang: { type: 'string', xml: { attribute: true, name: 'language' } },
      title: { type: 'string' },
      authors: { type: 'array', items: { type: 'string', xml: { name: 'author' } } },
      keywords: { type: 'array', items: { type: 'string' } },
      isbn: { type: 'string', xml: { prefix: 'x', namespace: 'urn:x' } },
      available: { type: 'boolean', xml: { attribute: true } },
    },
  },
};
const bookDeref = derefIn(bookSchemas);
const BOOK = { $ref: '#/components/schemas/Book' };

test('attributes, prefix and namespace on output', () => {
  const book = { id: 1, lang: 'en', title: 'T', authors: ['A', 'B'], isbn: '123', available: true };
  const xml = writeXml(book, BOOK, { deref: bookDeref });
  assert.equal(
    xml,
    PROLOG +
      '<bk:book xmlns:bk="urn:books" id="1" language="en" available="true"><title>T</title><author>A</author><author>B</author>' +
      '<x:isbn xmlns:x="urn:x">123</x:isbn></bk:book>',
  );
  assert.deepEqual(parseXml(xml, BOOK, { deref: bookDeref }), book);
});

test('default namespace without prefix', () => {
  const schema = { type: 'object', xml: { name: 'doc', namespace: 'urn:d' }, properties: { a: { type: 'string' } } };
  const xml = writeXml({ a: 'x' }, schema, { deref: bookDeref });
  assert.equal(xml, PROLOG + '<doc xmlns="urn:d"><a>x</a></doc>');
  assert.deepEqual(parseXml(xml, schema, { deref: bookDeref }), { a: 'x' });
});

test('parsing matches elements and attributes by local name, whatever the prefixes', () => {
  const xml = '<z:book xmlns:z="urn:other" xmlns:q="urn:q" q:id="9" language="de"><z:title>Titel</z:title><q:author>X</q:author><z:isbn>9</z:isbn></z:book>';
  assert.deepEqual(parseXml(xml, BOOK, { deref: bookDeref }), { id: 9, lang: 'de', title: 'Titel', authors: ['X'], isbn: '9' });
});

test('unwrapped arrays repeat the item element; a single item still gives an array', () => {
  const xml = writeXml({ keywords: ['k1', 'k2'], authors: ['solo'] }, BOOK, { deref: bookDeref });
  assert.ok(xml.includes('<author>solo</author><keywords>k1</keywords><keywords>k2</keywords>'), xml);
  assert.deepEqual(parseXml('<book><author>solo</author></book>', BOOK, { deref: bookDeref }), { authors: ['solo'] });
  assert.deepEqual(parseXml('<book><keywords>only</keywords></book>', BOOK, { deref: bookDeref }), { keywords: ['only'] });
  // interleaved repetitions are collected in document order
  assert.deepEqual(parseXml('<book><author>a</author><title>t</title><author>b</author></book>', BOOK, { deref: bookDeref }), {
    authors: ['a', 'b'],
    title: 't',
  });
});

test('wrapped array with its own xml.name and items without xml.name', () => {
  const schema = {
    type: 'object',
    properties: { list: { type: 'array', xml: { wrapped: true, name: 'Items' }, items: { type: 'integer' } } },
  };
  const xml = writeXml({ list: [1, 2] }, schema, { deref, rootName: 'r' });
  assert.equal(xml, PROLOG + '<r><Items><list>1</list><list>2</list></Items></r>');
  assert.deepEqual(parseXml(xml, schema, { deref }), { list: [1, 2] });
});

test('root array schema: wrapper root with items named by the items schema', () => {
  const schema = { type: 'array', items: PET };
  const pets = [
    { name: 'a', photoUrls: [] },
    { name: 'b', photoUrls: ['p'] },
  ];
  const xml = writeXml(pets, schema, { deref, rootName: 'pets' });
  assert.equal(xml, PROLOG + '<pets><pet><name>a</name><photoUrls></photoUrls></pet><pet><name>b</name><photoUrls><photoUrl>p</photoUrl></photoUrls></pet></pets>');
  assert.deepEqual(parseXml(xml, schema, { deref }), pets);
  assert.deepEqual(parseXml('<pets><pet><name>only</name></pet></pets>', schema, { deref }), [{ name: 'only' }]);
});

test('escaping of < & " \' > in text and attributes', () => {
  const nasty = `<&"'>]]>`;
  const xml = writeXml({ id: 1, lang: nasty, title: nasty }, BOOK, { deref: bookDeref });
  assert.ok(xml.includes('language="&lt;&amp;&quot;&apos;&gt;]]&gt;"'), xml);
  assert.ok(xml.includes('<title>&lt;&amp;&quot;&apos;&gt;]]&gt;</title>'), xml);
  assert.deepEqual(parseXml(xml, BOOK, { deref: bookDeref }), { id: 1, lang: nasty, title: nasty });
});

test('whitespace and control characters survive or are replaced, never producing malformed XML', () => {
  const value = { title: 'a\r\nb\tc', lang: 'l1\nl2\tx', isbn: 'bad\u0001char\uD800' };
  const xml = writeXml(value, BOOK, { deref: bookDeref });
  assert.deepEqual(parseXml(xml, BOOK, { deref: bookDeref }), { title: 'a\r\nb\tc', lang: 'l1\nl2\tx', isbn: 'bad\uFFFDchar\uFFFD' });
});

test('writing skips null/undefined, uses toJSON and Date ISO strings, writes unknown keys only when they are XML names', () => {
  class Money {
    constructor(readonly amount: number) {}
    toJSON() {
      return `${this.amount} EUR`;
    }
  }
  const when = new Date('2024-05-06T07:08:09.000Z');
  const value = {
    id: 3,
    name: null,
    status: undefined,
    photoUrls: ['x'],
    born: when,
    price: new Money(5),
    extra: { nested: 1, flag: false },
    many: ['a', 'b'],
    'not a name': 'skipped',
    '1bad': 'skipped',
    big: 12n,
  };
  const xml = writeXml(value, PET, { deref });
  assert.equal(
    xml,
    PROLOG +
      '<pet><id>3</id><photoUrls><photoUrl>x</photoUrl></photoUrls><born>2024-05-06T07:08:09.000Z</born><price>5 EUR</price>' +
      '<extra><nested>1</nested><flag>false</flag></extra><many>a</many><many>b</many><big>12</big></pet>',
  );
  // a class instance with toJSON returning an object is written from that object
  class PetModel {
    constructor(private readonly n: string) {}
    toJSON() {
      return { name: this.n, photoUrls: [] };
    }
  }
  assert.equal(writeXml(new PetModel('m'), PET, { deref }), PROLOG + '<pet><name>m</name><photoUrls></photoUrls></pet>');
});

test('writing null, primitives and schema-less values', () => {
  assert.equal(writeXml(null, PET, { deref }), PROLOG + '<pet/>');
  assert.equal(writeXml('hi', undefined, { deref }), PROLOG + '<root>hi</root>');
  assert.equal(writeXml(42, undefined, { deref, rootName: 'n' }), PROLOG + '<n>42</n>');
  assert.equal(writeXml({ a: { b: ['1', '2'] } }, undefined, { deref }), PROLOG + '<root><a><b>1</b><b>2</b></a></root>');
});

test('writing a circular value fails cleanly instead of overflowing the stack', () => {
  const a: Record<string, unknown> = { name: 'a' };
  a.self = a;
  assert.throws(() => writeXml(a, undefined, { deref }), RangeError);
});

// ---- composition and 3.1 types ----

test('allOf merges properties of all branches; oneOf/anyOf use the first branch with properties', () => {
  const allOf = { allOf: [ref('Category'), { type: 'object', properties: { extra: { type: 'boolean' } } }] };
  assert.equal(xmlRootName(allOf, deref, 'x'), 'category');
  const xml = writeXml({ id: 1, name: 'n', extra: true }, allOf, { deref });
  assert.equal(xml, PROLOG + '<category><id>1</id><name>n</name><extra>true</extra></category>');
  assert.deepEqual(parseXml(xml, allOf, { deref }), { id: 1, name: 'n', extra: true });

  const oneOf = { oneOf: [{ type: 'string' }, ref('Tag'), ref('Category')] };
  assert.equal(xmlRootName(oneOf, deref), 'tag');
  assert.deepEqual(parseXml('<tag><id>4</id><name>t</name></tag>', oneOf, { deref }), { id: 4, name: 't' });
  const anyOf = { type: 'object', properties: { t: { anyOf: [{ type: 'null' }, ref('Tag')] } } };
  assert.deepEqual(parseXml('<r><tag><id>4</id></tag></r>', anyOf, { deref }), { t: { id: 4 } });
});

test('OpenAPI 3.1 type arrays use the first non-null type', () => {
  const schema = {
    type: 'object',
    properties: {
      n: { type: ['integer', 'null'] },
      s: { type: ['null', 'string'] },
      b: { type: ['null', 'boolean'] },
    },
  };
  assert.deepEqual(parseXml('<r><n>12</n><s>34</s><b>true</b></r>', schema, { deref }), { n: 12, s: '34', b: true });
  assert.deepEqual(parseXml('<r><n/><s/></r>', schema, { deref }), { n: null, s: '' });
  assert.deepEqual(
    parseXml('<r xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><s xsi:nil="true"/></r>', schema, { deref }),
    { s: null },
  );
});

test('recursive schema (Node with children: Node[]) three levels deep', () => {
  const schemas: Record<string, Schema> = {
    Node: {
      type: 'object',
      xml: { name: 'node' },
      properties: {
        name: { type: 'string', xml: { attribute: true } },
        weight: { type: 'number' },
        children: { type: 'array', xml: { wrapped: true }, items: { $ref: '#/components/schemas/Node' } },
      },
    },
  };
  const d = derefIn(schemas);
  const NODE = { $ref: '#/components/schemas/Node' };
  const tree = {
    name: 'root',
    weight: 1.5,
    children: [
      { name: 'a', weight: 2, children: [{ name: 'a1', weight: 3, children: [] }] },
      { name: 'b', weight: 4 },
    ],
  };
  const xml = writeXml(tree, NODE, { deref: d });
  assert.equal(
    xml,
    PROLOG +
      '<node name="root"><weight>1.5</weight><children><node name="a"><weight>2</weight><children><node name="a1"><weight>3</weight>' +
      '<children></children></node></children></node><node name="b"><weight>4</weight></node></children></node>',
  );
  assert.deepEqual(parseXml(xml, NODE, { deref: d }), tree);

  // the unwrapped variant: children repeat as <node> elements directly
  const flat: Record<string, Schema> = {
    Node: {
      type: 'object',
      properties: { v: { type: 'integer' }, kids: { type: 'array', items: { $ref: '#/components/schemas/Node' } } },
    },
  };
  const fd = derefIn(flat);
  const FNODE = { $ref: '#/components/schemas/Node' };
  const v = { v: 1, kids: [{ v: 2, kids: [{ v: 3 }] }] };
  const fx = writeXml(v, FNODE, { deref: fd });
  assert.equal(fx, PROLOG + '<Node><v>1</v><kids><v>2</v><kids><v>3</v></kids></kids></Node>');
  assert.deepEqual(parseXml(fx, FNODE, { deref: fd }), v);
});

test('a self-referencing allOf does not loop', () => {
  const schemas: Record<string, Schema> = {};
  schemas.A = { allOf: [{ $ref: '#/components/schemas/A' }], properties: { x: { type: 'integer' } } };
  const d = derefIn(schemas);
  assert.deepEqual(parseXml('<A><x>1</x></A>', { $ref: '#/components/schemas/A' }, { deref: d }), { x: 1 });
});

// ---- schema-less ----

test('schema-less parse: objects, repeated names as arrays, leaves as strings, attributes', () => {
  const xml = '<doc version="2"><a>1</a><b><c>x</c><c>y</c><c>z</c></b><e/><f xmlns:p="urn:p" p:k="v"><g>true</g></f></doc>';
  assert.deepEqual(parseXml(xml, undefined, { deref }), {
    version: '2',
    a: '1',
    b: { c: ['x', 'y', 'z'] },
    e: '',
    f: { k: 'v', g: 'true' },
  });
  assert.equal(parseXml('<just>text</just>', undefined, { deref }), 'text');
  // unknown elements inside a schema'd object are parsed schema-less
  assert.deepEqual(parseXml('<pet><name>n</name><owner><first>A</first></owner></pet>', PET, { deref }), {
    name: 'n',
    owner: { first: 'A' },
  });
});

test('__proto__ elements become own properties, never the prototype', () => {
  const v = parseXml('<r><__proto__><polluted>yes</polluted></__proto__></r>', undefined, { deref }) as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.ok(Object.hasOwn(v, '__proto__'));
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

// ---- security and malformed input ----

test('billion laughs is rejected fast', () => {
  const lol = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<lolz>&lol9;</lolz>`;
  const t0 = performance.now();
  assert.throws(() => parseXml(lol, undefined, { deref }), isInvalidXml);
  assert.ok(performance.now() - t0 < 100, 'took too long');
});

test('XXE (external entity in a DOCTYPE) is rejected', () => {
  const xxe = '<!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><foo>&xxe;</foo>';
  assert.throws(() => parseXml(xxe, undefined, { deref }), isInvalidXml);
  assert.throws(() => parseXml(xxe, PET, { deref }), isInvalidXml);
  // any DOCTYPE at all, even a harmless one
  assert.throws(() => parseXml('<!DOCTYPE pet><pet/>', PET, { deref }), isInvalidXml);
  assert.throws(() => parseXml('<?xml version="1.0"?><!DOCTYPE pet SYSTEM "http://example.com/pet.dtd"><pet/>', PET, { deref }), isInvalidXml);
});

test('only predefined entities and character references are expanded', () => {
  assert.equal(parseXml('<a>&lt;&gt;&amp;&quot;&apos;&#65;&#x42;</a>', undefined, { deref }), `<>&"'AB`);
  assert.throws(() => parseXml('<a>&foo;</a>', undefined, { deref }), isInvalidXml);
  assert.throws(() => parseXml('<a>&constructor;</a>', undefined, { deref }), isInvalidXml);
  assert.throws(() => parseXml('<a>&#0;</a>', undefined, { deref }), isInvalidXml);
  assert.throws(() => parseXml('<a b="&foo;"/>', undefined, { deref }), isInvalidXml);
});

test('malformed documents are rejected', () => {
  const bad = [
    '',
    '   ',
    '<a><b></a>',
    '<a>',
    '<a></b>',
    'text',
    'x<a/>',
    '<a/>x',
    '<a/><b/>',
    '<a b=1/>',
    '<a b="1" b="2"/>',
    '<p:a/>', // unbound prefix
    '<?xml version="1.0"?>',
    '<a>]]></a>',
  ];
  for (const doc of bad) assert.throws(() => parseXml(doc, PET, { deref }), isInvalidXml, JSON.stringify(doc));
  assert.throws(() => parseXml(undefined as unknown as string, PET, { deref }), isInvalidXml);
});

test('depth bomb is rejected without a stack overflow', () => {
  const n = 10000;
  const bomb = '<a>'.repeat(n) + '</a>'.repeat(n);
  assert.throws(() => parseXml(bomb, undefined, { deref }), isInvalidXml);
  assert.throws(() => parseXml(bomb, { type: 'object' }, { deref }), isInvalidXml);
  // exactly maxDepth is fine, one more is not
  const nest = (k: number) => '<a>'.repeat(k) + 'x' + '</a>'.repeat(k);
  assert.doesNotThrow(() => parseXml(nest(64), undefined, { deref }));
  assert.throws(() => parseXml(nest(65), undefined, { deref }), isInvalidXml);
  assert.doesNotThrow(() => parseXml(nest(3), undefined, { deref, maxDepth: 3 }));
  assert.throws(() => parseXml(nest(4), undefined, { deref, maxDepth: 3 }), isInvalidXml);
});

test('maxBytes is enforced on text.length', () => {
  const doc = '<pet><name>' + 'x'.repeat(100) + '</name></pet>';
  assert.throws(() => parseXml(doc, PET, { deref, maxBytes: 50 }), isInvalidXml);
  assert.deepEqual(parseXml(doc, PET, { deref, maxBytes: doc.length }), { name: 'x'.repeat(100) });
  const big = '<a>' + 'x'.repeat(1024 * 1024) + '</a>';
  assert.throws(() => parseXml(big, undefined, { deref }), isInvalidXml); // default 1 MiB
});

// ---- root names ----

test('xmlRootName', () => {
  assert.equal(xmlRootName(PET, deref), 'pet'); // xml.name of the referenced component
  assert.equal(xmlRootName(petstore.components.schemas.Order, deref), 'order'); // xml.name on the schema itself
  assert.equal(xmlRootName(ref('ApiResponse'), deref), 'ApiResponse'); // '##default' is no name: component name
  assert.equal(xmlRootName({ $ref: '#/components/schemas/Book' }, bookDeref), 'book');
  const noXml: Record<string, Schema> = { Thing: { type: 'object' }, 'a/b': { type: 'object' } };
  assert.equal(xmlRootName({ $ref: '#/components/schemas/Thing' }, derefIn(noXml), 'fb'), 'Thing');
  // 'a/b' (from the escaped pointer segment a~1b) is no XML name: the fallback is used
  assert.equal(xmlRootName({ $ref: '#/components/schemas/a~1b' }, derefIn(noXml), 'fb'), 'fb');
  assert.equal(xmlRootName({ type: 'object' }, deref, 'fb'), 'fb');
  assert.equal(xmlRootName({ type: 'object' }, deref), 'root');
  assert.equal(xmlRootName(undefined, deref, 'body'), 'body');
  assert.equal(xmlRootName(undefined, deref), 'root');
  assert.equal(xmlRootName({ type: 'string', xml: { name: 'greeting' } }, deref, 'fb'), 'greeting');
  // writeXml uses the same rules
  assert.equal(writeXml({}, { $ref: '#/components/schemas/Thing' }, { deref: derefIn(noXml) }), PROLOG + '<Thing></Thing>');
  assert.equal(writeXml({}, { type: 'object' }, { deref, rootName: 'body' }), PROLOG + '<body></body>');
});
