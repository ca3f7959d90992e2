import {
  gvrKey,
  type GroupVersionResource,
  type HandlerRegistration,
  type Informer,
  type InformerHealth,
  type InformerOptions,
  type InformerSource,
  type NamespacedName,
  type PartialObjectMetadata,
  type ResourceEventHandler,
} from '@protean/core';

/** A list/watch failure an informer reported, with the GVR it belongs to. */
export interface ObservedWatchError {
  readonly gvr: string;
  readonly error: Error;
}

/**
 * Wraps an {@link InformerSource} to count the informers it creates per
 * GVR and to record every list/watch failure they report, without
 * changing what they do. Counting creations is how a test proves no new
 * LIST was sent: an informer lists only when it is created and run.
 *
 * Easy to get wrong: errors are recorded even when nobody installed a
 * watch error handler, and the installed one still gets every error.
 */
export class ObservedInformerSource implements InformerSource {
  readonly watchErrors: ObservedWatchError[] = [];
  private readonly created: string[] = [];

  constructor(private readonly inner: InformerSource) {}

  createInformer(gvr: GroupVersionResource, opts: InformerOptions): Informer {
    const key = gvrKey(gvr);
    const informer = this.inner.createInformer(gvr, opts);
    this.created.push(key);
    return new ObservedInformer(informer, (error) => this.watchErrors.push({ gvr: key, error }));
  }

  /** Informers created for `gvr` so far. */
  createdFor(gvr: GroupVersionResource): number {
    const key = gvrKey(gvr);
    return this.created.filter((k) => k === key).length;
  }

  /** Failures reported by the informers of `gvr`, oldest first. */
  errorsFor(gvr: GroupVersionResource): Error[] {
    const key = gvrKey(gvr);
    return this.watchErrors.filter((e) => e.gvr === key).map((e) => e.error);
  }
}

/** Delegates everything; records watch errors before passing them on. */
class ObservedInformer implements Informer {
  private handler: ((err: Error) => void) | undefined;
  /** The inner informer's, when it has one. */
  readonly health?: () => InformerHealth;

  constructor(
    private readonly inner: Informer,
    record: (err: Error) => void,
  ) {
    inner.setWatchErrorHandler((err) => {
      record(err);
      this.handler?.(err);
    });
    if (inner.health !== undefined) this.health = () => inner.health!();
  }

  get gvr(): GroupVersionResource {
    return this.inner.gvr;
  }

  run(signal: AbortSignal): void {
    this.inner.run(signal);
  }

  hasSynced(): boolean {
    return this.inner.hasSynced();
  }

  isStopped(): boolean {
    return this.inner.isStopped();
  }

  addEventHandler(handler: ResourceEventHandler): HandlerRegistration {
    return this.inner.addEventHandler(handler);
  }

  removeEventHandler(registration: HandlerRegistration): void {
    this.inner.removeEventHandler(registration);
  }

  list(): PartialObjectMetadata[] {
    return this.inner.list();
  }

  get(key: NamespacedName): PartialObjectMetadata | undefined {
    return this.inner.get(key);
  }

  setWatchErrorHandler(fn: (err: Error) => void): void {
    this.handler = fn;
  }
}
