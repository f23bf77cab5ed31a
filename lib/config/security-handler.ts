// Embedders' own checks of the contract's security schemes, by scheme name (createFacade `securityHandlers`),
// as openapi-backend and express-openapi-validator offer them. A handler replaces the built-in check of its
// scheme; it runs before the body is read.
import type { Exchange } from '../message/exchange.js';

/**
 * Decides whether a request meets one security scheme of a requirement. `ex` is the request's head as an
 * exchange (its headers, Authorization included, and `ex.request`; no body yet); `scopes` are those the
 * requirement lists. Returns (or resolves to) `true`, or the principal's name (which also means met);
 * `false` or nothing means not met (401 with the scheme's challenge). Throwing an SvcError answers with it.
 */
export type SecurityHandler = (ex: Exchange, scopes: readonly string[]) => boolean | string | undefined | Promise<boolean | string | undefined>;
