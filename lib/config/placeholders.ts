// `{{key}}` and `{{key:default}}` placeholders in DSL values, read from properties and the environment.
import { Errors, svcError } from '../util/errors.js';
import { environmentValue } from './env.js';

export type PropertyLookup = (key: string) => string | undefined;

export function propertyLookup(properties: ReadonlyMap<string, string>, env: NodeJS.ProcessEnv = process.env): PropertyLookup {
  return (key) => properties.get(key) ?? environmentValue(key, env);
}

/** Replaces placeholders in every string of a parsed DSL tree; a missing key without default fails, naming the file. */
export function resolvePlaceholders<T>(value: T, lookup: PropertyLookup, source: string): T {
  if (typeof value === 'string') {
    return value.replace(/\{\{([^{}:]+)(?::([^{}]*))?\}\}/g, (_, key: string, fallback: string | undefined) => {
      const found = lookup(key.trim());
      if (found !== undefined) return found;
      if (fallback !== undefined) return fallback;
      throw svcError(Errors.CONFIG_FILE, source, `placeholder {{${key}}} has no value (set it as a property or environment variable, or write {{${key}:default}})`);
    }) as T;
  }
  if (Array.isArray(value)) return value.map((v) => resolvePlaceholders(v, lookup, source)) as T;
  if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = resolvePlaceholders(v, lookup, source);
    return out as T;
  }
  return value;
}
