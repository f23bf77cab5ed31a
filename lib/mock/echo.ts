// Whether a write's request body may be echoed (docs/mocking.md): only when the chosen response declares
// the request's media type and the body is valid against that response's schema. The check is the
// facade's own body validation (lib/validation/, its one schema compiler), loaded on first use by the
// mock's one loader (conformance.ts): a facade that neither validates nor answers a mocked request does not load ajv.
import type { Operation, ResponseObject } from '../contract/operations.js';
import type { Located } from '../contract/refs.js';
import { findDeclaredMediaType } from '../http/negotiation.js';
import type { FeatureContext } from '../message/stages.js';
import type { MediaCheck } from '../schema/bodies.js';
import { loadValidation, type Validation } from './conformance.js';

/** True when `raw`, sent as `contentType`, may go back as it is; a promise while the validation code first loads. */
export type EchoCheck = (raw: Buffer, contentType: string) => boolean | Promise<boolean>;

export function compileEchoCheck(op: Operation, response: Located<ResponseObject>, ctx: FeatureContext): EchoCheck {
  const content = response.value.content ?? {};
  const declared = Object.keys(content);
  const checks = new Map<string, MediaCheck>();
  let validation: Validation | undefined;

  const check = (v: Validation, raw: Buffer, contentType: string, type: string): boolean => {
    const kind = v.bodies.bodyKind(contentType);
    // Bytes no parser of ours reads (octet-stream, images, ...) cannot be shown valid: echoed only where the
    // response's schema is a plain string (or absent), which any bytes satisfy.
    if (kind === 'opaque') return isStringSchema(ctx.contract.refs.deref(content[type]?.schema, response.uri).value);
    let media = checks.get(type);
    if (media === undefined) checks.set(type, (media = v.bodies.compileMediaCheck(op, type, 'response', { value: content[type], uri: response.uri }, v.context(ctx))));
    const out = new v.violations.Violations();
    media.parse(raw, contentType, kind, out);
    return out.size === 0;
  };

  return (raw, contentType) => {
    const type = findDeclaredMediaType(declared, contentType);
    if (type === undefined) return false;
    if (validation !== undefined) return check(validation, raw, contentType, type);
    return loadValidation().then((v) => check((validation = v), raw, contentType, type));
  };
}

function isStringSchema(schema: unknown): boolean {
  if (schema === undefined || schema === true) return true;
  if (!schema || typeof schema !== 'object') return false;
  const keys = Object.keys(schema).filter((k) => !ANNOTATIONS.has(k) && !k.startsWith('x-'));
  return (schema as { type?: unknown }).type === 'string' && keys.every((k) => k === 'type' || k === 'format');
}

/** Keywords that say nothing about which values are valid. */
const ANNOTATIONS = new Set(['title', 'description', 'example', 'examples', 'default', 'readOnly', 'writeOnly', 'deprecated', 'contentMediaType', 'contentEncoding', 'xml', 'externalDocs']);
