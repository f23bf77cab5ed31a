// Raw `net` clients for the edge tests: exact bytes out, then a reset or silence, as an attacker would.
import { readdirSync } from 'node:fs';
import { connect, type Socket } from 'node:net';

/** A connected socket to 127.0.0.1:`port`; what it receives is kept in `received()`. Errors are expected. */
export async function rawSocket(port: number, options: { allowHalfOpen?: boolean } = {}): Promise<Socket & { received(): string }> {
  const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: options.allowHalfOpen ?? false });
  let received = '';
  socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
  socket.on('error', () => undefined); // ECONNRESET/EPIPE once the server closes: the point of these tests
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return Object.assign(socket, { received: () => received });
}

/** Resolves once `socket` has received at least one byte; rejects when none came within `ms`. */
export function firstBytes(socket: Socket, ms = 5000): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    socket.once('data', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Resolves when the server has closed `socket` (the client never closes it itself); rejects after `ms`. */
export function closedByServer(socket: Socket & { received(): string }, ms: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    if (socket.destroyed) return resolve(0);
    const timer = setTimeout(() => reject(new Error(`still open after ${ms} ms; received: ${JSON.stringify(socket.received())}`)), ms);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

/** Polls `check` every 20 ms until it holds; fails naming `what` (told then, when a function) after `ms`. */
export async function until(what: string | (() => string), check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  for (const deadline = Date.now() + ms; ; ) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** How many file descriptors process `pid` has open (Linux /proc). */
export function openFds(pid: number | 'self'): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/** The status line and the body of the first answer in `raw` (a problem's `detail`, when it is one). */
export function firstAnswer(raw: string): { statusLine: string; head: string; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end === -1 ? raw : raw.slice(0, end);
  return { statusLine: head.split('\r\n')[0] ?? '', head, body: end === -1 ? '' : raw.slice(end + 4) };
}
