import {
  gvrKey,
  type GroupVersionResource,
  type KindUnavailableError,
  type InformerSource,
  type ListWatch,
  type ListWatchSink,
} from '@protean/core';

/** A list/watch failure an informer reported, with the GVR it belongs to. */
export interface ObservedWatchError {
  readonly gvr: string;
  readonly error: Error;
}

/**
 * Wraps an {@link InformerSource} to count the list/watches it creates per
 * GVR and to record every list/watch failure they report, without
 * changing what they do. Counting creations is how a test proves no new
 * LIST was sent: a list/watch lists only when it is created and run.
 */
export class ObservedInformerSource implements InformerSource {
  readonly watchErrors: ObservedWatchError[] = [];
  private readonly created: string[] = [];

  whenAvailable?(refusal: KindUnavailableError, signal: AbortSignal): Promise<void>;

  constructor(private readonly inner: InformerSource) {
    if (inner.whenAvailable !== undefined) this.whenAvailable = inner.whenAvailable.bind(inner);
  }

  createListWatch(gvr: GroupVersionResource): ListWatch {
    const key = gvrKey(gvr);
    const lw = this.inner.createListWatch(gvr);
    this.created.push(key);
    const record = (error: Error): number => this.watchErrors.push({ gvr: key, error });
    return observing(lw, record);
  }

  /** List/watches created for `gvr` so far. */
  createdFor(gvr: GroupVersionResource): number {
    const key = gvrKey(gvr);
    return this.created.filter((k) => k === key).length;
  }

  /** Failures reported by the list/watches of `gvr`, oldest first. */
  errorsFor(gvr: GroupVersionResource): Error[] {
    const key = gvrKey(gvr);
    return this.watchErrors.filter((e) => e.gvr === key).map((e) => e.error);
  }
}

/** `lw`, whose sink records each failure (also of the list/watches it switches to). */
function observing(lw: ListWatch, record: (err: Error) => void): ListWatch {
  const observed: ListWatch = {
    gvr: lw.gvr,
    run: (sink, signal) => lw.run(recordingFailures(sink, record), signal),
  };
  return lw.health === undefined ? observed : { ...observed, health: () => lw.health!() };
}

/** `sink`, recording each failure before passing it on. */
function recordingFailures(sink: ListWatchSink, record: (err: Error) => void): ListWatchSink {
  return {
    cache: sink.cache,
    replace: (objects) => sink.replace(objects),
    beginList: () => sink.beginList(),
    endList: () => sink.endList(),
    upsert: (obj) => sink.upsert(obj),
    remove: (obj) => sink.remove(obj),
    retain: (keep) => sink.retain(keep),
    progressed: () => sink.progressed(),
    failed: (err) => {
      record(err);
      sink.failed(err);
    },
    switchSource: (build, reason) => sink.switchSource((notOlderThan) => observing(build(notOlderThan), record), reason),
  };
}
