import type { GroupVersionResource } from '../gvr.js';

/**
 * A scalar watch as the watch coordinator holds it: the one object
 * `namespace`/`name` (namespace `""` for a cluster-scoped object).
 */
export interface ScalarDeclaredWatch {
  readonly kind: 'scalar';
  /** The request's `nodeId` within its instance. */
  readonly nodeId: string;
  /** `group/version/resource` (`gvrKey`). */
  readonly gvr: string;
  readonly namespace: string;
  readonly name: string;
  /**
   * True when the watch belongs to the instance's last committed pass; false
   * for one declared by the pass in progress (it routes already, and is
   * committed when that pass succeeds).
   */
  readonly committed: boolean;
}

/**
 * A collection watch as the watch coordinator holds it: every object of
 * `gvr` in `namespace` (unset: every namespace) whose labels match `selector`.
 */
export interface CollectionDeclaredWatch {
  readonly kind: 'collection';
  readonly nodeId: string;
  readonly gvr: string;
  /** Unset: all namespaces. */
  readonly namespace?: string;
  /** The selector's canonical string: `""` matches everything, `<nothing>` (`NOTHING_SELECTOR_STRING`) nothing. */
  readonly selector: string;
  readonly committed: boolean;
}

/**
 * One watch an instance declared on `ctx.watcher`, as plain JSON-serialisable
 * data (GVR as its key, selector as its canonical string): what status pages
 * and `explain` show. Metadata only.
 */
export type DeclaredWatch = ScalarDeclaredWatch | CollectionDeclaredWatch;

/**
 * The route every instance has to its own parent object: a parent event
 * (add, delete, an update that changes `metadata.generation` or of a resource
 * without one, a resync) reconciles the instance it is about. It is the
 * controller's, not a declared watch.
 */
export interface ParentRouteWatch {
  readonly kind: 'parent';
  readonly gvr: string;
  readonly namespace: string;
  readonly name: string;
}

/** Every watch of one instance, as {@link WatchCoordinator.declaredWatches} lists them. */
export interface InstanceWatches {
  /** The parent GVR's key. */
  readonly parent: string;
  readonly namespace: string;
  readonly name: string;
  /** Sorted by GVR, then node id; committed before pending for one node. */
  readonly watches: readonly DeclaredWatch[];
}

/**
 * The object a routing question is about: its GVR, identity and labels (an
 * event carrying exactly these labels, as an add or a delete does).
 */
export interface RouteQuery {
  readonly gvr: GroupVersionResource;
  /** `""` for a cluster-scoped object. */
  readonly namespace: string;
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** A watch that routes the queried object to an instance. */
export interface WatchRoute {
  /** The instance's parent GVR key. */
  readonly parent: string;
  /** The instance's `namespace/name` (`name` when cluster-scoped). */
  readonly instance: string;
  readonly watch: DeclaredWatch | ParentRouteWatch;
}

/** What part of a watch the queried object fails. */
export type WatchMissField = 'namespace' | 'name' | 'selector';

/** A watch of the object's GVR that does not route it, and why not. */
export interface WatchMiss {
  readonly parent: string;
  readonly instance: string;
  readonly watch: DeclaredWatch;
  readonly field: WatchMissField;
  /** One sentence, metadata only: `label app is "blog", selector wants app in (shop)`. */
  readonly reason: string;
}

/** The coordinator's answer to a {@link RouteQuery}. */
export interface RouteExplanation {
  /** One entry per routing watch; an instance may appear more than once (it is enqueued once). */
  readonly routes: readonly WatchRoute[];
  /** Every other watch of the object's GVR. */
  readonly misses: readonly WatchMiss[];
}
