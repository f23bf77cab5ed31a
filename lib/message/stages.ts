// The per-operation request pipeline's shapes: what a feature (validation, binding, mock, spec endpoint)
// compiles for one operation at startup. Features import these; the facade assembles them.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FacadeConfig, ServerOptions } from '../config/model.js';
import type { Contract } from '../contract/load.js';
import type { Operation } from '../contract/operations.js';
import type { BodySerializer } from '../http/respond.js';
import type { Logger } from '../util/log.js';
import { boundedMemo } from '../util/memo.js';
import type { Exchange } from './exchange.js';
import type { RequestFacts } from './request-facts.js';
import type { Violations } from './violations.js';

export type { ParameterValues, RequestFacts } from './request-facts.js';

export type Disposition = 'route' | 'mock' | 'ignored';

/** An operation as a facade serves it. */
export interface ServedOperation {
  operation: Operation;
  /** Full path served: base path + operation path. */
  path: string;
  endpoint: string;
  disposition: Disposition;
}

/** One operation's request handling, built once. */
export interface OperationRuntime {
  serve(req: IncomingMessage, res: ServerResponse, params: Record<string, string | undefined>, paramNames: readonly string[], path: string, query: string): void;
}

/** An operation's per-request hook (metrics, access log; lib/observe/), compiled once. */
export interface RequestObserver {
  /** The request reached the operation (before its body is read). */
  begin(req: IncomingMessage, res: ServerResponse): void;
  /** The request body was read: this many bytes. */
  received(bytes: number): void;
  /** The answer has been written (or could not be: the client is gone). */
  end(res: ServerResponse): void;
}

/**
 * Admits or refuses a request from its head alone, before the body is read (bearer tokens, docs/bearer-tokens.md). It
 * gets the Authorization field(s), already removed from the request (a list when the client sent several).
 * Returns the value the route sees as property `SvcOAuthTokenValidationResult` (a promise only when it must
 * wait, e.g. for keys); throws or rejects with an SvcError (and its headers) to refuse the request.
 */
export type Authenticate = (authorization: string | readonly string[] | undefined, req: IncomingMessage) => unknown;

/**
 * One operation's request pipeline, in order: authenticate (before the body is read) → check (validation; throws SvcError) → decode (sets the
 * exchange body from the raw bytes; binding) → invoke (route, mock or echo) → checkResponse → serialize.
 */
export interface OperationStages {
  authenticate?: Authenticate;
  check?: (facts: RequestFacts) => void;
  decode?: (facts: RequestFacts, ex: Exchange) => void;
  invoke: (ex: Exchange) => void | Promise<void>;
  checkResponse?: (ex: Exchange, facts: RequestFacts) => void;
  serialize?: BodySerializer;
  /** The media types `serialize` can write an object in (binding's mode); without it, JSON and XML ones. */
  writesType?: (type: string) => boolean;
  /**
   * invoke forwards the request body to a backend untouched (see Route.streamsRequestBody): when no check or
   * decode stage needs the bytes, the exchange body is the request stream itself, never read whole.
   */
  streamsRequestBody?: boolean;
  /** Checks for the items of sequential bodies (validation), for the sequence stage. */
  checkItems?: ItemChecks;
  /**
   * Sequential media types (lib/sequences/): made once, with the item checks, for operations that declare
   * one; every other operation has none and pays nothing.
   */
  sequence?: (checks: ItemChecks | undefined) => SequenceStage;
}

/** Checks of the items of sequential bodies; each adds violations naming the item's 0-based index. */
export interface ItemChecks {
  /** One request item sent as the declared media type `mediaType`. */
  request?(mediaType: string, item: unknown, index: number, out: Violations): void;
  /** The check of a whole request sequence once it ended, when its media type has one (3.2 `schema`). */
  requestWhole?(mediaType: string): ((items: unknown[], out: Violations) => void) | undefined;
  /** The check of each item of an answer with this status and media type (looked up once per answer). */
  response?(status: string, mediaType: string): (item: unknown, index: number, out: Violations) => void;
}

/** How one operation reads and writes bodies item by item. */
export interface SequenceStage {
  /**
   * Set for routed operations: true when the request's Content-Type is a declared sequential media type.
   * Its body is then not read first; the route gets it from `open`.
   */
  accepts?(req: IncomingMessage): boolean;
  /** The exchange body of such a request: its items, parsed (and checked) as they arrive. */
  open(req: IncomingMessage, ex: Exchange): unknown;
  /** Before the answer is written: a promise while the rest of the request's items must be read first. */
  settle(ex: Exchange, res: ServerResponse): void | Promise<void>;
  /** An answer made of items (an async iterable, a generator, or an array in a sequential type) becomes framed bytes. */
  frame(ex: Exchange, res: ServerResponse): void;
  /** True for a backend's answer in a sequential media type that `frame` checks item by item as it passes (never read whole). */
  checksThrough(ex: Exchange): boolean;
}

/** Everything a feature may use when compiling its stages for an operation, once at startup. */
export interface FeatureContext {
  config: FacadeConfig;
  contract: Contract;
  basePath: string;
  logger: Logger;
  serverOptions: ServerOptions;
}

/**
 * A feature (validation, binding, mock) compiles its stages for one operation at startup; it returns only
 * the stages it provides, which replace the defaults.
 */
export type Feature = (op: Operation, disposition: Disposition, ctx: FeatureContext) => Partial<OperationStages> | undefined;

const TEXTUAL = /json|xml|text\/|x-www-form-urlencoded|yaml|javascript|graphql/i;

/** Remembered per Content-Type: a client sends the same one request after request. */
const textual = boundedMemo((contentType) => TEXTUAL.test(contentType));

/** A media type whose raw body a route gets as text (rawBodyValue), not bytes. */
export function isTextualMediaType(contentType: string | undefined): boolean {
  return textual(contentType ?? '');
}

/** The raw body as the route sees it without binding: text for textual media types, bytes otherwise. */
export function rawBodyValue(raw: Buffer | undefined, contentType: string | undefined, text?: string): unknown {
  if (raw === undefined) return undefined;
  return isTextualMediaType(contentType) ? (text ?? raw.toString('utf8')) : raw;
}
