// The facade's one schema compiler (one ajv instance) and body limits, shared by validation and the mock.
import type { Contract } from '../contract/load.js';
import type { FeatureContext } from '../message/stages.js';
import type { BodyContext } from './bodies.js';
import { SchemaCompiler } from './compiler.js';

/** One schema compiler (and ajv instance) per facade, shared by all its operations. */
const contexts = new WeakMap<Contract, BodyContext>();

/** The facade's body checks (its one schema compiler); the mock checks what it echoes with them too. */
export function bodyContext(ctx: FeatureContext): BodyContext {
  let body = contexts.get(ctx.contract);
  if (body === undefined) {
    body = { contract: ctx.contract, compiler: new SchemaCompiler(ctx.contract, ctx.logger), maxBodySize: ctx.serverOptions.maxBodySize };
    contexts.set(ctx.contract, body);
  }
  return body;
}
