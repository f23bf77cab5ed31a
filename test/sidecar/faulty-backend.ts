// A backend on 127.0.0.1 that injects faults, written on raw net sockets (no HTTP library in between): each
// request, read by its Content-Length, is answered as `behave` says: an answer, a reset of the connection
// before any answer byte, or no answer at all. It records what it received and when.
import { createServer, type AddressInfo, type Socket } from 'node:net';

export interface SeenRequest {
  method: string;
  target: string;
  /** Header fields, names lower-cased. */
  fields: Record<string, string>;
  body: string;
  /** performance.now() when it arrived whole. */
  at: number;
}

export type Behaviour = { status: number; lines?: readonly string[]; body?: string } | 'reset' | 'hang';

export interface FaultyBackend {
  origin: string;
  seen: SeenRequest[];
  /** Connections accepted. */
  connections(): number;
  close(): Promise<void>;
}

export async function faultyBackend(behave: (request: SeenRequest, index: number) => Behaviour): Promise<FaultyBackend> {
  const seen: SeenRequest[] = [];
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const end = pending.indexOf('\r\n\r\n');
        if (end === -1) return;
        const [line = '', ...lines] = pending.subarray(0, end).toString('latin1').split('\r\n');
        const fields: Record<string, string> = {};
        for (const l of lines) fields[l.slice(0, l.indexOf(':')).toLowerCase()] = l.slice(l.indexOf(':') + 1).trim();
        const length = Number(fields['content-length'] ?? 0);
        if (pending.length < end + 4 + length) return;
        const body = pending.subarray(end + 4, end + 4 + length).toString('latin1');
        pending = pending.subarray(end + 4 + length);
        const [method = '', target = ''] = line.split(' ');
        const request: SeenRequest = { method, target, fields, body, at: performance.now() };
        const behaviour = behave(request, seen.push(request) - 1);
        if (behaviour === 'hang') return;
        if (behaviour === 'reset') return void socket.resetAndDestroy();
        const text = behaviour.body ?? '{}';
        socket.write(`HTTP/1.1 ${behaviour.status} X\r\ncontent-type: application/json\r\n${(behaviour.lines ?? []).map((l) => `${l}\r\n`).join('')}content-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    connections: () => accepted,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** An origin nothing listens on (a port taken and released). */
export async function deadOrigin(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}
