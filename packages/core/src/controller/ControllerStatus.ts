import type { InstanceWatches, WatchMiss, WatchRoute } from '../contracts/DeclaredWatch.js';
import type { GroupVersionResource } from '../gvr.js';
import type { InformerHealth } from '../informerHealth.js';

/** One registered parent GVR in {@link ControllerStatus}. */
export interface ParentStatus {
  readonly gvr: string;
  /** Its informer has synced (the registration completed). */
  readonly synced: boolean;
  /** Instances in its informer's cache. */
  readonly instances: number;
}

/** One running informer in {@link ControllerStatus}. */
export interface InformerStatusEntry {
  readonly gvr: string;
  /** Objects in its metadata cache. */
  readonly objects: number;
  /** The watch manager's owner ids (`parent:<gvr>`, the coordinator's id, ...); empty when the watch manager has no `health()`. */
  readonly owners: readonly string[];
  /** The instances with a declared watch on this GVR, as `<parent gvr> <namespace/name>`, sorted. */
  readonly watchers: readonly string[];
  readonly synced: boolean;
  /** The informer's own report. */
  readonly health: InformerHealth;
}

/** A pass whose handler runs now. */
export interface InFlightPass {
  readonly parent: string;
  readonly namespace: string;
  readonly name: string;
  /** Wall-clock ISO time the pass started (see {@link ControllerStatus.generatedAt}). */
  readonly startedAt: string;
  /** Milliseconds since the pass started, on the controller's clock. */
  readonly ageMs: number;
  /** The pass's OpenTelemetry trace id (32 hex digits), while tracing is on. */
  readonly traceId?: string;
  /** The pass's span id (16 hex digits), while tracing is on. */
  readonly spanId?: string;
}

/** The last failed pass of an item, in {@link QueueStatus.recentFailures}. */
export interface RecentFailure {
  readonly parent: string;
  readonly namespace: string;
  readonly name: string;
  /** Wall-clock ISO time of the failure. */
  readonly at: string;
  /** The error summarised (`summarizeError`): status, reason and the first line of the message; never an object's content. */
  readonly error: string;
  /** The Kubernetes API reason (`Conflict`, `Forbidden`, ...) when the error carries a status, else the error's name. */
  readonly reason?: string;
  /** Failed passes in a row, this one included. */
  readonly failures: number;
  /** Wall-clock ISO time the item is queued again, when the queue tells (`DelayingQueue.readyAt`); unset when not retried or unknown. */
  readonly nextRetryAt?: string;
  /** True when this failure used the last retry (`queueMaxRetries`) and the item was dropped. */
  readonly dropped: boolean;
  /** The failed pass's OpenTelemetry trace id, while tracing is on. */
  readonly traceId?: string;
  /** The failed pass's span id, while tracing is on. */
  readonly spanId?: string;
}

/** The work queue and the workers in {@link ControllerStatus}. */
export interface QueueStatus {
  /** Items waiting (`queueLength()`; not those being handled, not those waiting for a retry delay). */
  readonly depth: number;
  /** `depth` per priority, when the queue orders by priority (`WorkQueue.depthByPriority`); unset otherwise. */
  readonly depthByPriority?: Readonly<Record<string, number>>;
  /** Worker loops per term (`config.workers`). */
  readonly workers: number;
  /** The per-pass time limit (`config.reconcileTimeoutMs`); 0: none. */
  readonly reconcileTimeoutMs: number;
  /** Passes running now, oldest first. */
  readonly inFlight: readonly InFlightPass[];
  /**
   * Items whose last pass failed, newest first, one entry per item, at most
   * {@link RECENT_FAILURES_LIMIT}. An item leaves the list when a later pass
   * of it succeeds or ends without an error (requeue signals, NotFound).
   */
  readonly recentFailures: readonly RecentFailure[];
}

/**
 * A snapshot of what the controller does, as plain JSON-serialisable data
 * (`DynamicController.status()`): metadata only, never an object's spec,
 * data or status.
 *
 * Times: ages are milliseconds on the controller's clock; ISO times are that
 * clock mapped to the wall clock at construction (`Date.now()` then, plus
 * the clock's elapsed time), so with a `FakeClock` they move with it.
 */
export interface ControllerStatus {
  /** Wall-clock ISO time of the snapshot. */
  readonly generatedAt: string;
  /** Between `start` and the beginning of shutdown. */
  readonly started: boolean;
  /** `isLeading()`: the workers take items. */
  readonly leading: boolean;
  readonly parents: readonly ParentStatus[];
  /** Every running informer (parents and children), in the watch manager's order. */
  readonly informers: readonly InformerStatusEntry[];
  /**
   * Every cached instance of a registered parent, and every other instance
   * the coordinator holds watches for, with its declared watches (empty when
   * it declared none, or when the coordinator does not implement
   * `declaredWatches`); sorted by parent, namespace, name.
   */
  readonly instances: readonly InstanceWatches[];
  readonly queue: QueueStatus;
}

/** The object `DynamicController.explain()` is asked about. */
export interface ExplainTarget {
  readonly gvr: GroupVersionResource;
  /** Unset or `""`: a cluster-scoped object. */
  readonly namespace?: string;
  readonly name: string;
  /** Unset: read from the GVR's informer cache (the object must be cached). */
  readonly labels?: Readonly<Record<string, string>>;
}

/** `DynamicController.explain()`'s answer: where an event for the object goes, and where it does not. */
export interface Explanation {
  readonly object: {
    readonly gvr: string;
    /** `""` for a cluster-scoped object. */
    readonly namespace: string;
    readonly name: string;
    readonly labels: Readonly<Record<string, string>>;
    /** `given`: the caller's labels; `cache`: read from the informer cache. */
    readonly source: 'given' | 'cache';
  };
  /**
   * Every watch that routes the object: declared watches, and the parent
   * route when the GVR is a registered parent (a `ParentRouteWatch`).
   * Sorted by parent, instance, then watch.
   */
  readonly routes: readonly WatchRoute[];
  /** Every declared watch of the object's GVR that does not route it, with the failing field and a reason. */
  readonly misses: readonly WatchMiss[];
}

/** How many items {@link QueueStatus.recentFailures} keeps. */
export const RECENT_FAILURES_LIMIT = 50;
