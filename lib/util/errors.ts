// The one catalogue of every error svc-facade itself produces: a stable code, a status (HTTP errors) or an
// exit code (startup errors), and a message template where `%s` takes the arguments in order.
import { STATUS_CODES } from 'node:http';

export interface ErrorDef {
  readonly code: string;
  /** HTTP status for request-time errors; 500 for startup errors (never sent). */
  readonly status: number;
  readonly message: string;
  /** Process exit code when this error stops startup. */
  readonly exitCode?: number;
}

/** One violation listed in a problem body's `errors` array (docs/errors.md). */
export interface Violation {
  in: 'body' | 'query' | 'path' | 'header' | 'cookie';
  name: string;
  pointer: string;
  message: string;
}

const def = (code: string, status: number, message: string, exitCode?: number): ErrorDef =>
  exitCode === undefined ? { code, status, message } : { code, status, message, exitCode };

export const Errors = {
  // ---- request time (problem+json bodies) ----
  NOT_FOUND: def('SVC_NOT_FOUND', 404, 'No operation of the contract matches this path.'),
  METHOD_NOT_ALLOWED: def('SVC_METHOD_NOT_ALLOWED', 405, 'The path does not declare this method.'),
  BODY_TOO_LARGE: def('SVC_BODY_TOO_LARGE', 413, 'The request body exceeds the limit of %s bytes.'),
  ITEM_TOO_LARGE: def('SVC_ITEM_TOO_LARGE', 413, 'Item %s of the request body exceeds the limit of %s bytes for one item.'),
  BODY_ABORTED: def('SVC_BODY_ABORTED', 400, 'The request body could not be read.'),
  // Embedding behind a body parser (lib/http/parsed-body.ts): the client is told the service failed; the log
  // line (BODY_READ_EARLIER_LOG) tells the operator why and how to mount the facade.
  BODY_READ_EARLIER: def('SVC_BODY_READ_EARLIER', 500, 'The request body was read before the facade got it, and what was left cannot stand for it.'),
  BODY_READ_EARLIER_LOG: def('SVC_BODY_READ_EARLIER', 500, '%s: the request body was read by a middleware before the facade (e.g. express.json(), urlencoded(), raw(), text()), and cannot be used: %s. Mount the facade (facade.middleware or facade.handler) before the body parsers, or on a router without them; or keep the bytes with a verify hook (verify: (req, res, buf) => { req.rawBody = buf }).'),
  REQUEST_TIMEOUT: def('SVC_REQUEST_TIMEOUT', 408, 'The request was not received within the time limit.'),
  HEADERS_TOO_LARGE: def('SVC_HEADERS_TOO_LARGE', 431, 'The request headers are too large.'),
  MALFORMED_REQUEST: def('SVC_MALFORMED_REQUEST', 400, 'The request is not valid HTTP.'),
  UNSUPPORTED_MEDIA_TYPE: def('SVC_UNSUPPORTED_MEDIA_TYPE', 415, 'The content type %s is not declared for this operation.'),
  CORS_ORIGIN_REFUSED: def('SVC_CORS_ORIGIN_REFUSED', 403, 'Cross-origin calls from origin %s are not allowed (svc.cors.allowOrigins).'),
  CORS_METHOD_REFUSED: def('SVC_CORS_METHOD_REFUSED', 403, 'The path does not declare method %s, so a cross-origin %s request cannot be granted; it declares %s.'),
  CONTENT_ENCODING_UNSUPPORTED: def('SVC_CONTENT_ENCODING_UNSUPPORTED', 415, 'The request body is sent with Content-Encoding %s; accepted: gzip, deflate, br (or none).'),
  CONTENT_ENCODING_INVALID: def('SVC_CONTENT_ENCODING_INVALID', 400, 'The request body cannot be decoded as its Content-Encoding %s says.'),
  NOT_ACCEPTABLE: def('SVC_NOT_ACCEPTABLE', 406, 'None of the declared response media types satisfies the Accept header.'),
  MOCK_NOT_ENCODABLE: def('SVC_MOCK_NOT_ENCODABLE', 406, 'The mock cannot write its answer in any media type the Accept header allows (%s): ask for JSON, XML or YAML.'),
  MOCK_NO_BODY: def('SVC_MOCK_NO_BODY', 500, 'The mock can make no body for %s in %s: the response has no example that can be written in it, and its schema admits no value.'),
  REQUEST_INVALID: def('SVC_REQUEST_INVALID', 400, '%s'),
  BODY_MISSING: def('SVC_BODY_MISSING', 400, 'The request body is missing.'),
  QUERY_MISSING: def('SVC_QUERY_MISSING', 400, 'Some of the required query parameters are missing.'),
  FORWARD_PATH_UNSAFE: def('SVC_FORWARD_PATH_UNSAFE', 400, 'The request path cannot be forwarded: a segment is a dot segment or hides a slash.'),
  HEADERS_MISSING: def('SVC_HEADERS_MISSING', 400, 'Some of the required HTTP headers are missing.'),
  INVALID_JSON: def('SVC_INVALID_JSON', 400, 'Invalid JSon payload.'),
  INVALID_XML: def('SVC_INVALID_XML', 400, 'Invalid XML payload.'),
  BODY_TOO_DEEP: def('SVC_BODY_TOO_DEEP', 400, 'The request body nests deeper than %s levels.'),
  INVALID_RESPONSE: def('SVC_INVALID_RESPONSE', 500, 'Invalid response JSon payload.'),
  REQUEST_NOT_CONFORMING: def('SVC_REQUEST_NOT_CONFORMING', 400, 'The request does not conform to the contract.'),
  ROUTE_FAILED: def('SVC_ROUTE_FAILED', 500, 'The route for this operation failed.'),
  SCHEMA_UNCOMPILABLE: def('SVC_SCHEMA_UNCOMPILABLE', 500, 'A schema of the contract for this operation cannot be compiled, so the request is refused rather than passed unchecked.'),
  SPEC_PUBLISH: def('SVC_SPEC_PUBLISH', 500, 'The contract could not be serialized for publishing.'),
  // The first %s after "The backend" is " <origin>" with svc.backend.exposeOrigin=true, else empty: clients
  // are not told the backend's internal address by default (the log line always names it).
  BACKEND_FAILED: def('SVC_BACKEND_FAILED', 502, 'The backend%s could not be reached.'),
  BACKEND_TIMEOUT: def('SVC_BACKEND_TIMEOUT', 504, 'The backend%s did not answer in time.'),
  BACKEND_RESPONSE_TOO_LARGE: def('SVC_BACKEND_RESPONSE_TOO_LARGE', 502, 'The backend%s answered with a body over the limit of %s bytes.'),
  BACKEND_BUSY: def('SVC_BACKEND_BUSY', 503, 'The backend is busy: no connection to it became free within %s ms. Retry later.'),
  CIRCUIT_OPEN: def('SVC_CIRCUIT_OPEN', 503, 'The backend is failing: calls to it are suspended for %s s. Retry later.'),
  BODY_NOT_FORWARDED: def('SVC_BODY_NOT_FORWARDED', 400, 'A %s request cannot carry a body (RFC 9110 gives it no meaning): send it without Transfer-Encoding and without a Content-Length above 0.'),
  NO_ROUTE: def('SVC_NO_ROUTE', 500, 'No consumer on endpoint direct:%s.'),
  UNAUTHORIZED: def('SVC_UNAUTHORIZED', 401, '%s'),
  TOKEN_REQUEST_INVALID: def('SVC_TOKEN_REQUEST_INVALID', 400, '%s'),
  KEYS_UNAVAILABLE: def('SVC_KEYS_UNAVAILABLE', 503, 'The key source for token validation is unavailable.'),
  // The contract's security requirements (clientSecurityValidation): the detail names what was missing or
  // refused, never a credential.
  SECURITY_UNMET: def('SVC_UNAUTHORIZED', 401, 'The request does not meet the security requirements of this operation: %s'),
  INSUFFICIENT_SCOPE: def('SVC_INSUFFICIENT_SCOPE', 403, 'The token lacks the scope(s) this operation requires: %s.'),

  // ---- startup (exit code 1: the contract or routes; exit code 2: the command line or config surface) ----
  SPEC_LOAD: def('SVC_SPEC_LOAD', 500, 'The given OpenApi specification cannot be loaded from: %s. %s', 1),
  SPEC_REF: def('SVC_SPEC_REF', 500, 'Cannot resolve $ref %s in %s: %s', 1),
  SPEC_REF_UNRESOLVED: def('SVC_SPEC_REF_UNRESOLVED', 500, 'Cannot resolve $ref %s used at %s (reached from %s): %s', 1),
  ORPHAN_ROUTES: def('SVC_ORPHAN_ROUTES', 500, '%s route(s) consume from a direct: endpoint that is no operation of the contract and that no other route calls:%s', 1),
  SPEC_MISSING: def('SVC_SPEC_MISSING', 500, 'No OpenAPI specification is configured: set rest.openApi.specification (or svc.rest.openApi.specification).', 1),
  UNMAPPED_OPERATIONS: def('SVC_UNMAPPED_OPERATIONS', 500, 'OpenAPI specification has %s unmapped operations to corresponding routes:%s', 1),
  DUPLICATE_OPERATION_ID: def('SVC_DUPLICATE_OPERATION_ID', 500, 'Duplicate operationId %s: %s and %s', 1),
  ADDITIONAL_OPERATION_KEY: def('SVC_ADDITIONAL_OPERATION_KEY', 500, 'additionalOperations key %s of path %s is not allowed: %s', 1),
  QUERYSTRING_TWICE: def('SVC_QUERYSTRING_TWICE', 500, '%s declares %s in: querystring parameters (%s); at most one is allowed, path-level parameters included', 1),
  QUERYSTRING_WITH_QUERY: def('SVC_QUERYSTRING_WITH_QUERY', 500, '%s declares the in: querystring parameter %s and in: query parameters (%s); the query string is either one or the other', 1),
  QUERYSTRING_NO_CONTENT: def('SVC_QUERYSTRING_NO_CONTENT', 500, '%s: the in: querystring parameter %s must be described by content (one media type, e.g. application/x-www-form-urlencoded), not schema', 1),
  DUPLICATE_ROUTE: def('SVC_DUPLICATE_ROUTE', 500, 'Two routes consume from %s (%s and %s)', 1),
  UNKNOWN_DIRECT_TARGET: def('SVC_UNKNOWN_DIRECT_TARGET', 500, '%s: no route consumes from %s (mocked and ignored operations are not routes)', 1),
  CONFIG_INVALID: def('SVC_CONFIG_INVALID', 500, '%s: option %s has invalid value %s; allowed: %s', 2),
  CONFIG_UNKNOWN: def('SVC_CONFIG_UNKNOWN', 500, '%s: unknown option %s; allowed: %s', 2),
  CONFIG_FILE: def('SVC_CONFIG_FILE', 500, '%s: %s', 2),
  CLI_USAGE: def('SVC_CLI_USAGE', 500, '%s', 2),
  STEP_INVALID: def('SVC_STEP_INVALID', 500, '%s: %s', 2),
  OAUTH_UNSUPPORTED: def('SVC_OAUTH_UNSUPPORTED', 500, 'The oauthProfile option is not supported by the resolved consumer component (%s); select a consumer component that enforces oauthProfile', 1),
  UNKNOWN_COMPONENT: def('SVC_UNKNOWN_COMPONENT', 500, 'No consumer component named %s', 1),
  SECURITY_SCHEME: def('SVC_SECURITY_SCHEME', 500, 'clientSecurityValidation: %s', 1),
  SECURITY_FILE: def('SVC_SECURITY_FILE', 500, '%s: %s: %s', 1),
  OAUTH_PROFILE: def('SVC_OAUTH_PROFILE', 500, 'OAuth profile %s: %s', 1),
  BINDING_SCAN: def('SVC_BINDING_SCAN', 500, 'bindingPackageScan %s: %s', 1),
  TLS_CONFIG: def('SVC_TLS_CONFIG', 500, '%s: %s', 2),
  TLS_FILES: def('SVC_TLS_FILES', 500, '%s: cannot use %s: %s', 2),
  LISTEN_FAILED: def('SVC_LISTEN_FAILED', 500, 'Cannot listen on %s:%s: %s', 1),
  CORS_CREDENTIALS_ANY_ORIGIN: def('SVC_CORS_CREDENTIALS_ANY_ORIGIN', 500, '%s: svc.cors.allowCredentials true with any origin (*) would let every site act with the user\'s cookies; name the allowed origins in svc.cors.allowOrigins', 2),
  CORS_ORIGIN_INVALID: def('SVC_CORS_ORIGIN_INVALID', 500, '%s: %s is not an origin (scheme://host[:port], no path), nor *', 2),
  OBSERVE_PATH_CONFLICT: def('SVC_OBSERVE_PATH_CONFLICT', 500, 'svc.observe.%s %s would shadow %s; choose another path, or serve health and metrics on a management port (svc.observe.port)', 2),
  TYPESCRIPT_LOADER_MISSING: def('SVC_TYPESCRIPT_LOADER_MISSING', 500, '%s: a .ts module needs the package tsx, which is not installed; install it (npm install tsx) or compile the module to .js', 2),
  TYPED_ROUTES_NEED_VALIDATION: def('SVC_TYPED_ROUTES_NEED_VALIDATION', 500, 'Typed routes (defineRoutes) need clientRequestValidation: true: their parameter and body types hold only for requests checked against the contract (typed routes: %s)', 1),
  TYPED_ROUTE_NO_OPERATION: def('SVC_TYPED_ROUTE_NO_OPERATION', 500, 'Typed route %s: the contract has no operation %s (generate the types again with svc-facade types?)', 1),
  TYPED_ROUTE_ELSEWHERE: def('SVC_TYPED_ROUTE_ELSEWHERE', 500, 'The typed route for operation %s (defineRoutes) is used as %s: a typed route runs only as the createFacade route of its own operation', 1),
} as const satisfies Record<string, ErrorDef>;

export type ErrorName = keyof typeof Errors;

export class SvcError extends Error {
  readonly code: string;
  readonly status: number;
  readonly exitCode: number;
  readonly errors: Violation[] | undefined;
  /** Response headers the answer must carry (e.g. `WWW-Authenticate` on a 401). */
  readonly headers: Readonly<Record<string, string | readonly string[]>> | undefined;

  constructor(d: ErrorDef, args: readonly unknown[] = [], errors?: Violation[], headers?: Readonly<Record<string, string | readonly string[]>>) {
    super(format(d.message, args));
    this.name = 'SvcError';
    this.code = d.code;
    this.status = d.status;
    this.exitCode = d.exitCode ?? 1;
    this.errors = errors;
    this.headers = headers;
  }
}

export function svcError(d: ErrorDef, ...args: unknown[]): SvcError {
  return new SvcError(d, args);
}

function format(template: string, args: readonly unknown[]): string {
  let i = 0;
  return template.replace(/%s/g, () => (i < args.length ? String(args[i++]) : '%s'));
}

export interface ProblemBody {
  type: 'about:blank';
  title: string;
  status: number;
  detail: string;
  errors?: Violation[];
  /** The catalogue's code (docs/errors.md): what a client can act on without reading `detail`. */
  code: string;
  /** The request id (X-Request-Id) of the request answered with this problem. */
  instance?: string;
}

/** RFC 9457 body for a status and detail text. */
export function problemBody(code: string, status: number, detail: string, errors?: Violation[]): ProblemBody {
  const title = STATUS_CODES[status] ?? 'Error';
  return errors && errors.length > 0 ? { type: 'about:blank', title, status, detail, errors, code } : { type: 'about:blank', title, status, detail, code };
}

/** Serialized problem body for a catalogue entry that takes no arguments; computed once. */
export function staticProblem(d: ErrorDef): Buffer {
  return Buffer.from(JSON.stringify(problemBody(d.code, d.status, d.message)));
}
