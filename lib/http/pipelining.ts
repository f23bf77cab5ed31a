// A client that pipelines requests and never reads the answers. Node's server parses every request of a
// read chunk (64 KiB holds over a thousand small GETs) and hands each to the listener at once; the answers
// wait, in memory, behind the first, which the client does not read. So memory grew with what the client
// sent, not with what the facade had in flight. As nginx bounds it: per connection, a request is served
// only while fewer than WINDOW answers are unsent and the socket holds less than UNSENT_BYTES; the others
// wait, unanswered and holding no answer, until answers drain (node itself stops reading the socket while
// its writes wait). A connection whose client has read nothing for svc.server.requestTimeout while answers
// wait is closed. A request with nothing queued ahead of it (every client that does not pipeline) takes
// one comparison.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** At most this many answers started and not yet handed to the socket, per connection. */
const WINDOW = 16;
/** A request waits while the socket holds this much unsent. */
const UNSENT_BYTES = 256 * 1024;

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const QUEUE = Symbol('svc.pipelined');
type ClientSocket = Socket & { [QUEUE]?: PipelinedRequests; _httpMessage?: unknown };

/** Wraps a request listener so pipelined requests are served within the window. */
export function boundedPipelining(listener: Listener, requestTimeout: number): Listener {
  return (req, res) => {
    const socket = req.socket as ClientSocket;
    const queue = socket[QUEUE];
    // Nothing ahead of this answer: served now (the answer is the socket's own, not queued by node).
    if (queue === undefined && socket._httpMessage === res) return listener(req, res);
    (socket[QUEUE] ??= new PipelinedRequests(socket, listener, requestTimeout)).add(req, res);
  };
}

class PipelinedRequests {
  private readonly waiting: [IncomingMessage, ServerResponse][] = [];
  private unsent = 0;
  /** An answer finished or the socket drained since the stall timer was armed. */
  private progressed = false;
  private stall: NodeJS.Timeout | undefined;
  private readonly onFinished = (): void => {
    this.unsent--;
    this.progressed = true;
    this.serve();
  };

  constructor(
    private readonly socket: ClientSocket,
    private readonly listener: Listener,
    private readonly requestTimeout: number,
  ) {
    socket.on('drain', () => {
      this.progressed = true;
      this.serve();
    });
    socket.once('close', () => {
      clearTimeout(this.stall);
      this.waiting.length = 0;
    });
  }

  add(req: IncomingMessage, res: ServerResponse): void {
    this.waiting.push([req, res]);
    this.serve();
  }

  private serve(): void {
    const { socket, waiting } = this;
    while (waiting.length > 0 && this.unsent < WINDOW && socket.writableLength < UNSENT_BYTES && !socket.destroyed) {
      const [req, res] = waiting.shift()!;
      this.unsent++;
      res.once('finish', this.onFinished);
      res.once('close', () => res.writableFinished || this.onFinished());
      this.listener(req, res);
    }
    this.watchStall();
  }

  /** While answers wait for a client that reads nothing, a timer: no progress for requestTimeout closes the connection. */
  private watchStall(): void {
    if (this.requestTimeout <= 0 || this.stall !== undefined) return;
    if (this.waiting.length === 0 && this.socket.writableLength === 0) return;
    this.progressed = false;
    this.stall = setTimeout(() => {
      this.stall = undefined;
      if (!this.progressed && !this.socket.destroyed) return void this.socket.destroy();
      this.watchStall();
    }, this.requestTimeout);
    this.stall.unref();
  }
}
