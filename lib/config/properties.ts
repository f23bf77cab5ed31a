// `.properties` files: parsing (java.util.Properties syntax) and mapping `svc.*` keys onto the config.
import { dirname } from 'node:path';
import { Errors, svcError } from '../util/errors.js';
import { canonicalOption, nestedSection, oauthProfileKeys, setCorsHeader, setOption, type FacadeConfig } from './model.js';

/** Parses java.util.Properties text: `=`, `:` or space separators, `#`/`!` comments, `\` continuations and escapes. */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.replace(/^\s+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    while (endsWithContinuation(line) && i + 1 < lines.length) line = line.slice(0, -1) + lines[++i]!.replace(/^\s+/, '');
    const sep = /(?<!\\)(?:\s*[=:]\s*|\s+)/.exec(line);
    const key = sep ? line.slice(0, sep.index) : line;
    const value = sep ? line.slice(sep.index + sep[0].length) : '';
    out.set(unescape(key), unescape(value));
  }
  return out;
}

function endsWithContinuation(line: string): boolean {
  const trailing = /\\+$/.exec(line);
  return trailing !== null && trailing[0].length % 2 === 1;
}

function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, c: string) => {
    if (c.length === 5) return String.fromCharCode(parseInt(c.slice(1), 16));
    return c === 'n' ? '\n' : c === 't' ? '\t' : c === 'r' ? '\r' : c === 'f' ? '\f' : c;
  });
}

/** Applies `svc.*` properties of a file to the config; other keys are user properties (placeholders only). */
export function applyProperties(config: FacadeConfig, props: ReadonlyMap<string, string>, file: string): void {
  const specification = config.openApi.specification;
  for (const [key, value] of props) {
    if (key.startsWith('svc.')) applyProperty(config, key, value, file);
  }
  // A specification named in this file is found beside it (docs/configuration.md#contracts), as one named in a DSL file is.
  if (config.openApi.specification !== specification) config.baseDir = dirname(file);
}

export function applyProperty(config: FacadeConfig, key: string, value: string, source: string): void {
  const parts = key.split('.');
  const [, area, second] = parts;
  // svc.server.tls.certFile, svc.observe.tls.caFile: a section inside a section.
  const nested = (area === 'server' || area === 'observe') && parts.length === 4 ? nestedSection(area, second!) : undefined;
  if (nested !== undefined) return setOption(config, nested, parts[3]!, value, source);
  if (area === 'server' && parts.length === 3) return setOption(config, 'server', second!, value, source);
  if (area === 'backend' && parts.length === 3) return setOption(config, 'backend', second!, value, source);
  if (area === 'observe' && parts.length === 3) return setOption(config, 'observe', second!, value, source);
  if (area === 'security' && parts.length === 3) return setOption(config, 'security', second!, value, source);
  if (area === 'cors' && parts.length === 3) return setOption(config, 'cors', second!, value, source);
  if (area === 'component' && second === 'rest-openapi' && parts.length === 4 && canonicalKebab(parts[3]!) === 'basepath') {
    config.componentBasePath = value;
    return;
  }
  if (area === 'oauth' && parts.length === 4) {
    oauthProfileKeys(config, second!)[parts[3]!] = value;
    return;
  }
  if (area === 'rest' && parts.length === 4 && canonicalKebab(second!) === 'openapi') return setOption(config, 'openApi', parts[3]!, value, source);
  if (area === 'rest' && parts.length === 4 && canonicalKebab(second!) === 'endpointproperty') {
    config.endpointProperties[parts[3]!] = value;
    return;
  }
  // svc.rest.corsHeaders.Access-Control-Max-Age=600 (Camel's camel.rest.cors-headers[...])
  if (area === 'rest' && parts.length === 4 && canonicalKebab(second!) === 'corsheaders') return setCorsHeader(config, parts[3], value, source);
  if (area === 'rest' && parts.length === 3 && canonicalOption('rest', second!)) return setOption(config, 'rest', second!, value, source);
  throw svcError(
    Errors.CONFIG_UNKNOWN,
    source,
    key,
    'svc.server.<option>, svc.server.tls.<option>, svc.backend.<option>, svc.observe.<option>, svc.observe.tls.<option>, svc.security.<option>, svc.cors.<option>, svc.rest.<option>, svc.rest.openApi.<option>, svc.rest.endpointProperty.<key>, svc.rest.corsHeaders.<Access-Control-field>, svc.component.rest-openapi.base-path, svc.oauth.<profile>.<key>',
  );
}

function canonicalKebab(s: string): string {
  return s.replace(/-/g, '').toLowerCase();
}
