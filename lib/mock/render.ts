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
  // A wildcard range (`*/*`, `application/*`) is no Content-Type; name what was actually produced.
  const type = mediaType.includes('*') ? (typeof value === 'string' ? 'text/plain; charset=utf-8' : 'application/json') : mediaType;
  return { payload: text, type };
}
