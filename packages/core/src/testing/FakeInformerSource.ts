import {
  gvrKey,
  namespacedNameKey,
  type GroupVersionResource,
  type InformerSource,
  type ListWatchOptions,
  type NamespacedName,
  type PartialObjectMetadata,
} from '../index.js';
import { FakeListWatch, type FakeDeleteOptions } from './FakeListWatch.js';
import { FakeInformerError } from './FakeInformerError.js';
import { fakeObject, type ObjectSpec } from './fakeObject.js';
import { FakeStatusError } from './FakeStatusError.js';

/** Options of a {@link FakeInformerSource}. */
export interface FakeInformerSourceOptions {
  /** Sources deliver their initial list as soon as they run. Default true. */
  readonly autoSync?: boolean;
}

/**
 * An {@link InformerSource} over an in-memory "cluster", for the real
 * informer engine to run on: `add`, `update` and `delete` change the
 * objects of a GVR and reach every listed {@link FakeListWatch} of that GVR
 * as watch events; a new one lists the current objects. It records every
 * list/watch it created (`informers()`), so a test can check which GVRs are
 * watched, drive one directly, or see that one was stopped.
 *
 * Easy to get wrong: a list/watch that has not listed yet (`autoSync:
 * false` or `setAutoSync(gvr, false)`) receives no events; it picks the
 * objects up when its list completes (`informer(gvr).markSynced()`).
 */
export class FakeInformerSource implements InformerSource {
  private readonly objectsByGvr = new Map<string, Map<string, PartialObjectMetadata>>();
  private readonly created: FakeListWatch[] = [];
  private readonly autoSyncByGvr = new Map<string, boolean>();
  private readonly syncFailures = new Map<string, Error>();
  private createFailure: Error | undefined;
  private readonly autoSync: boolean;
  private nextResourceVersion = 1;
  private nextUid = 1;

  constructor(options: FakeInformerSourceOptions = {}) {
    this.autoSync = options.autoSync ?? true;
  }

  /** A list/watch of `gvr`; with `options.objects` it delivers full objects (the objects' `content`), else metadata only. */
  createListWatch(gvr: GroupVersionResource, options: ListWatchOptions = {}): FakeListWatch {
    const failure = this.createFailure;
    if (failure !== undefined) {
      this.createFailure = undefined;
      throw failure;
    }
    const key = gvrKey(gvr);
    const syncError = this.syncFailures.get(key);
    const informer = new FakeListWatch(gvr, {
      autoSync: this.autoSyncByGvr.get(key) ?? this.autoSync,
      listObjects: () => this.objects(gvr),
      ...(syncError === undefined ? {} : { syncError }),
      ...(options.objects === undefined ? {} : { objects: options.objects }),
    });
    this.created.push(informer);
    return informer;
  }

  /** Every list/watch created (of `gvr` when given), oldest first. */
  informers(gvr?: GroupVersionResource): FakeListWatch[] {
    if (gvr === undefined) return [...this.created];
    const key = gvrKey(gvr);
    return this.created.filter((i) => gvrKey(i.gvr) === key);
  }

  /** The newest list/watch created for `gvr` (for any GVR when omitted), whether running or stopped. */
  informer(gvr?: GroupVersionResource): FakeListWatch | undefined {
    return this.informers(gvr).at(-1);
  }

  /** The list/watches of `gvr` (or of every GVR) that run and have not been stopped. */
  runningInformers(gvr?: GroupVersionResource): FakeListWatch[] {
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
   * Makes the next `createListWatch` call (of any GVR) throw `err` and
   * create nothing, as a source that cannot build one does (a bad
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
    const { apiVersion, kind, metadata, ...content } = old;
    const obj = fakeObject({
      apiVersion,
      kind,
      ...metadata,
      content,
      ...spec,
      resourceVersion: spec.resourceVersion ?? String(this.nextResourceVersion++),
    });
    objects.set(key, obj);
    for (const informer of this.syncedInformers(gvr)) informer.update(obj);
    return obj;
  }

  /**
   * Deletes an object and delivers a delete (a tombstone with
   * `finalStateUnknown`) to the synced informers of `gvr`: its last state
   * at a new resourceVersion, the deletion's, as kube-apiserver sends it.
   * @throws FakeInformerError when it does not exist.
   */
  delete(gvr: GroupVersionResource, target: NamespacedName, options: FakeDeleteOptions = {}): void {
    const objects = this.objectsOf(gvr);
    const key = namespacedNameKey(target);
    const old = objects.get(key);
    if (old === undefined) throw new FakeInformerError(`cannot delete ${key} from ${gvrKey(gvr)}: it does not exist`);
    objects.delete(key);
    // As kube-apiserver sends it: the object's last state at the deletion's own resourceVersion.
    const gone = { ...old, metadata: { ...old.metadata, resourceVersion: String(this.nextResourceVersion++) } };
    for (const informer of this.syncedInformers(gvr)) informer.delete(gone, options);
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

  private syncedInformers(gvr: GroupVersionResource): FakeListWatch[] {
    return this.runningInformers(gvr).filter((i) => i.hasSynced());
  }
}
