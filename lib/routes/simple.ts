// The simple language: `${...}` templates compiled once into a list of parts (docs/routes.md).
import type { Exchange } from '../message/exchange.js';

export type Evaluator = (ex: Exchange) => unknown;

/**
 * Compiles a simple template. A template that is exactly one `${...}` yields the raw value (so `${body}`
 * keeps an object); otherwise the parts are joined as text. Throws on an unknown function, naming it.
 */
export function compileSimple(template: string): Evaluator {
  const parts: (string | Evaluator)[] = [];
  let last = 0;
  const re = /\$\{([^{}]*)\}/g;
  for (let m = re.exec(template); m !== null; m = re.exec(template)) {
    if (m.index > last) parts.push(template.slice(last, m.index));
    parts.push(compileFunction((m[1] ?? '').trim()));
    last = m.index + m[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  if (parts.length === 0) return () => '';
  if (parts.length === 1) {
    const only = parts[0]!;
    return typeof only === 'string' ? () => only : only;
  }
  return (ex) => {
    let out = '';
    for (const part of parts) out += typeof part === 'string' ? part : asText(part(ex));
    return out;
  };
}

export function asText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (Buffer.isBuffer(value)) return value.toString('utf8');
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function compileFunction(expr: string): Evaluator {
  const dotted = /^(header|headers|exchangeProperty|env)[.:](.+)$/.exec(expr) ?? /^(header|headers|exchangeProperty)\[['"]?([^\]'"]+)['"]?\]$/.exec(expr);
  if (dotted) {
    const [, fn, arg] = dotted as unknown as [string, string, string];
    switch (fn) {
      case 'header':
      case 'headers':
        // A header may hold an object (3.2 `in: querystring`): `${header.filter.page}`.
        return withPath(arg, (ex, name) => ex.message.headers.get(name));
      case 'exchangeProperty':
        return withPath(arg, (ex, name) => ex.properties[name]);
      default:
        return () => process.env[arg];
    }
  }
  if (expr === 'body' || expr === 'bodyAs(String)' || expr === 'in.body') return (ex) => ex.message.body;
  if (expr === 'headers') return (ex) => ex.message.headers.toObject();
  if (expr === 'date:now') return () => new Date().toISOString();
  if (expr === 'exchangeId' || expr === 'id') return () => crypto.randomUUID();
  const bodyPath = /^body(?:\.|\[)(.+)$/.exec(expr);
  if (bodyPath) {
    const keys = (bodyPath[1] ?? '').replace(/\]/g, '').split(/[.[]/).filter(Boolean);
    return (ex) => walk(parsedBody(ex.message.body), keys);
  }
  throw new Error(`unknown simple function \${${expr}}`);
}

/**
 * Camel's OGNL form: a name, then a path into its value (`exchangeProperty.SvcOAuthTokenValidationResult.subject`);
 * a value under the whole dotted name wins.
 */
function withPath(arg: string, get: (ex: Exchange, name: string) => unknown): Evaluator {
  const [name, ...path] = arg.split('.');
  if (path.length === 0) return (ex) => get(ex, arg);
  return (ex) => get(ex, arg) ?? walk(get(ex, name!), path);
}

/** A JSON text body is parsed for path access; anything else is walked as it is. */
function parsedBody(body: unknown): unknown {
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    try {
      return JSON.parse(body.toString());
    } catch {
      return undefined;
    }
  }
  return body;
}

function walk(value: unknown, keys: readonly string[]): unknown {
  let node = value;
  for (const key of keys) {
    if (node === null || node === undefined) return undefined;
    // Own properties and getters only: never reach into prototypes (`__proto__`, `constructor`).
    if (typeof node !== 'object' || !(key in (node as object)) || key === '__proto__' || key === 'constructor' || key === 'prototype') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
