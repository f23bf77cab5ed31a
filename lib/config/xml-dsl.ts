// The XML DSL (docs/configuration.md): root <svc> with <restConfiguration>, <rest><openApi/></rest> and <route>s.
// Parsed with saxes into a small element tree; DOCTYPEs are refused, so no entity is ever expanded.
import { SaxesParser } from 'saxes';
import { Errors, svcError } from '../util/errors.js';
import { nestedSection, setOptions, type FacadeConfig } from './model.js';
import { resolvePlaceholders, type PropertyLookup } from './placeholders.js';
import { applyConsumerUri, applyOpenApi, applyRestConfiguration, routeDefinition } from './yaml-dsl.js';

interface Element {
  name: string;
  attributes: Record<string, string>;
  children: Element[];
  text: string;
}

export function parseElementTree(text: string, file: string): Element {
  const parser = new SaxesParser({ xmlns: false });
  const root: Element = { name: '#document', attributes: {}, children: [], text: '' };
  const stack: Element[] = [root];
  const fail = (reason: string): never => {
    throw svcError(Errors.CONFIG_FILE, file, `not valid XML: ${reason}`);
  };
  parser.on('error', (err) => fail(err.message));
  parser.on('doctype', () => fail('DOCTYPE declarations are not allowed'));
  parser.on('opentag', (tag) => {
    const el: Element = { name: localName(tag.name), attributes: {}, children: [], text: '' };
    for (const [k, v] of Object.entries(tag.attributes)) el.attributes[localName(k)] = typeof v === 'string' ? v : (v as { value: string }).value;
    stack[stack.length - 1]!.children.push(el);
    stack.push(el);
  });
  parser.on('closetag', () => void stack.pop());
  parser.on('text', (t) => (stack[stack.length - 1]!.text += t));
  parser.on('cdata', (t) => (stack[stack.length - 1]!.text += t));
  parser.write(text).close();
  const top = root.children[0];
  return top ?? fail('no root element');
}

function localName(name: string): string {
  const colon = name.indexOf(':');
  return colon === -1 ? name : name.slice(colon + 1);
}

export function applyXmlDsl(config: FacadeConfig, text: string, file: string, lookup: PropertyLookup): void {
  const root = resolvePlaceholders(parseElementTree(text, file), lookup, file);
  const items = root.name === 'svc' || root.name === 'routes' || root.name === 'camel' ? root.children : [root];
  for (const el of items) {
    switch (el.name) {
      case 'restConfiguration': {
        const endpointProperty = el.children.filter((c) => c.name === 'endpointProperty').map((c) => ({ key: c.attributes.key, value: c.attributes.value }));
        // <corsHeaders key="Access-Control-Max-Age" value="600"/>, as Camel's XML DSL writes them.
        const corsHeaders = el.children.filter((c) => c.name === 'corsHeaders').map((c) => ({ key: c.attributes.key, value: c.attributes.value }));
        applyRestConfiguration(config, { ...coerceAttributes(el.attributes), ...(endpointProperty.length ? { endpointProperty } : {}), ...(corsHeaders.length ? { corsHeaders } : {}) }, file);
        break;
      }
      case 'rest':
        for (const child of el.children) {
          if (child.name !== 'openApi') throw svcError(Errors.CONFIG_UNKNOWN, file, `rest/${child.name}`, 'openApi');
          applyOpenApi(config, child.attributes, file);
        }
        break;
      case 'route':
        applyRoute(config, el, file);
        break;
      // <server port="9123" workers="2"/>, <backend timeout="5s"/>, <observe .../>, <security .../>, <cors .../>:
      // svc.server/backend/observe/security/cors.*; <server><tls certFile="..."/></server>: svc.server.tls.* (and svc.observe.tls.*).
      case 'server':
      case 'backend':
      case 'observe':
      case 'security':
      case 'cors': {
        setOptions(config, el.name, el.attributes, file);
        for (const child of el.children) {
          const nested = nestedSection(el.name, child.name);
          if (nested === undefined || child.children.length > 0) throw svcError(Errors.CONFIG_FILE, file, `<${el.name}> takes its options as attributes, not <${child.name}>`);
          setOptions(config, nested, child.attributes, file);
        }
        break;
      }
      default:
        throw svcError(Errors.CONFIG_UNKNOWN, file, `<${el.name}>`, 'restConfiguration, rest, route, server, backend, observe, security, cors');
    }
  }
}

function coerceAttributes(attrs: Record<string, string>): Record<string, unknown> {
  // XML attributes are strings; booleans are accepted as 'true'/'false' by setOption already.
  return { ...attrs };
}

function applyRoute(config: FacadeConfig, el: Element, file: string): void {
  const [from, ...steps] = el.children;
  if (!from || from.name !== 'from' || !from.attributes.uri) throw svcError(Errors.CONFIG_FILE, file, '<route> must start with <from uri="..."/>');
  const uri = from.attributes.uri;
  if (uri.startsWith('rest-openapi:')) return applyConsumerUri(config, uri, file);
  config.routes.push(routeDefinition(uri, steps.map((step) => stepObject(step, file)), file));
}

/**
 * Turns `<setBody><simple>x</simple></setBody>` into the YAML DSL's `{setBody: {simple: 'x'}}`. XML has only
 * text, so a `<json>` expression is parsed here: it holds a JSON value, as `json:` does in YAML.
 */
function stepObject(el: Element, file: string): Record<string, unknown> {
  if (el.name === 'circuitBreaker') return circuitBreakerObject(el, file);
  if (el.name === 'loadBalance') return loadBalanceObject(el, file);
  const value: Record<string, unknown> = { ...el.attributes };
  for (const child of el.children) value[child.name] = child.name === 'json' ? parseJsonText(child.text, file) : child.text;
  if (el.name === 'log' && value.message === undefined) value.message = el.text.trim();
  // Camel's XML spells it `headerName`.
  if (el.name === 'removeHeader' && value.headerName !== undefined) {
    value.name ??= value.headerName;
    delete value.headerName;
  }
  return { [el.name]: value };
}

/** Camel's `<circuitBreaker><resilience4jConfiguration .../>steps<onFallback>steps</onFallback></circuitBreaker>`. */
function circuitBreakerObject(el: Element, file: string): Record<string, unknown> {
  const value: Record<string, unknown> = { ...el.attributes, steps: [] };
  for (const child of el.children) {
    if (child.name === 'resilience4jConfiguration') value.resilience4jConfiguration = { ...child.attributes };
    else if (child.name === 'onFallback') value.onFallback = { steps: child.children.map((c) => stepObject(c, file)) };
    else (value.steps as unknown[]).push(stepObject(child, file));
  }
  return { circuitBreaker: value };
}

/** Camel's `<loadBalance><roundRobin/><to uri="..."/>...</loadBalance>` (the strategy's options as attributes). */
function loadBalanceObject(el: Element, file: string): Record<string, unknown> {
  const value: Record<string, unknown> = { ...el.attributes, steps: [] };
  for (const child of el.children) {
    if (['roundRobin', 'random', 'failover', 'weighted'].includes(child.name)) value[child.name] = { ...child.attributes };
    else (value.steps as unknown[]).push(stepObject(child, file));
  }
  return { loadBalance: value };
}

function parseJsonText(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw svcError(Errors.CONFIG_FILE, file, `<json> must hold a JSON value: ${(err as Error).message}`);
  }
}
