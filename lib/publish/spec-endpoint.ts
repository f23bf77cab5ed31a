// Publishing the contract (docs/configuration.md). Rest configuration `apiContextPath`: the parsed contract as JSON or
// YAML, with `servers` rewritten to this host (`hostNameResolver: localIp`, the default) or kept (`none`).
// `openApi.apiContextPath`: the contract file's original bytes under the base path.
import type { ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';
import { extname } from 'node:path';
import { stringify as stringifyYaml } from 'yaml';
import { joinPaths } from '../contract/base-path.js';
import type { OpenApiDocument } from '../contract/load.js';
import { Errors } from '../util/errors.js';
import { withRequestId } from '../message/request-id.js';
import type { FeatureContext, OperationRuntime } from '../message/stages.js';
import type { Logger } from '../util/log.js';
import type { FacadeConfig } from '../config/model.js';
import { compileNegotiator } from '../http/negotiation.js';
import { sendProblem } from '../http/problem.js';
import type { Router } from '../http/router.js';
import { endWithBody } from '../http/compression.js';

type Format = 'json' | 'yaml';

const JSON_TYPE = 'application/json';
const YAML_TYPE = 'application/yaml';

/** Adds the configured spec endpoints to the router (GET; HEAD and 405 come from the dispatcher). */
export function registerSpecEndpoints(router: Router<OperationRuntime>, { config, contract, basePath, logger }: FeatureContext): void {
  const published = config.rest.apiContextPath;
  if (isEndpointPath(published)) {
    const documents = publishedDocuments(contract.doc, basePath, config.rest.hostNameResolver ?? 'localIp');
    const path = published.replace(/\/+$/, '');
    publish(router, path, documentEndpoint(documents, undefined, logger), logger);
    publish(router, `${path}.json`, documentEndpoint(documents, 'json', logger), logger);
    publish(router, `${path}.yaml`, documentEndpoint(documents, 'yaml', logger), logger);
  }
  const original = config.openApi.apiContextPath;
  const raw = contract.raw;
  if (isEndpointPath(original) && raw !== undefined) {
    const type = originalType(contract.uri, raw);
    publish(router, joinPaths(basePath, original), { serve: (_req, res) => send(res, raw, type) }, logger);
  }
}

/** A context path that names an endpoint: unset, empty and `/` publish nothing. */
function isEndpointPath(path: string | undefined): path is string {
  return path !== undefined && path !== '' && path !== '/';
}

/** Whether the contract file's own bytes are served (`openApi.apiContextPath`): only then are they kept. */
export function publishesOriginal(config: Pick<FacadeConfig, 'openApi'>): boolean {
  return isEndpointPath(config.openApi.apiContextPath);
}

/** Operations are registered first and keep their path; a shadowed spec endpoint is worth a warning. */
function publish(router: Router<OperationRuntime>, path: string, endpoint: OperationRuntime, logger: Logger): void {
  if (!router.add('GET', path, endpoint)) logger.warn(`the contract is not published at ${path}: an operation of the contract already answers GET there`);
}

type Documents = (port: number, format: Format) => Buffer;

/**
 * The serialized documents, made once per distinct local port (the rewritten `servers` names the port the
 * request came in on) and format; `none` makes one set for all ports.
 */
function publishedDocuments(doc: OpenApiDocument, basePath: string, resolver: 'localIp' | 'none'): Documents {
  const host = resolver === 'localIp' ? localIPv4() : undefined;
  const cache = new Map<string, Buffer>();
  return (port, format) => {
    const key = host === undefined ? format : `${port}:${format}`;
    let bytes = cache.get(key);
    if (bytes === undefined) {
      const published = host === undefined ? doc : withServer(doc, `http://${host}:${port}${basePath === '/' ? '' : basePath}`);
      bytes = Buffer.from(format === 'json' ? JSON.stringify(published, null, 2) : stringifyYaml(published));
      cache.set(key, bytes);
    }
    return bytes;
  };
}

/**
 * The document with `servers` replaced by one entry, in the place `servers` had (else right after `info`).
 * The entry keeps the first server's `name` (OpenAPI 3.2), which clients may refer to it by.
 */
function withServer(doc: OpenApiDocument, url: string): OpenApiDocument {
  const name = doc.servers?.[0]?.name;
  const servers = [typeof name === 'string' ? { url, name } : { url }];
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc)) {
    if (key === 'servers') out.servers = servers;
    else out[key] = value;
    if (key === 'info' && !('servers' in doc)) out.servers = servers;
  }
  out.servers ??= servers;
  return out as OpenApiDocument;
}

/** This host's first non-internal IPv4 address, looked up once at startup; loopback when there is none. */
function localIPv4(): string {
  for (const addresses of Object.values(networkInterfaces())) {
    for (const a of addresses ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  }
  return '127.0.0.1';
}

const negotiate = compileNegotiator([JSON_TYPE, YAML_TYPE, 'text/yaml', 'application/x-yaml']);

function documentEndpoint(documents: Documents, fixed: Format | undefined, logger: Logger): OperationRuntime {
  return {
    serve(req, res) {
      let format = fixed;
      let type = fixed === 'yaml' ? YAML_TYPE : JSON_TYPE;
      if (format === undefined) {
        // Nothing acceptable (say, Accept: text/html only) still gets JSON: this is a page for people too.
        const chosen = negotiate(req.headers.accept) ?? JSON_TYPE;
        format = chosen === JSON_TYPE ? 'json' : 'yaml';
        type = chosen;
      }
      let body: Buffer;
      try {
        body = documents(req.socket.localPort ?? 0, format);
      } catch (err) {
        // A contract JSON cannot represent (a YAML alias cycle) must not take the process down.
        logger.error(`${req.url ?? ''}: ${(err as Error)?.stack ?? String(err)}`);
        sendProblem(res, Errors.SPEC_PUBLISH);
        return;
      }
      send(res, body, type, fixed === undefined ? 'Accept' : undefined);
    },
  };
}

function send(res: ServerResponse, body: Buffer, type: string, vary?: string): void {
  // Compressed when the client takes it (each document once: the same bytes are served every time); node sends no body for HEAD.
  const headers: Record<string, string> = vary === undefined ? { 'content-type': type } : { 'content-type': type, vary };
  endWithBody(res, 200, withRequestId(res, headers), type, body);
}

/** Content type of the original file, by extension; by content when the extension says nothing. */
function originalType(uri: string, raw: Buffer): string {
  const ext = extname(uri.replace(/[?#].*$/, '')).toLowerCase();
  if (ext === '.json') return JSON_TYPE;
  if (ext === '.yaml' || ext === '.yml') return YAML_TYPE;
  return /^\s*[{[]/.test(raw.toString('utf8', 0, 64)) ? JSON_TYPE : YAML_TYPE;
}
