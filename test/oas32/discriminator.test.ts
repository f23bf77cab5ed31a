// OpenAPI 3.2 discriminators over real HTTP: `defaultMapping` (the schema for a value whose property is
// absent or maps to nothing) and an optional discriminator property, in request validation, in the
// mock's synthesized bodies (sent back through request validation) and in binding to classes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withContract32 } from './fixture.js';

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

async function violations(res: Response): Promise<string[]> {
  assert.equal(res.status, 400);
  const problem = await res.json();
  return problem.errors.map((e: { pointer: string; message: string }) => `${e.pointer} ${e.message}`);
}

test('validation: a mapped value checks its branch only; an absent or unmapped one checks defaultMapping', async () => {
  await withContract32({ restConfiguration: { clientRequestValidation: true } }, async (v1) => {
    const accepted = [
      { petType: 'cat', name: 'Tom', lives: 9 },
      { petType: 'dog', name: 'Rex', goodBoy: true },
      { petType: 'Creature', name: 'Spot', legs: 6 },
      { petType: 'hamster', name: 'Hammy', legs: 4 },
      { name: 'Nemo', legs: 0 },
    ];
    for (const pet of accepted) {
      const res = await post(`${v1}/pets`, pet);
      assert.equal(res.status, 201, JSON.stringify(pet)); // the mock's answer to a write: the declared 201 (SPEC §7 step 3)
      await res.text();
    }
    assert.deepEqual(await violations(await post(`${v1}/pets`, { petType: 'cat', name: 'Tom', legs: 4 })), ['/lives must have required property \'lives\'']);
    // Unmapped and absent values are Creatures: what a Creature lacks is reported, nothing about petType.
    assert.deepEqual(await violations(await post(`${v1}/pets`, { petType: 'hamster', name: 'Hammy', lives: 3 })), ['/legs must have required property \'legs\'']);
    assert.deepEqual(await violations(await post(`${v1}/pets`, { name: 'Nemo' })), ['/legs must have required property \'legs\'']);
  });
});

test('validation: an optional discriminator property without defaultMapping leaves an absent one to plain oneOf', async () => {
  await withContract32({ restConfiguration: { clientRequestValidation: true } }, async (v1) => {
    for (const shape of [{ radius: 1 }, { side: 2 }, { kind: 'Circle', radius: 1 }, { kind: 'Square', side: 2 }]) {
      const res = await post(`${v1}/shapes`, shape);
      assert.equal(res.status, 200, JSON.stringify(shape));
      await res.text();
    }
    // Absent: plain oneOf, which a value fitting no branch fails.
    assert.equal((await post(`${v1}/shapes`, { radius: 1, side: 2 })).status, 400);
    // Present: the named branch only, and only the mapped names.
    assert.deepEqual(await violations(await post(`${v1}/shapes`, { kind: 'Circle', side: 2 })), [
      '/radius must have required property \'radius\'',
      '/side is not allowed (no additional properties)',
    ]);
    assert.deepEqual(await violations(await post(`${v1}/shapes`, { kind: 'Triangle', side: 2 })), ['/kind must be equal to one of the allowed values: "Circle", "Square"']);
  });
});

test('mock: synthesized bodies of a discriminated schema with defaultMapping are valid Pets, static and dynamic', async () => {
  await withContract32({ restConfiguration: { clientRequestValidation: true } }, async (v1) => {
    const tom = { petType: 'cat', name: 'Tom', lives: 9 };
    const fixed = await post(`${v1}/pets`, tom, { prefer: 'code=201' });
    assert.equal(fixed.status, 201);
    const pet = await fixed.json();
    assert.equal(pet.petType, 'cat');
    assert.equal(typeof pet.lives, 'number');
    const kinds = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const res = await post(`${v1}/pets`, tom, { prefer: `code=201, dynamic=true, seed=${seed}` });
      assert.equal(res.status, 201, `seed ${seed}`);
      const body = await res.json();
      kinds.add('legs' in body ? 'creature' : String(body.petType));
      // Sent back, the synthesized pet passes request validation (the mock echoes it, under the declared 201).
      const echoed = await post(`${v1}/pets`, body);
      assert.equal(echoed.status, 201, `seed ${seed}: ${JSON.stringify(body)} ${await echoed.clone().text()}`);
      assert.deepEqual(await echoed.json(), body);
    }
    // Every branch shows up, the default one too (with no petType a mapping names elsewhere).
    assert.deepEqual([...kinds].sort(), ['cat', 'creature', 'dog']);
  });
});

test('binding: the body becomes the class of the branch its property picks, defaultMapping for absent or unmapped values', async () => {
  class Cat {}
  class Dog {}
  class Creature {}
  const seen: unknown[] = [];
  await withContract32({
    missingOperation: 'ignore',
    restConfiguration: { bindingMode: 'json' },
    bindingClasses: [Cat, Dog, Creature],
    routes: { addPet: (ex) => void seen.push(ex.body) },
  }, async (v1) => {
    const bodies = [
      { petType: 'cat', name: 'Tom', lives: 9 },
      { petType: 'dog', name: 'Rex', goodBoy: true },
      { petType: 'hamster', name: 'Hammy', legs: 4 },
      { name: 'Nemo', legs: 0 },
    ];
    for (const body of bodies) {
      const res = await post(`${v1}/pets`, body);
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), body);
    }
    assert.deepEqual(seen.map((b) => (b as object).constructor.name), ['Cat', 'Dog', 'Creature', 'Creature']);
  });
});
