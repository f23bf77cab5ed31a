// routes.ts — three Petstore operations, typed by petstore-types.ts (generated: see README.md); the
// contract and request validation come from config.yaml, given before this file.
import { RouteBuilder, defineRoutes } from 'svc-facade';
import type { Operations, Pet } from './petstore-types.js';

const pets = new Map<number, Pet>([[7, { id: 7, name: 'Rex', photoUrls: [], status: 'available' }]]);

const routes = defineRoutes<Pick<Operations, 'getPetById' | 'addPet' | 'findPetsByStatus'>>({
  // petId is a number: the contract says integer, and validation answered /pet/seven with 400 before this ran.
  getPetById: (ex) => pets.get(ex.params.petId) ?? ex.reply(404, undefined),
  addPet: (ex) => {
    // The body is a Pet when it came as JSON; the contract also accepts XML and forms, which arrive as text.
    if (ex.mediaType !== 'application/json') return ex.reply(415, undefined);
    const pet = { ...ex.body, id: pets.size + 1 };
    pets.set(pet.id, pet);
    return pet;
  },
  // status defaults to "available" in the contract, so it is always there.
  findPetsByStatus: (ex) => [...pets.values()].filter((pet) => pet.status === ex.query.status),
});

export default class PetRoutes extends RouteBuilder {
  configure(): void {
    // Each typed route is the one step of its own operation's route.
    for (const [operationId, route] of Object.entries(routes)) this.from(`direct:${operationId}`).process(route);
  }
}
