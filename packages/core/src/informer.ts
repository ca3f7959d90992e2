import type { GroupVersionResource, NamespacedName } from './gvr.js';
import type { InformerHealth } from './informerHealth.js';
import type { KindUnavailableError } from './KindUnavailableError.js';

/** The object metadata an informer keeps (a subset of `metav1.ObjectMeta`). */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
}

/** `metav1.OwnerReference`. */
export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** `metav1.PartialObjectMetadata`: an object reduced to its type and metadata. */
export interface PartialObjectMetadata {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

/**
 * A full object as an informer that keeps objects caches it (see
 * {@link ObjectCacheOptions}): type, metadata and every other field the
 * server sent (spec, data, status), less what the transform dropped.
 */
export interface CachedObject extends PartialObjectMetadata {
  [field: string]: unknown;
}

/**
 * What a list/watch that keeps full objects does to each object before
 * the informer caches it, after the default one (`stripObject`: no
 * `metadata.managedFields`, no `kubectl.kubernetes.io/last-applied-configuration`
 * annotation). It may change the object in place (it is freshly parsed
 * and nobody else holds it) and returns what is cached.
 *
 * Easy to get wrong: keep `metadata` (name, namespace, resourceVersion,
 * labels): routing and read-your-writes read them.
 */
export type ObjectTransform = (obj: CachedObject) => CachedObject;

/**
 * The values a secondary index files an object under (an owner's uid, a
 * referenced Secret's name): `ctx.list(gvr, { index, value })` then finds
 * the objects filed under `value` without scanning the cache. Called on
 * every version of every cached object: keep it cheap and pure.
 */
export type IndexFunc = (obj: CachedObject) => readonly string[];

/** How an informer that keeps full objects trims them, and what it indexes them by. */
export interface ObjectCacheOptions {
  /** Runs after the default trim (managedFields and the last-applied annotation dropped). Default: none. */
  readonly transform?: ObjectTransform;
  /**
   * Secondary indexes by name, kept true on every add, update, delete and
   * relist. `owner` (the uids of an object's owner references) and
   * `namespace` are built in and need not be given. Default: none.
   */
  readonly indexes?: Readonly<Record<string, IndexFunc>>;
}

/**
 * Delivered to `onDelete` when an object vanished while the informer was not
 * watching (found missing on a relist): `obj` is the last state the informer
 * knew, which may be stale.
 */
export class DeletedFinalStateUnknown {
  constructor(
    /** `namespace/name` (or `name` for cluster-scoped objects). */
    readonly key: string,
    readonly obj: PartialObjectMetadata | undefined,
  ) {}
}

/** Callbacks an informer calls, in order, for each change of its cache. */
export interface ResourceEventHandler {
  /** `takeover`: added by a list of a share taken over (see `ListWatchSink.replace`). */
  onAdd?(obj: PartialObjectMetadata, isInInitialList: boolean, takeover?: boolean): void;
  /**
   * `resync`: the informer replays its cache (a periodic resync; `oldObj`
   * and `newObj` are then the same cached object), not a change the server
   * sent. The informer engine always says; absent means false.
   */
  onUpdate?(oldObj: PartialObjectMetadata, newObj: PartialObjectMetadata, resync?: boolean): void;
  onDelete?(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void;
}

/**
 * The read side of one GVR's informer: its metadata-only cache and whether
 * it holds the whole collection yet. `controller.informer(gvr)` and
 * `WatchManager.getInformer` return it; the informer engine in
 * `@protean/watch-manager` implements it.
 */
export interface InformerCache {
  readonly gvr: GroupVersionResource;
  /** True once the first complete list is in the cache (never false again). */
  hasSynced(): boolean;
  /** Every cached object; with `namespace`, those of that namespace only (`""`: cluster-scoped ones). */
  list(namespace?: string): PartialObjectMetadata[];
  get(key: NamespacedName): PartialObjectMetadata | undefined;
  /**
   * Optional: true when the cache holds full objects ({@link CachedObject},
   * asked for through `WatchManager.ensureObjects`) rather than metadata
   * only. Absent: metadata only.
   */
  holdsObjects?(): boolean;
  /**
   * Optional: the cached objects a secondary index files under `value`
   * (`owner`, built in, or an index an `ensureObjects` asked for);
   * `undefined` when `index` is not indexed. Read-only, like `list`.
   */
  byIndex?(index: string, value: string): PartialObjectMetadata[] | undefined;
  /** Optional: the values `index` files `obj` under; `undefined` when `index` is not indexed. */
  indexValues?(index: string, obj: CachedObject): readonly string[] | undefined;
  /** Synced, idle time, relists and the current outage (see {@link InformerHealth}). */
  health(): InformerHealth;
}

/**
 * Where a {@link ListWatch} delivers what it reads from its API. The
 * informer engine behind it keeps the cache, computes what a relist
 * changed (a delete with a `DeletedFinalStateUnknown` for each object that
 * vanished), flags the initial list, resyncs and tracks health; a source
 * only reports what the server said.
 *
 * A list is delivered either whole, with {@link replace}, or as a stream:
 * {@link beginList}, then `upsert`/`remove` for its objects, then
 * {@link endList}. Until `endList` the streamed objects build the next
 * state and the cache does not change.
 *
 * Easy to get wrong when writing a source:
 * - Updates are told apart from nothing by `metadata.resourceVersion`: give
 *   every object one that changes whenever the object does. An object
 *   listed again with the same resourceVersion keeps the one cached.
 * - The engine keeps the objects it is given and compares new ones with
 *   them: never modify or reuse an object after handing it over.
 * - After a failed list (`failed` drops a streamed one in progress), list
 *   again (`beginList` or `replace`) before sending events.
 * - Without a `health()` of its own, the source is judged by its sink
 *   calls: every `failed` extends an outage, and a quiet source should
 *   call `progressed` when the server answers, or it looks stalled.
 */
export interface ListWatchSink {
  /** What the engine holds now (read-only). */
  readonly cache: InformerCache;
  /**
   * A complete list: it replaces the cache (objects whose resourceVersion
   * did not change stay the cached objects). `reason: 'takeover'`: the
   * list is the share a decorator took over (a shard's new ranges), and
   * the objects it adds are flagged `takeover` on their events.
   */
  replace(objects: Iterable<PartialObjectMetadata>, reason?: 'takeover'): void;
  /** A streamed list begins (any list in progress is dropped). */
  beginList(): void;
  /** The streamed list is complete: it replaces the cache. */
  endList(): void;
  /** An object was created or changed (a watch event, or part of a streamed list). */
  upsert(obj: PartialObjectMetadata): void;
  /** An object was deleted (a watch event, or part of a streamed list). */
  remove(obj: PartialObjectMetadata): void;
  /**
   * Drops from the cache at once, as deletes, every object `keep` refuses,
   * and from a streamed list in progress: for a decorator whose filter
   * narrowed (a shard that lost ranges).
   */
  retain(keep: (obj: PartialObjectMetadata) => boolean): void;
  /** The server answered with nothing to change (a bookmark, an unchanged poll): an outage, if any, is over. */
  progressed(): void;
  /** A list or watch request failed: a streamed list in progress is dropped; the source keeps retrying on its own. */
  failed(err: Error): void;
  /**
   * Replaces the list/watch this sink was given with the one `build`
   * returns, for a decorator whose filter changed (a shard's new ranges):
   * the engine builds it with `notOlderThan`, the resourceVersion of the
   * last watch event it applied, and runs it at once into a sink of its
   * own while this one keeps feeding the cache. Its first complete list
   * replaces the cache as a relist (`reason` as for {@link replace}); only
   * then does this one's run signal abort. Before the first sync it takes
   * over at once. Asked again through the new one's sink before that list,
   * the newer one replaces it. A failure of the new one before its list
   * changes nothing but the health report.
   *
   * Easy to get wrong: a switch the informer is already making (to full
   * objects) replaces this list/watch anyway, so asking through this sink
   * then does nothing; the pending one is asked through its own sink.
   */
  switchSource(build: (notOlderThan: string | undefined) => ListWatch, reason?: 'takeover'): void;
}

/**
 * What a {@link ListWatch} knows of its own health (the wire's view), when
 * it knows more than the engine sees through the sink.
 */
export type ListWatchHealth = Pick<InformerHealth, 'idleMs' | 'failing' | 'listMode'>;

/**
 * The wire half of an informer: lists and watches (or polls) one GVR and
 * tells a {@link ListWatchSink} what it read. It keeps no cache of its own.
 */
export interface ListWatch {
  readonly gvr: GroupVersionResource;
  /**
   * Optional: what it delivers, `metadata` (each object reduced to its
   * type and metadata) or `objects` (whole, as `ListWatchOptions.objects`
   * asks). The watch manager refuses a list/watch that says `metadata`
   * where full objects were asked for; one that says nothing is judged by
   * its first object (a `PartialObjectMetadata` is metadata).
   */
  readonly delivers?: 'metadata' | 'objects';
  /**
   * Starts listing and watching into `sink`; returns at once, and works
   * (retrying on its own) until `signal` aborts. Called once.
   */
  run(sink: ListWatchSink, signal: AbortSignal): void;
  /**
   * Optional: its own view of idle time, the current outage and its list
   * mode. With it the engine takes these from here and ignores the
   * failures reported to the sink (for health; they still reach the
   * listener); without it the engine judges by the sink calls.
   */
  health?(): ListWatchHealth;
}

/**
 * Creates list/watch sources, one per GVR; the plugin point for where
 * watch data comes from (`TOKENS.informerSource`).
 */
export interface InformerSource {
  createListWatch(gvr: GroupVersionResource, options?: ListWatchOptions): ListWatch;
  /**
   * Optional: resolves once the kind that `refusal` refused may be
   * available again (its CRD was created or changed, RBAC now grants the
   * verb), or when `signal` aborts; it never rejects. Resolving early is
   * harmless (the caller tries again and may be refused again); resolving
   * only on a change is what keeps the caller from polling the server.
   * Absent: the watch manager tries again on a timer.
   */
  whenAvailable?(refusal: KindUnavailableError, signal: AbortSignal): Promise<void>;
}

/** Options of {@link InformerSource.createListWatch}; a source may ignore what it cannot honour. */
export interface ListWatchOptions {
  /**
   * The first list must show a state not older than this resourceVersion:
   * a list/watch that takes over from another (a restart with a new
   * filter) must not go back in time from what was already delivered.
   */
  readonly notOlderThan?: string;
  /**
   * Deliver full objects (spec, data, status), trimmed by core's
   * `stripObject` and then `objects.transform`, instead of metadata
   * only. A source that cannot leaves it out and delivers metadata.
   */
  readonly objects?: ObjectCacheOptions;
}
