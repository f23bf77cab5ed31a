// The peer: Fastify with fastify-openapi-glue on the same Petstore contract, request validation on (Fastify
// compiles the contract's parameter and body schemas with ajv), answering the same bytes as the facade's
// bench routes. Installed on demand under scripts/bench/peers/ (see peers.mjs).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importPeer } from './peers.mjs';

const { default: Fastify } = await importPeer('fastify');
const { default: openapiGlue } = await importPeer('fastify-openapi-glue');

const PET_JSON = '{"id":1,"name":"doggie","status":"available","photoUrls":[]}';
const SESSION_JSON = '"session-1"';

// Strings are sent as they are (no response-schema serialization), so the bytes match the facade's. Fastify
// appends "; charset=utf-8" to a JSON type given with a string unless the reply has its own serializer: this
// one passes the string on, so the Content-Type is the facade's too.
const asIs = (payload) => payload;
const json = (reply, payload) => reply.header('content-type', 'application/json').serializer(asIs).send(payload);
const serviceHandlers = {
  getPetById: (_req, reply) => json(reply, PET_JSON),
  addPet: (req, reply) => json(reply, JSON.stringify(req.body)),
  loginUser: (_req, reply) => json(reply, SESSION_JSON),
};

// BENCH_PEER_REQUEST_ID=1: Fastify's own request ids, done as the facade does them (the client's
// X-Request-Id kept, else a v4 UUID, sent back on every response), so both answer the same bytes.
const requestIds = process.env.BENCH_PEER_REQUEST_ID === '1' ? { requestIdHeader: 'x-request-id', genReqId: () => randomUUID() } : {};
// The Petstore carries vendor keywords (x-swagger-router-model); ajv must let them be, as the facade does.
const app = Fastify({ logger: false, ajv: { customOptions: { strict: false } }, ...requestIds });
if (requestIds.genReqId) app.addHook('onRequest', (req, reply, done) => { reply.header('x-request-id', req.id); done(); });
app.register(openapiGlue, {
  specification: join(fileURLToPath(import.meta.url), '../../../spec/petstore-v3.json'),
  serviceHandlers,
  prefix: '/api/v3',
});
const address = await app.listen({ port: 0, host: '127.0.0.1' });
process.stdout.write(`listening on ${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
