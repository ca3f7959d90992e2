import {
  gvrKey,
  namespacedNameKey,
  type Clock,
  type GroupVersionResource,
  type InformerOptions,
  type InformerSource,
  type NamespacedName,
  type PartialObjectMetadata,
} from '../index.js';
import { FakeInformer, type FakeDeleteOptions } from './FakeInformer.js';
import { FakeInformerError } from './FakeInformerError.js';
import { fakeObject, type ObjectSpec } from './fakeObject.js';
import { FakeStatusError } from './FakeStatusError.js';

/** Options of a {@link FakeInformerSource}. */
export interface FakeInformerSourceOptions {
  /** Informers complete their initial list as soon as they run. Default true. */
  readonly autoSync?: boolean;
  /** The clock of every informer's `health()`. Default: the real clock. */
  readonly clock?: Clock;
}

/**
 * An {@link InformerSource} over an in-memory "cluster": `add`, `update` and
 * `delete` change the objects of a GVR and reach every synced informer of
 * that GVR as events; a new informer lists the current objects. It records
 * every informer it created, so a test can check which GVRs are watched,
 * drive an informer directly, or see that one was stopped.
 *
 * Easy to get wrong: an informer that has not synced yet (`autoSync: false`
 * or `setAutoSync(gvr, false)`) receives no events; it picks the objects up
 * when its list completes (`informer(gvr).markSynced()`).
 */
export class FakeInformerSource implements InformerSource {
  private readonly objectsByGvr = new Map<string, Map<string, PartialObjectMetadata>>();
  private readonly created: FakeInformer[] = [];
  private readonly autoSyncByGvr = new Map<string, boolean>();
  private readonly syncFailures = new Map<string, Error>();
  private createFailure: Error | undefined;
  private readonly autoSync: boolean;
  private readonly clock: Clock | undefined;
  private nextResourceVersion = 1;
  private nextUid = 1;

  constructor(options: FakeInformerSourceOptions = {}) {
    this.autoSync = options.autoSync ?? true;
    this.clock = options.clock;
  }

  createInformer(gvr: GroupVersionResource, opts: InformerOptions): FakeInformer {
    const failure = this.createFailure;
    if (failure !== undefined) {
      this.createFailure = undefined;
      throw failure;
    }
    const key = gvrKey(gvr);
    const syncError = this.syncFailures.get(key);
    const informer = new FakeInformer(gvr, {
      resyncPeriodMs: opts.resyncPeriodMs,
      autoSync: this.autoSyncByGvr.get(key) ?? this.autoSync,
      listObjects: () => this.objects(gvr),
      ...(syncError === undefined ? {} : { syncError }),
      ...(this.clock === undefined ? {} : { clock: this.clock }),
    });
    this.created.push(informer);
    return informer;
  }

  /** Every informer created, oldest first. */
  informers(gvr?: GroupVersionResource): FakeInformer[] {
    if (gvr === undefined) return [...this.created];
    const key = gvrKey(gvr);
    return this.created.filter((i) => gvrKey(i.gvr) === key);
  }

  /** The newest informer created for `gvr` (for any GVR when omitted), whether running or stopped. */
  informer(gvr?: GroupVersionResource): FakeInformer | undefined {
    return this.informers(gvr).at(-1);
  }

  /** The informers of `gvr` (or of every GVR) that run and have not been stopped. */
  runningInformers(gvr?: GroupVersionResource): FakeInformer[] {
    return this.informers(gvr).filter((i) => i.isRunning());
  }

  /** Overrides the source-wide `autoSync` for informers of `gvr` created from now on. */
  setAutoSync(gvr: GroupVersionResource, autoSync: boolean): void {
    this.autoSyncByGvr.set(gvrKey(gvr), autoSync);
  }

  /**
   * Makes informers of `gvr` fail to sync with `err` (default: a 404, as for
   * a GVR the server does not serve): the running unsynced ones now, later
   * ones when they run, until {@link clearSyncFailure}.
   */
  failSync(gvr: GroupVersionResource, err: Error = new FakeStatusError(404)): void {
    this.syncFailures.set(gvrKey(gvr), err);
    for (const informer of this.runningInformers(gvr)) {
      if (!informer.hasSynced()) informer.failSync(err);
    }
  }

  /**
   * Makes the next `createInformer` call (of any GVR) throw `err` and create
   * nothing, as a source that cannot build an informer does (a bad
   * kubeconfig, an unknown kind); later calls succeed again.
   */
  failNextCreate(err: Error): void {
    this.createFailure = err;
  }

  /** Lets informers of `gvr` created from now on sync again. */
  clearSyncFailure(gvr: GroupVersionResource): void {
    this.syncFailures.delete(gvrKey(gvr));
  }

  /**
   * Creates an object (`generation` 1, a `uid` and a `resourceVersion`
   * unless given) and delivers an add to the synced informers of `gvr`.
   * @throws FakeInformerError when it exists already.
   */
  add(gvr: GroupVersionResource, spec: ObjectSpec): PartialObjectMetadata {
    const objects = this.objectsOf(gvr);
    const key = namespacedNameKey({ namespace: spec.namespace ?? '', name: spec.name });
    if (objects.has(key)) throw new FakeInformerError(`cannot add ${key} to ${gvrKey(gvr)}: it exists already`);
    const obj = fakeObject({
      uid: `uid-${this.nextUid++}`,
      generation: 1,
      ...spec,
      resourceVersion: spec.resourceVersion ?? String(this.nextResourceVersion++),
    });
    objects.set(key, obj);
    for (const informer of this.syncedInformers(gvr)) informer.add(obj);
    return obj;
  }

  /**
   * Changes an object: fields given in `spec` replace the old ones, the
   * rest (labels, generation, uid...) are kept, and `resourceVersion` moves
   * on. Bump `generation` yourself for a spec change.
   * @throws FakeInformerError when it does not exist.
   */
  update(gvr: GroupVersionResource, spec: ObjectSpec): PartialObjectMetadata {
    const objects = this.objectsOf(gvr);
    const key = namespacedNameKey({ namespace: spec.namespace ?? '', name: spec.name });
    const old = objects.get(key);
    if (old === undefined) throw new FakeInformerError(`cannot update ${key} in ${gvrKey(gvr)}: it does not exist`);
    const obj = fakeObject({
      apiVersion: old.apiVersion,
      kind: old.kind,
      ...old.metadata,
      ...spec,
      resourceVersion: spec.resourceVersion ?? String(this.nextResourceVersion++),
    });
    objects.set(key, obj);
    for (const informer of this.syncedInformers(gvr)) informer.update(obj);
    return obj;
  }

  /**
   * Deletes an object and delivers a delete (a tombstone with
   * `finalStateUnknown`) to the synced informers of `gvr`.
   * @throws FakeInformerError when it does not exist.
   */
  delete(gvr: GroupVersionResource, target: NamespacedName, options: FakeDeleteOptions = {}): void {
    const objects = this.objectsOf(gvr);
    const key = namespacedNameKey(target);
    if (!objects.delete(key)) throw new FakeInformerError(`cannot delete ${key} from ${gvrKey(gvr)}: it does not exist`);
    for (const informer of this.syncedInformers(gvr)) informer.delete(target, options);
  }

  /** The objects of `gvr` in the fake cluster. */
  objects(gvr: GroupVersionResource): PartialObjectMetadata[] {
    return [...(this.objectsByGvr.get(gvrKey(gvr))?.values() ?? [])];
  }

  /** One object of `gvr`, if it exists. */
  get(gvr: GroupVersionResource, target: NamespacedName): PartialObjectMetadata | undefined {
    return this.objectsByGvr.get(gvrKey(gvr))?.get(namespacedNameKey(target));
  }

  private objectsOf(gvr: GroupVersionResource): Map<string, PartialObjectMetadata> {
    const key = gvrKey(gvr);
    let objects = this.objectsByGvr.get(key);
    if (objects === undefined) {
      objects = new Map();
      this.objectsByGvr.set(key, objects);
    }
    return objects;
  }

  private syncedInformers(gvr: GroupVersionResource): FakeInformer[] {
    return this.runningInformers(gvr).filter((i) => i.hasSynced());
  }
}
