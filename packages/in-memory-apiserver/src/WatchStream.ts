import type { ServerResponse } from 'node:http';
import type { Clock, TimerHandle } from '@protean/core';
import type { StatusObject } from './ApiError.js';
import type { ObjectFilter } from './ObjectFilter.js';
import type { ResourceTable, StoreEvent } from './ResourceTable.js';
import { META_API_VERSION, objectJson } from './serialize.js';
import type { KubeObject } from './types.js';

/** What one watch request asked for. */
export interface WatchOptions {
  namespace: string | undefined;
  filter: ObjectFilter;
  partial: boolean;
  bookmarks: boolean;
  /** End the stream cleanly after this long (undefined = never). */
  timeoutMs: number | undefined;
  bookmarkIntervalMs: number;
}

type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

// Serialised event lines for the common case (event sent as committed), per representation.
const lineCache = new WeakMap<StoreEvent, { full?: string; partial?: string }>();

/**
 * One open watch response: turns store events into newline-delimited JSON
 * watch events, applying the namespace and selectors the way the real watch
 * cache does (an object leaving the selector arrives as DELETED, one
 * entering it as ADDED).
 *
 * Easy to get wrong: while the server is stalled nothing is written (lines
 * queue up), and a timeout that falls due then ends the stream only when the
 * stall is lifted.
 */
export class WatchStream {
  private bookmarkTimer: TimerHandle | undefined;
  private timeoutTimer: TimerHandle | undefined;
  private pending: string[] | undefined;
  private closed = false;
  private endWhenUnstalled = false;

  constructor(
    readonly table: ResourceTable,
    private readonly res: ServerResponse,
    private readonly opts: WatchOptions,
    private readonly clock: Clock,
    private readonly currentRv: () => number,
    private readonly onClosed: (s: WatchStream) => void,
  ) {
    res.on('close', () => this.cleanup());
  }

  /** Arms the bookmark and timeout timers. */
  start(): void {
    if (this.opts.bookmarks) this.armBookmark();
    if (this.opts.timeoutMs !== undefined) {
      this.timeoutTimer = this.clock.setTimeout(() => {
        this.timeoutTimer = undefined;
        // The real watch cache sends a last bookmark shortly before the deadline.
        if (this.opts.bookmarks && this.pending === undefined) this.sendBookmark(false);
        this.end();
      }, this.opts.timeoutMs);
    }
  }

  private armBookmark(): void {
    this.bookmarkTimer = this.clock.setTimeout(() => {
      this.bookmarkTimer = undefined;
      if (this.closed) return;
      // No heartbeat while stalled: a stalled server sends nothing.
      if (this.pending === undefined) this.sendBookmark(false);
      this.armBookmark();
    }, this.opts.bookmarkIntervalMs);
  }

  isOpen(): boolean {
    return !this.closed;
  }

  private write(line: string): void {
    if (this.closed) return;
    if (this.pending !== undefined) this.pending.push(line);
    else this.res.write(line);
  }

  private sendObject(type: EventType, obj: KubeObject): void {
    this.write(`{"type":"${type}","object":${objectJson(obj, this.opts.partial)}}\n`);
  }

  private inScope(obj: KubeObject): boolean {
    return this.opts.namespace === undefined || !this.table.def.namespaced || obj.metadata.namespace === this.opts.namespace;
  }

  /** Sends the current state as ADDED events (a watch from "" or "0", or sendInitialEvents). */
  sendInitial(objects: Iterable<KubeObject>): void {
    // Batched into large writes: a watch over 100k objects must not cost 100k chunks.
    let batch = '';
    for (const obj of objects) {
      if (!this.inScope(obj) || !this.opts.filter.matches(obj)) continue;
      batch += `{"type":"ADDED","object":${objectJson(obj, this.opts.partial)}}\n`;
      if (batch.length > 65536) {
        this.write(batch);
        batch = '';
      }
    }
    if (batch !== '') this.write(batch);
  }

  /** Delivers one committed change, translated for this watch's selectors. */
  deliver(event: StoreEvent): void {
    if (this.closed || !this.inScope(event.object)) return;
    const filter = this.opts.filter;
    const now = event.type !== 'DELETED' && filter.matches(event.object);
    const before =
      event.type === 'DELETED' ? filter.matches(event.prev ?? event.object) : event.prev !== undefined && filter.matches(event.prev);
    if (!now && !before) return;
    if (now === before || event.type === 'DELETED') {
      // Sent as committed: share the serialised line between watchers.
      const cached = lineCache.get(event) ?? {};
      const slot = this.opts.partial ? 'partial' : 'full';
      let line = cached[slot];
      if (line === undefined) {
        line = `{"type":"${event.type}","object":${objectJson(event.object, this.opts.partial)}}\n`;
        cached[slot] = line;
        lineCache.set(event, cached);
      }
      this.write(line);
    } else if (now) {
      this.sendObject('ADDED', event.object);
    } else {
      // Left the selector: the previous content, stamped with this change's resourceVersion.
      const prev = event.prev as KubeObject;
      this.sendObject('DELETED', { ...prev, metadata: { ...prev.metadata, resourceVersion: String(event.rv) } });
    }
  }

  /** A BOOKMARK at the current resourceVersion (optionally marking the end of initial events). */
  sendBookmark(initialEventsEnd: boolean): void {
    const metadata: Record<string, unknown> = { resourceVersion: String(this.currentRv()) };
    if (initialEventsEnd) metadata['annotations'] = { 'k8s.io/initial-events-end': 'true' };
    const obj = this.opts.partial
      ? { kind: 'PartialObjectMetadata', apiVersion: META_API_VERSION, metadata }
      : { kind: this.table.def.kind, apiVersion: this.table.def.apiVersion, metadata };
    this.write(`{"type":"BOOKMARK","object":${JSON.stringify(obj)}}\n`);
  }

  /** An in-stream ERROR event (e.g. 410 Expired), after which the stream ends. */
  sendError(status: StatusObject): void {
    this.write(`{"type":"ERROR","object":${JSON.stringify(status)}}\n`);
  }

  setStalled(stalled: boolean): void {
    if (stalled) {
      this.pending ??= [];
      return;
    }
    const lines = this.pending;
    this.pending = undefined;
    if (lines !== undefined && !this.closed) for (const l of lines) this.res.write(l);
    if (this.endWhenUnstalled) this.end();
  }

  /**
   * Ends the response cleanly (the client sees a normal end of stream).
   * While stalled the end waits for the stall to lift, unless `now`
   * (then queued lines are dropped).
   */
  end(now = false): void {
    if (this.closed) return;
    if (this.pending !== undefined && !now) {
      this.endWhenUnstalled = true;
      return;
    }
    this.pending = undefined;
    this.res.end();
    this.cleanup();
  }

  /** Destroys the connection (the client sees a reset / premature close). */
  destroy(): void {
    this.res.socket?.destroy();
    this.res.destroy();
    this.cleanup();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    this.pending = undefined;
    if (this.bookmarkTimer !== undefined) this.clock.clearTimeout(this.bookmarkTimer);
    if (this.timeoutTimer !== undefined) this.clock.clearTimeout(this.timeoutTimer);
    this.bookmarkTimer = undefined;
    this.timeoutTimer = undefined;
    this.onClosed(this);
  }
}
