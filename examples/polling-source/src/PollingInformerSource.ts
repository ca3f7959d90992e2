import {
  errorMessage,
  realClock,
  sleepOrWake,
  type Clock,
  type GroupVersionResource,
  type InformerSource,
  type ListWatch,
  type ListWatchSink,
  type PartialObjectMetadata,
} from '@protean/core';

/** Options of a {@link PollingInformerSource}. */
export interface PollingSourceOptions {
  /**
   * Reads the whole collection of `gvr` now. Give every object a
   * `resourceVersion` that changes when the object does (a version the API
   * reports, or a hash of the content): the informer engine compares them
   * to tell an update from nothing.
   */
  readonly list: (gvr: GroupVersionResource, signal: AbortSignal) => Promise<readonly PartialObjectMetadata[]>;
  /** Time between the end of one poll and the start of the next. */
  readonly intervalMs: number;
  readonly clock?: Clock;
}

/**
 * An informer source for an API that cannot be watched: every
 * `intervalMs` it lists the whole collection and hands it to the informer
 * engine as a complete list. The engine does the rest, as for a watched
 * kind: the cache, the initial list, an add, update or delete for what a
 * poll changed, the sync signal and health. A failed poll is reported and
 * retried at the next interval; the engine's health shows the outage.
 */
export class PollingInformerSource implements InformerSource {
  constructor(private readonly options: PollingSourceOptions) {
    if (!(options.intervalMs > 0)) throw new RangeError(`PollingInformerSource: intervalMs must be > 0, got ${String(options.intervalMs)}`);
  }

  /** Whatever options it is given, it delivers the objects `list` returns, whole. */
  createListWatch(gvr: GroupVersionResource): ListWatch {
    return { gvr, delivers: 'objects', run: (sink, signal) => void this.poll(gvr, sink, signal) };
  }

  private async poll(gvr: GroupVersionResource, sink: ListWatchSink, signal: AbortSignal): Promise<void> {
    const clock = this.options.clock ?? realClock;
    while (!signal.aborted) {
      try {
        const objects = await this.options.list(gvr, signal);
        if (!signal.aborted) sink.replace(objects);
      } catch (err) {
        if (!signal.aborted) sink.failed(err instanceof Error ? err : new Error(errorMessage(err)));
      }
      await sleepOrWake(clock, this.options.intervalMs, signal).done;
    }
  }
}
