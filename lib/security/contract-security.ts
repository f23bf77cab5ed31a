// The contract's security, assembled once per facade build: the schemes of components.securitySchemes
// compiled on first use (one an operation never names is never judged), the key and user files of
// svc.security.*, the endpoint's oauthProfile for tokens, the embedder's handlers; then one authenticate
// stage per operation. With clientSecurityValidation off nothing of this runs: a plain configuration pays
// nothing, and startup says how many operations declare security that nothing enforces.
import type { FacadeConfig } from '../config/model.js';
import type { Contract } from '../contract/load.js';
import type { Operation } from '../contract/operations.js';
import { isRef } from '../contract/refs.js';
import { Errors, svcError } from '../util/errors.js';
import type { Authenticate } from '../message/stages.js';
import { readApiKeys } from './api-keys.js';
import { readBasicUsers } from './basic.js';
import { compileRequirements, declaredSecurity, requiresCredentials } from './requirements.js';
import { compileScheme, type CompiledScheme, type SchemeContext } from './schemes.js';

export interface ContractSecurity {
  /** The operation's authenticate stage; undefined when it is open to anyone. */
  stageFor(op: Operation): Authenticate | undefined;
  /** Schemes operations use that are checked only for presence and form (no file, profile or handler verifies them). */
  presenceOnly(): CompiledScheme[];
}

/** `bearer`: the consumer component's check of the endpoint's oauthProfile, when one is set. */
export function compileContractSecurity(config: FacadeConfig, contract: Contract, bearer: Authenticate | undefined): ContractSecurity {
  const declared = securitySchemes(contract);
  for (const name of Object.keys(config.securityHandlers)) {
    if (typeof config.securityHandlers[name] !== 'function') throw svcError(Errors.SECURITY_SCHEME, `securityHandlers.${name} is not a function`);
    if (!declared.has(name)) throw svcError(Errors.SECURITY_SCHEME, `securityHandlers names ${name}, which is not in components.securitySchemes${declared.size > 0 ? ` (${[...declared.keys()].join(', ')})` : ''}`);
  }
  const { apiKeys, basicUsers } = config.security;
  const ctx: SchemeContext = {
    apiKeys: apiKeys ? readApiKeys(apiKeys, config.baseDir) : undefined,
    basicUsers: basicUsers ? readBasicUsers(basicUsers, config.baseDir) : undefined,
    bearer,
    handlers: config.securityHandlers,
  };
  const compiled = new Map<string, CompiledScheme>();
  const lookup = (name: string, where: string): CompiledScheme => {
    let scheme = compiled.get(name);
    if (scheme !== undefined) return scheme;
    const object = declared.get(name);
    if (object === undefined) {
      const known = declared.size > 0 ? ` (${[...declared.keys()].join(', ')})` : '';
      throw svcError(Errors.SECURITY_SCHEME, `${where}: the security requirement names ${name}, which is not in components.securitySchemes${known}; fix the contract, or serve it without enforcing its security (clientSecurityValidation: false, svc-facade mock --no-security)`);
    }
    scheme = compileScheme(name, object, ctx);
    compiled.set(name, scheme);
    return scheme;
  };
  return {
    stageFor: (op) => compileRequirements(op, contract, lookup),
    presenceOnly: () => [...compiled.values()].filter((s) => !s.verified),
  };
}

/** components.securitySchemes by name, references followed. */
function securitySchemes(contract: Contract): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const schemes = contract.doc.components?.securitySchemes;
  if (schemes === null || typeof schemes !== 'object') return out;
  for (const [name, raw] of Object.entries(schemes)) {
    const value = isRef(raw) ? contract.refs.deref(raw, contract.uri).value : raw;
    if (value !== null && typeof value === 'object') out.set(name, value as Record<string, unknown>);
  }
  return out;
}

/** How many operations declare security that must be met (not only anonymous). */
export function securedOperationCount(operations: readonly Operation[], contract: Contract): number {
  return operations.filter((op) => requiresCredentials(declaredSecurity(op, contract))).length;
}

/** The startup warning when the contract declares security and clientSecurityValidation is off. */
export function unenforcedSecurityWarning(count: number): string {
  return `${count} operation(s) declare security requirements that nothing enforces: any client may call them. Set restConfiguration clientSecurityValidation: true (svc.rest.clientSecurityValidation=true) to enforce them (docs/security.md#contract-security)`;
}
