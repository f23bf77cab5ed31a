// Request ids: version 4 UUIDs (RFC 9562 §5.4) from the CSPRNG, like crypto.randomUUID() makes them, but
// formatted 128 at a time into one string that each id is a slice of. randomUUID() joins every id from
// some twenty string pieces (about 600 bytes of garbage per request); a slice is one small object.
import { randomFillSync } from 'node:crypto';

const BATCH = 128;
const LENGTH = 36;
const HEX = Buffer.from('0123456789abcdef', 'latin1');
/** Where the two hex digits of each of the 16 bytes go in `xxxxxxxx-xxxx-4xxx-Nxxx-xxxxxxxxxxxx`. */
const DIGITS_AT = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];

/** The two hex digits of each byte value as one big-endian 16-bit number: one store writes both. */
const DIGIT_PAIRS = Uint16Array.from({ length: 256 }, (_, byte) => (HEX[byte >> 4]! << 8) | HEX[byte & 15]!);

const bytes = Buffer.alloc(16 * BATCH);
const text = Buffer.from('00000000-0000-0000-0000-000000000000'.repeat(BATCH), 'latin1');
// Half the pairs sit at odd offsets (after a dash), where a Uint16Array cannot write: a DataView can.
const textView = new DataView(text.buffer, text.byteOffset, text.length);
let batch = '';
let next = BATCH;

/** A new random (version 4) UUID, lower-case. */
export function newUuid(): string {
  if (next === BATCH) refill();
  const start = LENGTH * next++;
  return batch.slice(start, start + LENGTH);
}

function refill(): void {
  randomFillSync(bytes);
  for (let id = 0; id < BATCH; id++) {
    const b = 16 * id;
    const t = LENGTH * id;
    bytes[b + 6] = (bytes[b + 6]! & 0x0f) | 0x40; // version 4
    bytes[b + 8] = (bytes[b + 8]! & 0x3f) | 0x80; // variant 10
    for (let i = 0; i < 16; i++) textView.setUint16(t + DIGITS_AT[i]!, DIGIT_PAIRS[bytes[b + i]!]!);
  }
  batch = text.toString('latin1');
  next = 0;
}
