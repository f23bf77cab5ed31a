// Binary answers of the mock are files a decoder opens: PNG chunks with their CRCs, a GIF and a WebP
// header, a PDF whose cross-reference table points at its objects. Checked with readers written here from
// the formats' specifications, not with the code that made them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { serve, tempDir } from '../helpers.js';

const binary = { type: 'string', format: 'binary' };
const contract = {
  openapi: '3.1.0',
  info: { title: 'files', version: '1' },
  paths: {
    '/photo': { get: { operationId: 'photo', responses: { '200': { description: 'a photo', content: { 'image/png': { schema: binary } } } } } },
    '/any-image': { get: { operationId: 'anyImage', responses: { '200': { description: 'some image', content: { 'image/*': { schema: binary } } } } } },
    '/icon': { get: { operationId: 'icon', responses: { '200': { description: 'an icon', content: { 'image/gif': { schema: binary } } } } } },
    '/sticker': { get: { operationId: 'sticker', responses: { '200': { description: 'a sticker', content: { 'image/webp': { schema: binary } } } } } },
    '/report': { get: { operationId: 'report', responses: { '200': { description: 'a report', content: { 'application/pdf': { schema: binary, example: 'PDF bytes' } } } } } },
  },
};

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** The chunks of a PNG, each CRC checked; the image's width, height and inflated pixel data. */
function readPng(png: Buffer): { width: number; height: number; pixels: Buffer } {
  assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
  let at = 8;
  const chunks: string[] = [];
  let width = 0;
  let height = 0;
  const data: Buffer[] = [];
  while (at < png.length) {
    const length = png.readUInt32BE(at);
    const type = png.subarray(at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    assert.equal(png.readUInt32BE(at + 8 + length), crc32(Buffer.concat([type, body])), `CRC of ${type}`);
    chunks.push(type.toString('latin1'));
    if (type.toString('latin1') === 'IHDR') [width, height] = [body.readUInt32BE(0), body.readUInt32BE(4)];
    if (type.toString('latin1') === 'IDAT') data.push(body);
    at += 12 + length;
  }
  assert.equal(chunks[0], 'IHDR');
  assert.equal(chunks.at(-1), 'IEND');
  return { width, height, pixels: inflateSync(Buffer.concat(data)) };
}

test('the mock answers image/png, image/*, image/gif, image/webp and application/pdf with small valid files', async () => {
  const dir = tempDir({ 'files.json': JSON.stringify(contract) });
  const running = await serve({ specification: join(dir, 'files.json'), missingOperation: 'mock' });
  try {
    const fetchFile = async (path: string): Promise<{ type: string | null; bytes: Buffer }> => {
      const res = await fetch(`${running.origin}${path}`);
      assert.equal(res.status, 200, path);
      return { type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
    };

    const photo = await fetchFile('/photo');
    assert.equal(photo.type, 'image/png');
    const image = readPng(photo.bytes);
    assert.deepEqual([image.width, image.height], [1, 1]);
    assert.equal(image.pixels.length, 1 + 2, 'one row: its filter byte and one grey-and-alpha pixel');

    const any = await fetchFile('/any-image');
    assert.equal(any.type, 'image/png', 'a range is answered in a type inside it');
    readPng(any.bytes);

    const icon = await fetchFile('/icon');
    assert.equal(icon.type, 'image/gif');
    assert.equal(icon.bytes.subarray(0, 6).toString('latin1'), 'GIF89a');
    assert.deepEqual([icon.bytes.readUInt16LE(6), icon.bytes.readUInt16LE(8)], [1, 1]);
    assert.equal(icon.bytes.at(-1), 0x3b, 'the GIF trailer');

    const sticker = await fetchFile('/sticker');
    assert.equal(sticker.bytes.subarray(0, 4).toString('latin1'), 'RIFF');
    assert.equal(sticker.bytes.readUInt32LE(4), sticker.bytes.length - 8, 'the RIFF size');
    assert.equal(sticker.bytes.subarray(8, 12).toString('latin1'), 'WEBP');

    const report = await fetchFile('/report');
    assert.equal(report.type, 'application/pdf');
    const pdf = report.bytes.toString('latin1');
    assert.match(pdf, /^%PDF-1\.\d\n/);
    assert.match(pdf, /%%EOF\n?$/);
    const xref = Number(/startxref\n(\d+)\n/.exec(pdf)?.[1]);
    assert.equal(pdf.slice(xref, xref + 4), 'xref', 'startxref points at the table');
    const entries = [...pdf.slice(xref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    assert.equal(entries.length, 3);
    entries.forEach((offset, i) => assert.equal(pdf.slice(offset, offset + `${i + 1} 0 obj`.length), `${i + 1} 0 obj`, `object ${i + 1}`));
    assert.match(pdf, /\/Type \/Catalog/);
  } finally {
    await running.close();
  }
});
