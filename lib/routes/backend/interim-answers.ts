// Interim (1xx) answers a backend sends unasked. RFC 9110 §15.2: a client must be able to parse one or more
// 1xx answers before the final one, even if it did not expect them. undici skips 102 and 103 but takes an
// unasked `100 Continue` for a broken connection ("bad response"): the call failed with 502 and, the socket
// having read bytes, looked like a stale keep-alive connection and was sent again. So the facade's
// connections drop interim answers (all but 101, which never comes unasked without Upgrade) from what
// undici's parser reads, at the start of an answer only: a body's bytes are never looked at. The check is
// one byte comparison per read of the socket.
import type { Socket } from 'node:net';

/** `HTTP/1.1 1` at the start of a read: an interim status line (`HTTP/1.0` never has one). */
const PREFIX = Buffer.from('HTTP/1.1 1');
const HEAD_END = Buffer.from('\r\n\r\n');

/** Makes what undici's parser (found on the socket under `kParser`) reads from `socket` skip interim answers at the start of an answer. */
export function skipInterimAnswers(socket: Socket, kParser: symbol): Socket {
  const read = socket.read.bind(socket);
  socket.read = (size?: number) => {
    let chunk = read(size) as Buffer | null;
    // Between answers (the parser holds no status): the only place an interim answer can start.
    const parser = (socket as unknown as Record<symbol, { statusCode?: number } | null | undefined>)[kParser];
    while (chunk !== null && chunk[9] === 0x31 && (parser?.statusCode ?? 0) === 0 && isInterim(chunk)) {
      const end = chunk.indexOf(HEAD_END);
      // Cut across reads: left to undici (which fails the call on a 100; the call is not sent again).
      if (end === -1) break;
      chunk = end + 4 === chunk.length ? (read(size) as Buffer | null) : chunk.subarray(end + 4);
    }
    return chunk;
  };
  return socket;
}

/** `HTTP/1.1 1xx` but not 101 (Switching Protocols, which only answers an Upgrade the facade never sends). */
function isInterim(chunk: Buffer): boolean {
  if (chunk.length < 13 || chunk.compare(PREFIX, 0, PREFIX.length, 0, PREFIX.length) !== 0) return false;
  const tens = chunk[10]!;
  const units = chunk[11]!;
  return tens >= 0x30 && tens <= 0x39 && units >= 0x30 && units <= 0x39 && chunk[12] === 0x20 && !(tens === 0x30 && units === 0x31);
}
