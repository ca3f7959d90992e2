import type { GroupVersionResource, NamespacedName } from './gvr.js';
import type { InformerHealth } from './informerHealth.js';

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
  onAdd?(obj: PartialObjectMetadata, isInInitialList: boolean): void;
  onUpdate?(oldObj: PartialObjectMetadata, newObj: PartialObjectMetadata): void;
  onDelete?(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void;
}

/** Returned by {@link Informer.addEventHandler}; pass it back to remove the handler. */
export interface HandlerRegistration {
  /** True once the handler has been given the whole initial list. */
  hasSynced(): boolean;
}

/**
 * A shared informer over one GVR: lists, then watches, and keeps a
 * metadata-only cache. `run` returns at once; the informer works until the
 * signal aborts.
 */
export interface Informer {
  readonly gvr: GroupVersionResource;
  run(signal: AbortSignal): void;
  /** True after the initial list has been delivered to the handlers. */
  hasSynced(): boolean;
  /** True once the informer was stopped (its signal aborted). */
  isStopped(): boolean;
  /** Adds a handler; the current cache is replayed to it as adds first. */
  addEventHandler(handler: ResourceEventHandler): HandlerRegistration;
  removeEventHandler(registration: HandlerRegistration): void;
  list(): PartialObjectMetadata[];
  get(key: NamespacedName): PartialObjectMetadata | undefined;
  /** Called for each list/watch failure (the informer keeps retrying). */
  setWatchErrorHandler(fn: (err: Error) => void): void;
  /**
   * Optional: the informer's health now (synced, idle time, relists, the
   * current outage). Informers without it are judged by `hasSynced` alone.
   */
  health?(): InformerHealth;
}

/** Options an informer is created with. */
export interface InformerOptions {
  /** Cache replay period; 0 disables resync. */
  readonly resyncPeriodMs: number;
}

/** Creates informers; the plugin point for where watch data comes from. */
export interface InformerSource {
  createInformer(gvr: GroupVersionResource, opts: InformerOptions): Informer;
}
