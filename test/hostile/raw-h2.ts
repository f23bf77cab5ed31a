// An HTTP/2 client that writes exact bytes, for tests of what node's client would refuse to send or hides:
// the connection preface, frames built by hand, header blocks in HPACK's plainest form, and a reader of the
// server's frames as they arrive.
import assert from 'node:assert/strict';
import type { Socket } from 'node:net';

export const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
export const TYPE = { DATA: 0, HEADERS: 1, RST_STREAM: 3, SETTINGS: 4, PING: 6, GOAWAY: 7 } as const;
export const END_STREAM = 0x1;
export const END_HEADERS = 0x4;
export const ACK = 0x1;

export function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

/** A header block of literal fields without indexing, new names, no Huffman (RFC 7541 §6.2.2); every string under 127 bytes. */
export function headerBlock(fields: [string, string][]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    assert.ok(name.length < 127 && value.length < 127);
    parts.push(Buffer.from([0x00, name.length]), Buffer.from(name), Buffer.from([value.length]), Buffer.from(value));
  }
  return Buffer.concat(parts);
}

export interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
}

/** Reads the server's frames into the array returned, as they arrive; acknowledges its SETTINGS. */
export function frames(socket: Socket): Frame[] {
  const seen: Frame[] = [];
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 9) {
      const length = pending.readUIntBE(0, 3);
      if (pending.length < 9 + length) break;
      const f = { type: pending[3]!, flags: pending[4]!, stream: pending.readUInt32BE(5) & 0x7fffffff, payload: pending.subarray(9, 9 + length) };
      pending = pending.subarray(9 + length);
      seen.push(f);
      if (f.type === TYPE.SETTINGS && (f.flags & ACK) === 0) socket.write(frame(TYPE.SETTINGS, ACK, 0));
    }
  });
  return seen;
}
