// Both ends of the facade as raw TCP: a client that writes exactly the bytes it is given, and a backend
// (a plain net.Server, no HTTP library in between) that records exactly the bytes it receives.
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  /** The status line and header fields, as received. */
  head: string;
  /** Header fields, names lower-cased, in order. */
  fields: [string, string][];
  body: string;
}

/**
 * Writes `bytes` to the facade (a request that should say `Connection: close`) and reads until it closes.
 * The client never half-closes: node's server takes that as the client giving up on its requests.
 */
export function rawSend(origin: string, bytes: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return reject(new Error(`no answer head: ${JSON.stringify(text)}`));
      resolve({ ...parseHead(text.slice(0, end)), body: text.slice(end + 4) });
    });
  });
}

/** A GET (or `method`) of `target` with the given header lines, the connection closed after the answer. */
export function rawGet(origin: string, target: string, lines: readonly string[] = [], method = 'GET'): Promise<RawAnswer> {
  return rawSend(origin, `${method} ${target} HTTP/1.1\r\nHost: ${new URL(origin).host}\r\n${lines.map((l) => `${l}\r\n`).join('')}Connection: close\r\n\r\n`);
}

function parseHead(head: string): Omit<RawAnswer, 'body'> {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const fields = lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]);
  return { status: Number(statusLine.split(' ')[1]), head, fields };
}

/** One request as the backend received it: its exact bytes, and its head read back. */
export interface ReceivedRequest {
  bytes: string;
  method: string;
  target: string;
  fields: [string, string][];
  /** The body as its framing delimits it (Content-Length bytes, or the chunks' data joined). */
  body: string;
  /** Which of the backend's accepted connections carried it (0 for the first). */
  connection: number;
  /** The value of a field (names compared lower-cased); several are joined with `, `; undefined when absent. */
  field(name: string): string | undefined;
}

export interface RawBackend {
  origin: string;
  received: ReceivedRequest[];
  /** Every connection accepted, in order: all the bytes it carried (what is not a whole request too), and whether it has closed. */
  connections: { bytes: string; closed: boolean }[];
  close(): Promise<void>;
}

export interface RawBackendAnswer {
  status?: number;
  /** Extra header lines, each `Name: value`. */
  lines?: readonly string[];
  body?: string;
  /** The exact bytes to write instead (status line, fields and framing as given). */
  raw?: string;
}

/**
 * A backend that splits what arrives into requests by its own reading of the framing (Content-Length, or
 * chunked up to the last chunk, as a backend that trusts the framing would) and answers each one with
 * `answer(request)` (200 `ok` by default; a promise holds the answer, and those after it on the connection).
 */
export async function rawBackend(answer: (request: ReceivedRequest) => RawBackendAnswer | Promise<RawBackendAnswer> = () => ({})): Promise<RawBackend> {
  const received: ReceivedRequest[] = [];
  const connections: RawBackend['connections'] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    const connection = connections.push({ bytes: '', closed: false }) - 1;
    sockets.add(socket);
    socket.on('close', () => {
      sockets.delete(socket);
      connections[connection]!.closed = true;
    });
    socket.on('error', () => {});
    let pending = '';
    let answers = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      connections[connection]!.bytes += chunk.toString('latin1');
      pending += chunk.toString('latin1');
      for (let request = takeRequest(pending, connection); request !== undefined; request = takeRequest(pending, connection)) {
        pending = pending.slice(request.bytes.length);
        received.push(request);
        const taken = request;
        answers = answers.then(async () => {
          const { status = 200, lines = [], body = 'ok', raw } = await answer(taken);
          if (raw !== undefined) return void socket.write(raw);
          socket.write(`HTTP/1.1 ${status} X\r\n${lines.map((l) => `${l}\r\n`).join('')}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    received,
    connections,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The first whole request in `text`, or undefined while it is still arriving (or its chunks cannot be read). */
function takeRequest(text: string, connection: number): ReceivedRequest | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [requestLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const fields = lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()] as [string, string]);
  const field = (name: string): string | undefined => {
    const values = fields.filter(([n]) => n === name.toLowerCase()).map(([, v]) => v);
    return values.length === 0 ? undefined : values.join(', ');
  };
  let length = end + 4;
  let body: string;
  if (/chunked/i.test(field('transfer-encoding') ?? '')) {
    const chunked = chunkedBody(text, length);
    if (chunked === undefined) return undefined;
    [length, body] = chunked;
  } else {
    length += Number(field('content-length') ?? 0);
    body = text.slice(end + 4, length);
  }
  if (text.length < length) return undefined;
  const [method = '', target = ''] = requestLine.split(' ');
  return { bytes: text.slice(0, length), method, target, fields, body, connection, field };
}

/** RFC 9112 §7.1 chunks from `at`: where they end (trailers included) and their data; undefined while incomplete. */
function chunkedBody(text: string, at: number): [number, string] | undefined {
  let body = '';
  for (;;) {
    const eol = text.indexOf('\r\n', at);
    if (eol === -1) return undefined;
    const size = Number.parseInt(text.slice(at, eol).split(';')[0]!, 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) {
      const last = text.indexOf('\r\n\r\n', eol);
      return last === -1 ? undefined : [last + 4, body];
    }
    if (text.length < eol + 2 + size + 2) return undefined;
    body += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}
