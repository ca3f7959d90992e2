import type { Readable, Writable } from 'node:stream';

/** A DevTools protocol error answer, naming the method. */
export class CdpError extends Error {
  override readonly name = 'CdpError';
}

interface Pending {
  readonly method: string;
  resolve(result: Record<string, unknown>): void;
  reject(err: Error): void;
}

type EventListener = (params: Record<string, unknown>, sessionId: string | undefined) => void;

/**
 * The Chrome DevTools protocol over `--remote-debugging-pipe`: JSON
 * messages separated by NUL bytes, written to the browser's fd 3 and read
 * from its fd 4. Sessions are flat (`Target.attachToTarget` with
 * `flatten: true`): a page's commands carry its `sessionId`.
 */
export class CdpConnection {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<EventListener>>();
  private buffer = '';
  private closedBy: Error | undefined;

  constructor(
    private readonly toBrowser: Writable,
    fromBrowser: Readable,
  ) {
    fromBrowser.setEncoding('utf8');
    fromBrowser.on('data', (chunk: string) => this.receive(chunk));
    fromBrowser.on('close', () => this.close(new CdpError('the browser closed the DevTools pipe')));
    toBrowser.on('error', (err: Error) => this.close(err));
  }

  /** Sends a command and resolves with its result; rejects with the browser's error message. */
  send(method: string, params: Record<string, unknown> = {}, sessionId?: string): Promise<Record<string, unknown>> {
    if (this.closedBy !== undefined) return Promise.reject(this.closedBy);
    const id = this.nextId++;
    const message = JSON.stringify(sessionId === undefined ? { id, method, params } : { id, method, params, sessionId });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { method, resolve, reject });
      this.toBrowser.write(`${message}\0`);
    });
  }

  /** Calls `listener` for every `method` event (of any session); returns the unsubscribe function. */
  on(method: string, listener: EventListener): () => void {
    let set = this.listeners.get(method);
    if (set === undefined) this.listeners.set(method, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Rejects every pending command; later sends reject at once. */
  close(reason: Error): void {
    this.closedBy ??= reason;
    for (const p of this.pending.values()) p.reject(reason);
    this.pending.clear();
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\0')) >= 0) {
      const text = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 1);
      this.dispatch(JSON.parse(text) as Message);
    }
  }

  private dispatch(message: Message): void {
    if (message.id !== undefined) {
      const p = this.pending.get(message.id);
      if (p === undefined) return;
      this.pending.delete(message.id);
      if (message.error !== undefined) p.reject(new CdpError(`${p.method}: ${message.error.message} (${message.error.code})`));
      else p.resolve(message.result ?? {});
      return;
    }
    if (message.method === undefined) return;
    for (const listener of this.listeners.get(message.method) ?? []) listener(message.params ?? {}, message.sessionId);
  }
}

interface Message {
  readonly id?: number;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly sessionId?: string;
  readonly result?: Record<string, unknown>;
  readonly error?: { readonly code: number; readonly message: string };
}
