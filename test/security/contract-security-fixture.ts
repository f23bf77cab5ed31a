// A contract of our own declaring every kind of security scheme OpenAPI 3.1 has, and operations that use
// them alone, together (AND) and as alternatives (OR), for test/security/contract-*.test.ts.
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import type { Exchange, FacadeObjectConfig } from '../../lib/index.js';
import { tempDir } from '../helpers.js';

const op = (id: string, security?: unknown) => ({
  get: { operationId: id, ...(security === undefined ? {} : { security }), responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } } },
});

export const SECURED_CONTRACT = {
  openapi: '3.1.0',
  info: { title: 'Every scheme', version: '1' },
  security: [{ apiKeyHeader: [] }],
  paths: {
    '/open': op('open', []),
    '/optional': op('optional', [{}, { apiKeyHeader: [] }]),
    '/default': op('byDefault'),
    '/key': op('key', [{ apiKeyHeader: [] }]),
    '/query': op('query', [{ apiKeyQuery: [] }]),
    '/cookie': op('cookie', [{ apiKeyCookie: [] }]),
    '/basic': op('basic', [{ basicAuth: [] }]),
    '/either': op('either', [{ apiKeyHeader: [], apiKeyQuery: [] }, { basicAuth: [] }]),
    '/bearer': op('bearer', [{ bearerAuth: [] }]),
    '/scoped': op('scoped', [{ oauth: ['pets:write'] }]),
    '/oidc': op('oidc', [{ oidc: ['read'] }]),
    '/mtls': op('mtls', [{ mtls: [] }]),
    '/digest': op('digest', [{ digest: [] }]),
    '/custom': op('custom', [{ custom: ['admin'] }]),
    '/upload': {
      post: {
        operationId: 'upload',
        security: [{ apiKeyHeader: [] }],
        requestBody: { content: { 'application/octet-stream': {} } },
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  },
  components: {
    securitySchemes: {
      apiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
      apiKeyQuery: { type: 'apiKey', in: 'query', name: 'api_key' },
      apiKeyCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
      basicAuth: { type: 'http', scheme: 'basic' },
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      oauth: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'https://issuer.test/token', scopes: { 'pets:write': 'write', 'pets:read': 'read' } } } },
      oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://issuer.test/.well-known/openid-configuration' },
      mtls: { type: 'mutualTLS' },
      digest: { type: 'http', scheme: 'Digest' },
      custom: { type: 'apiKey', in: 'header', name: 'X-Custom' },
    },
  },
};

export const OPERATION_IDS = Object.values(SECURED_CONTRACT.paths).map((p) => ('get' in p ? p.get : p.post).operationId);

export const HMAC_SECRET = 'a-test-secret-of-at-least-32-bytes-for-hs256';
export const KEYS = { alice: 'alice-key-0123456789', hashed: 'hashed-key-9876543210', unnamed: 'unnamed-key-5555' };
export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** The contract, an API key file (named, sha256-stored, unnamed) and an htpasswd file (bcrypt $2y$, {SHA}). */
export function securedDir(extra: Record<string, string> = {}): string {
  return tempDir({
    'contract.json': JSON.stringify(SECURED_CONTRACT),
    'api-keys.txt': `# API keys\nalice: ${KEYS.alice}\nbob: sha256:${sha256Hex(KEYS.hashed)}\n\n${KEYS.unnamed}\n`,
    // "secret" for carol (htpasswd -B -C 5 style, $2y$) and "open sesame" for dave ({SHA}, htpasswd -s).
    'users.htpasswd': `carol:$2y$05$L7zt6SOxSBFv5gm9/XzE6u405txMPwy/ykgDtOAfuPUir/tkjXTBm\ndave:{SHA}${createHash('sha1').update('open sesame').digest('base64')}\n`,
    ...extra,
  });
}

/** Every operation routed to a function that answers what it saw; `calls` counts the requests that reached one. */
export function securedConfig(dir: string, calls: { count: number }, extra: Partial<FacadeObjectConfig> = {}): FacadeObjectConfig {
  const route = (ex: Exchange) => {
    calls.count++;
    const token = ex.properties.SvcOAuthTokenValidationResult as { subject?: string } | undefined;
    ex.message.body = { principal: ex.properties.SvcPrincipal ?? null, subject: token?.subject ?? null, authorization: ex.header('authorization') ?? null };
    ex.message.headers.set('content-type', 'application/json');
  };
  return {
    specification: `${dir}/contract.json`,
    baseDir: dir,
    restConfiguration: { clientSecurityValidation: true },
    routes: Object.fromEntries(OPERATION_IDS.map((id) => [id, route])),
    ...extra,
  };
}

export const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

export interface Answer {
  status: number;
  type: string | null;
  challenges: string[];
  text: string;
  body: Record<string, unknown>;
}

/** One GET over node:http, so that every WWW-Authenticate field line is kept apart (fetch joins them). */
export function call(origin: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const challenges: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]!.toLowerCase() === 'www-authenticate') challenges.push(res.rawHeaders[i + 1]!);
        resolve({ status: res.statusCode!, type: res.headers['content-type'] ?? null, challenges, text, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) });
      });
    });
    req.on('error', reject);
    req.end();
  });
}
