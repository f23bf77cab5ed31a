// Environment overrides (docs/configuration.md): `SVC_REST_BINDINGMODE`, dots and dashes → `_`, upper case.
import { applyProperty } from './properties.js';
import type { FacadeConfig } from './model.js';

const ENDPOINT_PROPERTIES = ['oauthProfile'];

/** Maps an `SVC_...` variable name to the property key it overrides; undefined for names we do not own. */
export function environmentKey(name: string): string | undefined {
  const rest = name.slice('SVC_'.length);
  let m: RegExpExecArray | null;
  if ((m = /^(SERVER|OBSERVE)_TLS_(.+)$/.exec(rest))) return `svc.${m[1]!.toLowerCase()}.tls.${m[2]}`;
  if ((m = /^SERVER_(.+)$/.exec(rest))) return `svc.server.${m[1]}`;
  if ((m = /^BACKEND_(.+)$/.exec(rest))) return `svc.backend.${m[1]}`;
  if ((m = /^OBSERVE_(.+)$/.exec(rest))) return `svc.observe.${m[1]}`;
  if ((m = /^SECURITY_(.+)$/.exec(rest))) return `svc.security.${m[1]}`;
  if ((m = /^CORS_(.+)$/.exec(rest))) return `svc.cors.${m[1]}`;
  // SVC_REST_CORSHEADERS_ACCESS_CONTROL_MAX_AGE: the field's dashes are underscores there.
  if ((m = /^REST_CORS_?HEADERS_(.+)$/.exec(rest))) return `svc.rest.corsHeaders.${m[1]!.replace(/_/g, '-')}`;
  if (/^COMPONENT_REST_?OPENAPI_BASE_?PATH$/.test(rest)) return 'svc.component.rest-openapi.base-path';
  if ((m = /^REST_OPEN_?API_(.+)$/.exec(rest))) return `svc.rest.openApi.${m[1]}`;
  if ((m = /^REST_ENDPOINT_?PROPERTY_(.+)$/.exec(rest))) {
    const wanted = m[1]!.replace(/_/g, '').toLowerCase();
    return `svc.rest.endpointProperty.${ENDPOINT_PROPERTIES.find((p) => p.toLowerCase() === wanted) ?? m[1]}`;
  }
  if ((m = /^REST_(.+)$/.exec(rest))) return `svc.rest.${m[1]}`;
  if ((m = /^OAUTH_([^_]+)_(.+)$/.exec(rest))) return `svc.oauth.${m[1]!.toLowerCase()}.${m[2]!.toLowerCase().replace(/_/g, '-')}`;
  return undefined;
}

export function applyEnvironment(config: FacadeConfig, env: NodeJS.ProcessEnv = process.env): void {
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('SVC_') || value === undefined) continue;
    const key = environmentKey(name);
    if (key) applyProperty(config, key, value, `environment variable ${name}`);
  }
}

/** Environment value for a placeholder key: the exact name, then the upper-snake form. */
export function environmentValue(key: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[key] ?? env[key.replace(/[.-]/g, '_').toUpperCase()];
}
