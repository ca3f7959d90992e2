import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { waitFor } from '@protean/core/testing';

/** One decoded watch event line. */
export interface WatchLine {
  type: string;
  object: { kind: string; apiVersion: string; metadata: Record<string, unknown>; [k: string]: unknown };
}

/**
 * A raw HTTP watch for tests: collects decoded events and records how the
 * stream ended ('end' = clean end, 'error' = reset / premature close).
 */
export class TestWatch {
  readonly events: WatchLine[] = [];
  status = 0;
  headers: IncomingMessage['headers'] = {};
  outcome: 'open' | 'end' | 'error' = 'open';
  private buffer = '';
  private readonly req: ClientRequest;
  /** Resolves once response headers arrived. */
  readonly ready: Promise<void>;

  constructor(url: string, headers: Record<string, string> = {}) {
    let resolveReady!: () => void;
    let rejectReady!: (e: Error) => void;
    this.ready = new Promise((res, rej) => {
      resolveReady = res;
      rejectReady = rej;
    });
    this.req = request(url, { agent: false, headers }, (res) => {
      this.status = res.statusCode ?? 0;
      this.headers = res.headers;
      resolveReady();
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        this.buffer += chunk;
        let nl: number;
        while ((nl = this.buffer.indexOf('\n')) >= 0) {
          const line = this.buffer.slice(0, nl);
          this.buffer = this.buffer.slice(nl + 1);
          if (line.trim() !== '') this.events.push(JSON.parse(line) as WatchLine);
        }
      });
      res.on('end', () => {
        if (this.outcome === 'open') this.outcome = 'end';
      });
      res.on('error', () => {
        this.outcome = 'error';
      });
      res.on('aborted', () => {
        this.outcome = 'error';
      });
    });
    this.req.on('error', (e) => {
      this.outcome = 'error';
      rejectReady(e);
    });
    this.req.end();
  }

  /** Waits until at least `n` events arrived. */
  async waitForEvents(n: number): Promise<WatchLine[]> {
    await waitFor(() => this.events.length >= n, { message: `${n} watch events (have ${this.events.length})`, timeoutMs: 5000 });
    return this.events;
  }

  async waitForOutcome(): Promise<'end' | 'error'> {
    await waitFor(() => this.outcome !== 'open', { message: 'the watch to end', timeoutMs: 5000 });
    return this.outcome as 'end' | 'error';
  }

  close(): void {
    this.req.destroy();
  }
}
