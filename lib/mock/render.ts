// Mock bodies as bytes: a value (an example or a synthesized one) rendered for its media type.
import { writeXml, type Deref, type Schema } from '../binding/xml.js';
import { isJsonMediaType, isXmlMediaType } from '../http/negotiation.js';

/**
 * A ready response body and its Content-Type. Text stays a string where it is lossless: node writes a
 * string body together with the headers in one write, a Buffer in a second one.
 */
export interface MockBody {
  payload: string | Buffer;
  type: string;
}

/**
 * XML media types get the codec, JSON types JSON text, others strings as they are. A string for an XML
 * type is taken as a ready document when `stringIsDocument` (a contract example), else written by the codec.
 */
export function renderBody(value: unknown, mediaType: string, schema: unknown, deref: Deref, stringIsDocument = true): MockBody {
  let text: string;
  if (typeof value === 'string' && !isJsonMediaType(mediaType) && (stringIsDocument || !isXmlMediaType(mediaType))) text = value;
  else if (isXmlMediaType(mediaType)) text = writeXml(value, schema as Schema | undefined, { deref });
  else text = JSON.stringify(value);
  return { payload: text, type: producedType(mediaType, typeof value === 'string') };
}

/** An example's `serializedValue` (3.2): sent exactly as written, as the media type it was written for. */
export function serializedBody(text: string, mediaType: string): MockBody {
  return { payload: text, type: producedType(mediaType, true) };
}

// A wildcard range (`*/*`, `application/*`) is no Content-Type; name what was actually produced.
function producedType(mediaType: string, isText: boolean): string {
  return mediaType.includes('*') ? (isText ? 'text/plain; charset=utf-8' : 'application/json') : mediaType;
}
