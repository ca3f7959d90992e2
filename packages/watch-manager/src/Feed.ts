import type { Clock, ListWatch, PartialObjectMetadata, ListWatchHealth } from '@protean/core';
import type { ListenerCalls } from './InformerListener.js';
import type { MetadataStore } from './MetadataStore.js';
import { objectsNotDelivered } from './WatchError.js';

/** How a {@link Feed} came to be switched to (see {@link Feed.switched} and {@link Feed.takeover}). */
export interface FeedSwitchKind {
  /**
   * Asked for through `Informer.switchSource` (or rebuilt from such a
   * switch): it may deliver more than the cache holds, so its list replaces
   * unchanged objects too, and the informer says it is switching.
   */
  readonly switched: boolean;
  /** Its first list is the share a decorator took over: the objects it adds are flagged `takeover`. */
  readonly takeover: boolean;
}

/**
 * One list/watch feeding an {@link Informer}: the current one, or one
 * switched to whose first list is built aside ({@link pending}) until it
 * replaces the cache. A source without a health report of its own is
 * judged by its sink calls here, feed by feed, so a switch that fails
 * shows while the current feed is healthy.
 *
 * Easy to get wrong: a retired feed's sink calls must change nothing; the
 * engine checks {@link retired} before anything else.
 */
export class Feed implements FeedSwitchKind {
  readonly abort = new AbortController();
  /** It delivers full objects: asked for, and not found to deliver metadata only. */
  holdsObjects: boolean;
  /** Asked for full objects without saying what it delivers: its first object is looked at. */
  checkFirst: boolean;
  /** No longer feeding: its sink calls are ignored. */
  retired = false;
  /** Not current yet: the list it streams, which replaces the cache when complete. */
  pending: MetadataStore | undefined;
  readonly switched: boolean;
  readonly takeover: boolean;
  /** Judged by its sink calls: its source has no `health()`. */
  readonly judged: boolean;
  private lastHeardMs: number | undefined;
  private failingSinceMs: number | undefined;
  private failures = 0;
  private lastFailure: Error | undefined;

  constructor(
    readonly source: ListWatch,
    holdsObjects: boolean,
    private readonly clock: Clock,
    kind: FeedSwitchKind = { switched: false, takeover: false },
  ) {
    this.holdsObjects = holdsObjects;
    this.checkFirst = holdsObjects && source.delivers === undefined;
    this.switched = kind.switched;
    this.takeover = kind.takeover;
    this.judged = typeof source.health !== 'function';
  }

  /** Stops feeding: its calls are ignored from now on, and its source's run signal aborts. */
  retire(): void {
    this.silence();
    this.abort.abort();
  }

  /** Its calls are ignored from now on; its source still runs until {@link retire}. */
  silence(): void {
    this.retired = true;
    this.pending = undefined;
  }

  /**
   * The first object of a feed asked for full objects that did not say
   * what it delivers: a `PartialObjectMetadata` (nothing beside type and
   * metadata) means metadata only, so the feed does not hold objects, and
   * `calls` tells the listener why (a `WatchError`, `ObjectsNotDelivered`).
   */
  checkDelivery(obj: PartialObjectMetadata, calls: ListenerCalls): void {
    this.checkFirst = false;
    if (obj.kind !== 'PartialObjectMetadata' || Object.keys(obj).some((k) => k !== 'apiVersion' && k !== 'kind' && k !== 'metadata'))
      return;
    this.holdsObjects = false;
    const err = objectsNotDelivered(this.source.gvr, 'its first object is a PartialObjectMetadata');
    // After the call that delivered it returns: a source may deliver from within `run`, while whoever switched to it
    // is still setting up.
    queueMicrotask(() => {
      if (!this.retired) calls.error(err);
    });
  }

  /** Activity from the server: it answered, so an outage, if any, is over. */
  heard(): void {
    if (!this.judged) return;
    this.lastHeardMs = this.clock.now();
    this.failingSinceMs = undefined;
    this.failures = 0;
    this.lastFailure = undefined;
  }

  /** A request of its source failed: the outage starts or goes on. */
  failed(err: Error): void {
    if (!this.judged) return;
    this.failingSinceMs ??= this.clock.now();
    this.failures++;
    this.lastFailure = err;
  }

  /** Idle time, the outage and the list mode: its source's own report, else judged from its sink calls. */
  health(): ListWatchHealth {
    if (!this.judged) return this.source.health!();
    const now = this.clock.now();
    const err = this.lastFailure;
    const status = (err as { status?: unknown } | undefined)?.status;
    const reason = (err as { reason?: unknown } | undefined)?.reason;
    return {
      idleMs: this.lastHeardMs === undefined ? undefined : Math.max(0, now - this.lastHeardMs),
      failing:
        this.failingSinceMs === undefined || err === undefined
          ? undefined
          : {
              forMs: now - this.failingSinceMs,
              consecutive: this.failures,
              cause: err.message,
              status: typeof status === 'number' ? status : undefined,
              reason: typeof reason === 'string' ? reason : undefined,
              retryInMs: undefined,
            },
    };
  }
}
