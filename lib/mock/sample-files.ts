// Small valid files for binary media types the mock answers: a client that decodes a mocked `image/png`
// or `application/pdf` gets a file its decoder opens (a 1x1 image, a one-page PDF), not the text `string`.
import { essence } from '../http/negotiation.js';

const base64 = (text: string): Buffer => Buffer.from(text, 'base64');

/** A one-page PDF whose cross-reference table points at each object exactly (offsets counted, not typed). */
function onePagePdf(): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>',
  ];
  let text = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(text));
    text += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(text);
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) text += `${String(offset).padStart(10, '0')} 00000 n \n`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(text, 'latin1');
}

const FILES: ReadonlyMap<string, Buffer> = new Map([
  // 1x1, 8-bit grey with alpha, transparent.
  ['image/png', base64('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=')],
  ['image/gif', base64('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7')],
  ['image/webp', base64('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==')],
  ['application/pdf', onePagePdf()],
]);

/** The media type a wildcard image range is answered in. */
export const IMAGE_RANGE_TYPE = 'image/png';

/** A small valid file of `type` (its essence: parameters ignored), or undefined when there is none. */
export function sampleFile(type: string): Buffer | undefined {
  return FILES.get(essence(type));
}
