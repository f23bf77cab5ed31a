// Mock bodies as bytes: a value (an example or a synthesized one) rendered for its media type, or nothing
// when it cannot be encoded in that type. The mock never labels a body with a media type it is not
// written in (JSON text sent as `application/vnd.kubernetes.protobuf` breaks every client of that type).
import { stringify as stringifyYaml } from 'yaml';
import { writeXml, type Deref, type Schema } from '../codec/xml.js';
import { essence, isJsonMediaType, isXmlMediaType, isYamlMediaType } from '../http/negotiation.js';
import { IMAGE_RANGE_TYPE, sampleFile } from './sample-files.js';

/**
 * A ready response body and its Content-Type. Text stays a string where it is lossless: node writes a
 * string body together with the headers in one write, a Buffer in a second one.
 */
export interface MockBody {
  payload: string | Buffer;
  type: string;
}

/**
 * JSON types get JSON text, XML types the codec, YAML types YAML. Other types (text, binary, vendor
 * formats such as protobuf) have no encoder here: a string is sent as it is (the contract wrote it, or the
 * schema says the body is a string), a number or boolean as its text for `text/*`; anything else cannot be
 * encoded in them, and the answer is undefined. A string for an XML or YAML type is taken as a ready
 * document when `stringIsDocument` (a contract example), else written by the codec.
 */
export function renderBody(value: unknown, mediaType: string, schema: unknown, deref: Deref, stringIsDocument = true): MockBody | undefined {
  const type = producedType(mediaType, value);
  if (type === undefined) return undefined;
  if (isJsonMediaType(type)) return { payload: JSON.stringify(value), type };
  const ready = typeof value === 'string' && stringIsDocument;
  if (isXmlMediaType(type)) return { payload: ready ? value : writeXml(value, schema as Schema | undefined, { deref }), type };
  if (isYamlMediaType(type)) return { payload: ready ? value : stringifyYaml(value), type };
  if (typeof value === 'string') {
    // Text cannot stand for an image or a PDF: such a body is a small valid file of the type.
    const file = sampleFile(type);
    return { payload: file !== undefined && !file.subarray(0, 4).equals(Buffer.from(value.slice(0, 4), 'latin1')) ? file : value, type };
  }
  if ((typeof value === 'number' || typeof value === 'boolean') && essence(type).startsWith('text/')) return { payload: String(value), type };
  return undefined;
}

/** An example's `serializedValue` (3.2): sent exactly as written, as the media type it was written for. */
export function serializedBody(text: string, mediaType: string): MockBody | undefined {
  const type = producedType(mediaType, text);
  return type === undefined ? undefined : { payload: text, type };
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * A wildcard range (`*\/*`, `application/*`) is no Content-Type: name a type inside the range that the
 * value can be written in, or undefined when there is none. `image/*` is answered with a small PNG.
 */
function producedType(mediaType: string, value: unknown): string | undefined {
  if (!mediaType.includes('*')) return mediaType;
  const range = essence(mediaType);
  const isText = typeof value === 'string';
  if (range === '*/*') return isText ? TEXT : 'application/json';
  if (range === 'application/*') return isText ? 'application/octet-stream' : 'application/json';
  if (range === 'text/*') return TEXT;
  if (range === 'image/*' && isText) return IMAGE_RANGE_TYPE;
  return undefined;
}
