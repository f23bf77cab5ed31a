// bindingMode through real HTTP (SPEC §9): Camel's binding scenarios adapted, class names from titles and
// component names, arrays and nested instances, XML in and out, content negotiation by mode, and hostile bodies.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Exchange, FacadeObjectConfig } from '../../lib/index.js';
import { PETSTORE, ROOT, serve, type Running } from '../helpers.js';
import { Category } from './fixtures/model/category.js';
import { Pet } from './fixtures/model/pet.js';
import { Tag } from './fixtures/model/tag.js';
import { TagRequestDto, TagResponseDto } from './fixtures/model/tag-dto.js';

const FIXTURES = join(ROOT, 'test/binding/fixtures');
const API = '/api/v3';
const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';
const TONY = '{"id":123,"name":"tony the tiger","status":"AVAILABLE"}';

type Routes = NonNullable<FacadeObjectConfig['routes']>;
type Mode = 'off' | 'auto' | 'json' | 'xml' | 'json_xml';

/** The Petstore with the given routes (the rest ignored) and the model classes passed directly. */
function petstore(mode: Mode, routes: Routes): Promise<Running> {
  return serve({ specification: PETSTORE, missingOperation: 'ignore', restConfiguration: { bindingMode: mode }, bindingClasses: [Pet, Tag, Category], routes });
}

/** The tags contract (titles, arrays, per-status schemas) with the DTO classes found by scanning fixtures/model. */
function tags(mode: Mode, routes: Routes, bindingClasses: Function[] = []): Promise<Running> {
  return serve({
    specification: 'tags.yaml',
    baseDir: FIXTURES,
    missingOperation: 'ignore',
    restConfiguration: { bindingMode: mode, bindingPackageScan: 'model' },
    bindingClasses,
    routes,
  });
}

async function withServer(started: Promise<Running>, fn: (origin: string) => Promise<void>): Promise<void> {
  const running = await started;
  try {
    await fn(running.origin);
  } finally {
    await running.close();
  }
}

/** The route of Camel's test: answers a Pet instance for the requested id. */
const getTony = (ex: Exchange): void => {
  ex.body = Object.assign(new Pet(), { id: Number(ex.header('petId')), name: 'tony the tiger', status: 'AVAILABLE' });
};

/** A route that records what reached it and answers with it after `markPending()`. */
function updatePetRoute(seen: unknown[]): Routes {
  return {
    updatePet: (ex) => {
      seen.push(ex.body);
      if (ex.body instanceof Pet) ex.body.markPending();
    },
  };
}

// ---- Camel's binding scenarios ----

test('GET /pet/123: a route returning a Pet instance answers exactly the Pet as JSON', async () => {
  await withServer(petstore('json', { getPetById: getTony }), async (origin) => {
    const res = await fetch(`${origin}${API}/pet/123`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(await res.text(), TONY);
  });
});

test('PUT /pet: the JSON body reaches the route as a Pet whose method sets status PENDING', async () => {
  const seen: unknown[] = [];
  await withServer(petstore('json', updatePetRoute(seen)), async (origin) => {
    const res = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: TONY });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(await res.text(), '{"id":123,"name":"tony the tiger","status":"PENDING"}');
    assert.ok(seen[0] instanceof Pet);
  });
});

test('nested properties whose schemas name classes become instances too', async () => {
  const seen: unknown[] = [];
  await withServer(petstore('json', updatePetRoute(seen)), async (origin) => {
    const body = { id: 7, name: 'rex', category: { id: 1, name: 'Dogs' }, photoUrls: ['a.png'], tags: [{ id: 1, name: 'good' }, { id: 2, name: 'boy' }] };
    const res = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200);
    const pet = seen[0] as Pet;
    assert.ok(pet instanceof Pet);
    assert.ok(pet.category instanceof Category);
    assert.deepEqual(pet.photoUrls, ['a.png']);
    assert.ok(pet.tags!.every((tag) => tag instanceof Tag));
    assert.deepEqual(pet.tags!.map((tag) => tag.label()), ['#good', '#boy']);
    assert.deepEqual(await res.json(), { ...body, status: 'PENDING' });
  });
});

// ---- class names from titles, arrays, fromJSON / toJSON ----

test('title naming: the body becomes a TagRequestDto (static fromJSON) and a TagResponseDto answers through toJSON', async () => {
  const seen: unknown[] = [];
  const routes: Routes = {
    createTag: (ex) => {
      seen.push(ex.body);
      ex.message.headers.set('SvcHttpResponseCode', 201);
      ex.body = TagResponseDto.of(ex.body as TagRequestDto, 42);
    },
  };
  await withServer(tags('json', routes), async (origin) => {
    const res = await fetch(`${origin}/tags`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Friendly"}' });
    assert.equal(res.status, 201);
    assert.equal(await res.text(), '{"id":42,"name":"friendly"}');
    assert.ok(seen[0] instanceof TagRequestDto);
    assert.equal((seen[0] as TagRequestDto).label, 'friendly');
  });
});

test('arrays: an array body gives an array of instances, and an array of instances is answered', async () => {
  const seen: unknown[] = [];
  const routes: Routes = {
    createTags: (ex) => {
      seen.push(ex.body);
      ex.body = (ex.body as TagRequestDto[]).map((dto, i) => TagResponseDto.of(dto, i + 1));
    },
  };
  await withServer(tags('auto', routes), async (origin) => {
    const res = await fetch(`${origin}/tags/batch`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '[{"name":"A"},{"name":"B"}]' });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), '[{"id":1,"name":"a"},{"id":2,"name":"b"}]');
    const list = seen[0] as unknown[];
    assert.ok(Array.isArray(list) && list.length === 2 && list.every((x) => x instanceof TagRequestDto));
  });
});

test('a schema without a class stays a plain object while its nested properties (and additionalProperties) that name classes bind', async () => {
  class Owner {
    name?: string;
    shout(): string {
      return String(this.name).toUpperCase();
    }
  }
  const seen: unknown[] = [];
  await withServer(tags('json', { plantTree: (ex) => void seen.push(ex.body) }, [Owner]), async (origin) => {
    const tree = { value: 1, owner: { name: 'ann' }, owners: { first: { name: 'cy' } }, children: [{ value: 2, children: [{ value: 3, owner: { name: 'bob' } }] }] };
    const res = await fetch(`${origin}/trees`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(tree) });
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), tree);
    const root = seen[0] as { owner: Owner; owners: Record<string, Owner>; children: { children: { owner: Owner }[] }[] };
    assert.equal(Object.getPrototypeOf(root), Object.prototype);
    assert.equal(root.owner.shout(), 'ANN');
    assert.equal(root.owners.first!.shout(), 'CY', 'additionalProperties that name a class');
    assert.equal(root.children[0]!.children[0]!.owner.shout(), 'BOB');
  });
});

test('a body nesting deeper than the binding limit through a circular schema → 400, not a stack overflow', async () => {
  await withServer(tags('json', { plantTree: () => undefined }), async (origin) => {
    const depth = 400;
    const body = '{"children":['.repeat(depth) + '{"value":1}' + ']}'.repeat(depth);
    const res = await fetch(`${origin}/trees`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('content-type'), 'application/problem+json');
    assert.equal((await res.json()).detail, 'The request body nests deeper than 256 levels.');
  });
});

// ---- XML ----

const PET_XML =
  PROLOG +
  '<pet><id>7</id><name>rex</name><category><id>1</id><name>Dogs</name></category>' +
  '<photoUrls><photoUrl>a.png</photoUrl><photoUrl>b.png</photoUrl></photoUrls>' +
  '<tags><tag><id>1</id><name>good</name></tag><tag><id>2</id><name>boy</name></tag></tags><status>AVAILABLE</status></pet>';

test('XML in and out for the Petstore Pet: root pet, wrapped photoUrls and tags, round-tripped through HTTP', async () => {
  const seen: unknown[] = [];
  await withServer(petstore('xml', updatePetRoute(seen)), async (origin) => {
    const res = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/xml', accept: 'application/xml' }, body: PET_XML });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/xml');
    assert.equal(await res.text(), PET_XML.replace('AVAILABLE', 'PENDING'));
    const pet = seen[0] as Pet;
    assert.ok(pet instanceof Pet);
    assert.equal(pet.id, 7);
    assert.ok(pet.category instanceof Category);
    assert.deepEqual(pet.photoUrls, ['a.png', 'b.png']);
    assert.deepEqual(pet.tags!.map((tag) => tag instanceof Tag && tag.label()), ['#good', '#boy']);
  });
});

test('GET with Accept picks JSON or XML among the produced types (q-values honoured)', async () => {
  await withServer(petstore('json_xml', { getPetById: getTony }), async (origin) => {
    const xml = await fetch(`${origin}${API}/pet/123`, { headers: { accept: 'application/json;q=0.5, application/xml' } });
    assert.equal(xml.headers.get('content-type'), 'application/xml');
    assert.equal(await xml.text(), `${PROLOG}<pet><id>123</id><name>tony the tiger</name><status>AVAILABLE</status></pet>`);
    const json = await fetch(`${origin}${API}/pet/123`, { headers: { accept: 'application/json' } });
    assert.equal(json.headers.get('content-type'), 'application/json');
    assert.equal(await json.text(), TONY);
    const none = await fetch(`${origin}${API}/pet/123`);
    assert.equal(none.headers.get('content-type'), 'application/json', 'no Accept: the first produced type');
    const unsatisfiable = await fetch(`${origin}${API}/pet/123`, { headers: { accept: 'text/csv' } });
    assert.equal(unsatisfiable.headers.get('content-type'), 'application/json', 'nothing acceptable: the first produced type');
  });
});

test('the XML root and names come from the response schema of the status being sent', async () => {
  const routes: Routes = {
    createTag: (ex) => {
      const label = (ex.body as TagRequestDto).label;
      if (label === 'bad') {
        ex.message.headers.set('SvcHttpResponseCode', 422);
        ex.body = { message: 'no bad tags' };
      } else {
        ex.message.headers.set('SvcHttpResponseCode', 201);
        ex.body = { id: 5, name: label };
      }
    },
  };
  await withServer(tags('xml', routes), async (origin) => {
    const post = (name: string) =>
      fetch(`${origin}/tags`, { method: 'POST', headers: { 'content-type': 'application/xml' }, body: `<tagRequest><name>${name}</name></tagRequest>` });
    const created = await post('Nice');
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('content-type'), 'application/xml');
    assert.equal(await created.text(), `${PROLOG}<tagResponse><id>5</id><name>nice</name></tagResponse>`);
    const failed = await post('BAD');
    assert.equal(failed.status, 422);
    assert.equal(await failed.text(), `${PROLOG}<failure><message>no bad tags</message></failure>`);
  });
});

test('schemas in another file of the contract bind and name XML elements from that file', async () => {
  await withServer(tags('auto', { addKennel: () => undefined }), async (origin) => {
    const res = await fetch(`${origin}/kennels`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/xml' },
      body: '{"name":"north","dogs":[{"name":"rex","age":3}]}',
    });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), `${PROLOG}<kennel><name>north</name><dogs><dog><name>rex</name><age>3</age></dog></dogs></kennel>`);
  });
});

// ---- modes ----

test('auto: the body is parsed by its Content-Type (JSON, XML, or left as text), and the answer follows it without Accept', async () => {
  const seen: unknown[] = [];
  await withServer(petstore('auto', updatePetRoute(seen)), async (origin) => {
    const json = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: TONY });
    assert.equal(json.headers.get('content-type'), 'application/json');
    assert.equal(await json.text(), '{"id":123,"name":"tony the tiger","status":"PENDING"}');
    const xml = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/xml' }, body: PET_XML });
    assert.equal(xml.headers.get('content-type'), 'application/xml');
    assert.equal(await xml.text(), PET_XML.replace('AVAILABLE', 'PENDING'));
    const form = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'id=1' });
    assert.equal(form.status, 200);
    assert.ok(seen[0] instanceof Pet && seen[1] instanceof Pet);
    assert.equal(seen[2], 'id=1');
  });
});

test('json mode does not parse XML: the route gets the XML text as it came, and objects are answered as JSON', async () => {
  const seen: unknown[] = [];
  const routes: Routes = {
    updatePet: (ex) => {
      seen.push(ex.body);
      ex.body = { received: typeof ex.body };
    },
  };
  await withServer(petstore('json', routes), async (origin) => {
    const res = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/xml', accept: 'application/xml' }, body: PET_XML });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    assert.equal(await res.text(), '{"received":"string"}');
    assert.equal(seen[0], PET_XML);
  });
});

test('xml mode answers objects as XML even when the client asks for JSON', async () => {
  await withServer(petstore('xml', { getPetById: getTony }), async (origin) => {
    const res = await fetch(`${origin}${API}/pet/123`, { headers: { accept: 'application/json' } });
    assert.equal(res.headers.get('content-type'), 'application/xml');
    assert.equal(await res.text(), `${PROLOG}<pet><id>123</id><name>tony the tiger</name><status>AVAILABLE</status></pet>`);
  });
});

test('a Content-Type the route sets decides the format', async () => {
  const routes: Routes = {
    getPetById: (ex) => {
      getTony(ex);
      ex.message.headers.set('Content-Type', 'application/xml');
    },
  };
  await withServer(petstore('auto', routes), async (origin) => {
    const res = await fetch(`${origin}${API}/pet/123`, { headers: { accept: 'application/json' } });
    assert.equal(res.headers.get('content-type'), 'application/xml');
    assert.equal(await res.text(), `${PROLOG}<pet><id>123</id><name>tony the tiger</name><status>AVAILABLE</status></pet>`);
  });
});

test('off (the default): the route gets the raw text and no class', async () => {
  const seen: unknown[] = [];
  await withServer(petstore('off', updatePetRoute(seen)), async (origin) => {
    const res = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: TONY });
    assert.equal(res.status, 200);
    assert.equal(seen[0], TONY);
  });
});

test('operations without a route are not bound: ignored ones echo the body byte for byte', async () => {
  await withServer(petstore('json', {}), async (origin) => {
    const body = '{ "id" : 1,  "name":"spaced" }';
    const res = await fetch(`${origin}${API}/pet`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    assert.equal(res.status, 200);
    assert.equal(await res.text(), body);
  });
});

// ---- hostile and broken bodies ----

test('unparsable bodies → 400 problems with Camel\'s texts', async () => {
  await withServer(petstore('auto', { updatePet: () => assert.fail('the route must not run') }), async (origin) => {
    const json = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"id":' });
    assert.equal(json.status, 400);
    assert.equal(json.headers.get('content-type'), 'application/problem+json');
    assert.deepEqual(await json.json(), { type: 'about:blank', title: 'Bad Request', status: 400, detail: 'Invalid JSon payload.', code: 'SVC_INVALID_JSON', instance: json.headers.get('x-request-id') });
    const xml = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/xml' }, body: '<pet><id>1</pet>' });
    assert.equal(xml.status, 400);
    assert.equal((await xml.json()).detail, 'Invalid XML payload.');
  });
});

test('billion laughs and XXE bodies → 400 quickly, nothing expanded or read', async () => {
  const laughs =
    '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">' +
    Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i === 0 ? '' : i};`.repeat(10)}">`).join('') +
    ']><pet><name>&lol9;</name></pet>';
  const xxe = '<?xml version="1.0"?><!DOCTYPE pet [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><pet><name>&xxe;</name></pet>';
  await withServer(petstore('xml', { updatePet: () => assert.fail('the route must not run') }), async (origin) => {
    for (const body of [laughs, xxe]) {
      const started = performance.now();
      const res = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/xml' }, body });
      const text = await res.text();
      assert.equal(res.status, 400);
      assert.equal(JSON.parse(text).detail, 'Invalid XML payload.');
      assert.ok(!text.includes('root:'), 'no file content leaks');
      assert.ok(performance.now() - started < 1000, 'rejected quickly');
    }
  });
});

test('prototype pollution: __proto__ / constructor / prototype keys never reach a prototype or the route', async () => {
  const seen: unknown[] = [];
  const routes: Routes = {
    updatePet: (ex) => {
      seen.push(ex.body);
      ex.body = Object.assign({}, ex.body); // the classic way a parsed body pollutes
    },
    placeOrder: (ex) => {
      seen.push(ex.body);
      ex.body = Object.assign({}, ex.body);
    },
  };
  await withServer(petstore('auto', routes), async (origin) => {
    const hostile = '{"id":1,"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"category":{"__pro\\u0074o__":{"polluted":3}}}';
    for (const path of ['/pet', '/store/order']) {
      const res = await fetch(`${origin}${API}${path}`, { method: path === '/pet' ? 'PUT' : 'POST', headers: { 'content-type': 'application/json' }, body: hostile });
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { id: 1, category: {} });
    }
    const xml = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/xml' }, body: '<pet><id>2</id><__proto__><polluted>4</polluted></__proto__></pet>' });
    assert.equal(xml.status, 200);
    assert.equal(({} as { polluted?: unknown }).polluted, undefined);
    assert.ok(seen[0] instanceof Pet, 'a Pet (class-bound body)');
    assert.equal(Object.getPrototypeOf(seen[1]), Object.prototype, 'a plain object (Order has no class)');
    for (const body of seen) assert.ok(!Object.hasOwn(body as object, '__proto__') && !Object.hasOwn(body as object, 'constructor'));
  });
});

test('with clientRequestValidation the body validation parsed is the one bound (XML too)', async () => {
  const seen: unknown[] = [];
  const started = serve({
    specification: PETSTORE,
    missingOperation: 'ignore',
    restConfiguration: { bindingMode: 'auto', clientRequestValidation: true },
    bindingClasses: [Pet, Tag, Category],
    routes: updatePetRoute(seen),
  });
  await withServer(started, async (origin) => {
    const json = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"id":1,"name":"rex","photoUrls":[],"tags":[{"name":"a"}]}' });
    assert.equal(json.status, 200);
    assert.deepEqual(await json.json(), { id: 1, name: 'rex', photoUrls: [], tags: [{ name: 'a' }], status: 'PENDING' });
    const xml = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/xml', accept: 'application/xml' }, body: PET_XML.replace('AVAILABLE', 'available') });
    assert.equal(xml.status, 200);
    assert.equal(await xml.text(), PET_XML.replace('AVAILABLE', 'PENDING'));
    const invalid = await fetch(`${origin}${API}/pet`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"id":"x"}' });
    assert.equal(invalid.status, 400);
    assert.equal(seen.length, 2);
    assert.ok(seen.every((pet) => pet instanceof Pet && pet.tags!.every((tag) => tag instanceof Tag)));
  });
});
