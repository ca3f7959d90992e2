import type { DeletedFinalStateUnknown, Logger, PartialObjectMetadata, ResourceEventHandler } from '@protean/core';

/**
 * What an {@link Informer} tells its one listener: each change of its cache,
 * the first sync, each failure. `onUpdate`'s `resync` is the engine's own
 * word that the update replays the cache (true only then), never a guess
 * from the objects.
 */
export interface InformerListener extends ResourceEventHandler {
  /** The first complete list is in the cache and was delivered as adds. Called once. */
  onSynced?(): void;
  /** A list or watch request failed; the source keeps retrying. */
  onError?(err: Error): void;
  /** The source given to `switchSource` listed, and its list replaced the cache. */
  onSourceSwitched?(): void;
}

/**
 * The calls an {@link Informer} makes to its one listener, each isolated:
 * a listener that throws is logged, and the informer carries on.
 *
 * Easy to get wrong: the informer's sink calls `onAdd`/`onUpdate` of a
 * watch event inline (the event path) and only reports a throw through
 * {@link threw}; everything else goes through these methods.
 */
export class ListenerCalls {
  constructor(
    readonly listener: InformerListener,
    private readonly log: Logger,
  ) {}

  added(obj: PartialObjectMetadata, isInInitialList: boolean, takeover = false): void {
    try {
      this.listener.onAdd?.(obj, isInInitialList, takeover);
    } catch (err) {
      this.threw(err, 'onAdd');
    }
  }

  /** `resync`: a replay of the cache, not a change the source delivered. */
  updated(oldObj: PartialObjectMetadata, newObj: PartialObjectMetadata, resync: boolean): void {
    try {
      this.listener.onUpdate?.(oldObj, newObj, resync);
    } catch (err) {
      this.threw(err, 'onUpdate');
    }
  }

  deleted(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void {
    try {
      this.listener.onDelete?.(obj);
    } catch (err) {
      this.threw(err, 'onDelete');
    }
  }

  synced(): void {
    try {
      this.listener.onSynced?.();
    } catch (err) {
      this.log.error({ err }, 'informer sync listener threw');
    }
  }

  sourceSwitched(): void {
    try {
      this.listener.onSourceSwitched?.();
    } catch (err) {
      this.log.error({ err }, 'informer switch listener threw');
    }
  }

  error(err: Error): void {
    try {
      this.listener.onError?.(err);
    } catch (listenerErr) {
      this.log.error({ err: listenerErr }, 'informer error listener threw');
    }
  }

  /** An event callback threw: logged, and the informer carries on. */
  threw(err: unknown, callback: string): void {
    this.log.error({ err, callback }, 'informer event listener threw; the informer carries on');
  }
}
