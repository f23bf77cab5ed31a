// Consumer components (docs/bearer-tokens.md): what admits requests to the contract's operations. The built-in
// `platform-http` is our node:http server, enforcing `oauthProfile` with bearer tokens; embedders register
// their own. Fail closed: a profile is never handed to a component that does not declare it enforces it.
import { Errors, svcError } from '../util/errors.js';
import { findOAuthProfile, type FacadeConfig } from '../config/model.js';
import type { Logger } from '../util/log.js';
import type { Authenticate, OperationStages } from '../message/stages.js';
import { bearerAuthenticator } from './bearer.js';
import { readProfile } from './profiles.js';

const BUILT_IN_COMPONENT = 'platform-http';

/** What a component's factory is given at startup. */
export interface ConsumerComponentOptions {
  /** The name it was chosen by (`consumerComponentName` or rest configuration `component`). */
  name: string;
  /** The rest configuration's endpoint properties (`oauthProfile` among them). */
  endpointProperties: Readonly<Record<string, string>>;
  /** `oauthProfile`, when set: its name and its `svc.oauth.<name>.*` keys as configured. */
  oauthProfile?: { name: string; properties: Readonly<Record<string, string>> };
  /** Directory relative file names in the configuration are resolved from. */
  baseDir: string;
  logger: Logger;
}

/** A started component. With `oauthProfile` set it must enforce it through `authenticate`. */
export interface ConsumerComponent {
  /**
   * Runs for every request of every operation before its body is read: returns what the route sees as
   * property `SvcOAuthTokenValidationResult` (or a promise of it), or throws an SvcError to refuse it.
   */
  authenticate?: Authenticate;
}

export interface ConsumerComponentFactory {
  /** Whether the component enforces `oauthProfile`; anything but `true` makes a startup with a profile fail. */
  readonly supportsOAuthProfile: boolean;
  create(options: ConsumerComponentOptions): ConsumerComponent | Promise<ConsumerComponent>;
}

const platformHttp: ConsumerComponentFactory = {
  supportsOAuthProfile: true,
  create({ oauthProfile, baseDir, logger }) {
    if (oauthProfile === undefined) return {};
    return { authenticate: bearerAuthenticator(readProfile(oauthProfile.name, oauthProfile.properties, baseDir), logger) };
  },
};

const registry = new Map<string, ConsumerComponentFactory>([[BUILT_IN_COMPONENT, platformHttp]]);

/** Adds (or replaces) a consumer component; `platform-http` cannot be replaced. */
export function registerConsumerComponent(name: string, factory: ConsumerComponentFactory): void {
  if (typeof name !== 'string' || name === '') throw new TypeError('registerConsumerComponent: the name must be a non-empty string');
  if (name === BUILT_IN_COMPONENT) throw new TypeError(`registerConsumerComponent: ${BUILT_IN_COMPONENT} is built in and cannot be replaced`);
  if (typeof factory?.create !== 'function') throw new TypeError(`registerConsumerComponent(${name}): the factory needs a create(options) function`);
  registry.set(name, factory);
}

/** Starts the configured component; its stages go into every operation's pipeline. */
export async function consumerStages(config: FacadeConfig, logger: Logger): Promise<Partial<OperationStages>> {
  const name = config.rest.component ?? BUILT_IN_COMPONENT;
  const factory = registry.get(name);
  if (factory === undefined) throw svcError(Errors.UNKNOWN_COMPONENT, name);
  const profileName = config.endpointProperties.oauthProfile;
  const options: ConsumerComponentOptions = { name, endpointProperties: { ...config.endpointProperties }, baseDir: config.baseDir, logger };
  if (profileName !== undefined) {
    if (factory.supportsOAuthProfile !== true) throw svcError(Errors.OAUTH_UNSUPPORTED, name);
    const properties = findOAuthProfile(config, profileName);
    if (properties === undefined) throw svcError(Errors.OAUTH_PROFILE, profileName, `no svc.oauth.${profileName}.* keys are set (need issuer and one of jwks-uri, jwks-file, public-key-file, secret)`);
    options.oauthProfile = { name: profileName, properties: { ...properties } };
  }
  const component = await factory.create(options);
  // Declaring support is not enough: a component that would let requests through unchecked never starts.
  if (profileName !== undefined && typeof component?.authenticate !== 'function') throw svcError(Errors.OAUTH_UNSUPPORTED, name);
  return component?.authenticate === undefined ? {} : { authenticate: component.authenticate };
}
