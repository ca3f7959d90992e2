import {
  gvrKey,
  namespacedNameKey,
  tracing,
  type WatchCoordinator,
  type DeclaredWatch,
  type GroupVersionResource,
  type InstancePass,
  type InstanceWatcher,
  type Logger,
  type NamespacedName,
  type WatchEvent,
  type WatchManager,
  type WatchRequest,
  type EnqueueFunc,
  type InstanceWatches,
  type RouteExplanation,
  type RouteQuery,
  type WatchMiss,
  type WatchRoute,
} from '@protean/core';
import { CoordinatorPass, type PassHost } from './CoordinatorPass.js';
import { declaredWatch, entryMiss } from './explainWatch.js';
import { GvrOwnership } from './GvrOwnership.js';
import type { GvrWatches } from './GvrWatches.js';
import { InstanceRemovedError } from './InstanceRemovedError.js';
import { InstanceState } from './InstanceState.js';
import { RouteTrigger } from './RouteTrigger.js';
import { ScopedInstanceWatcher, type WatcherHost } from './ScopedInstanceWatcher.js';
import { validateWatchRequest } from './validateWatchRequest.js';
import { createWatchEntry, type WatchEntry } from './WatchEntry.js';
import { WatchUnavailableError } from './WatchUnavailableError.js';

/** The owner id the coordinator registers with the watch manager unless told otherwise. */
export const DEFAULT_COORDINATOR_OWNER_ID = 'coordinator';

/** Optional settings of a {@link IndexedWatchCoordinator}. */
export interface IndexedWatchCoordinatorOptions {
  /**
   * Owner id for every `ensureWatch`/`releaseWatch` of this coordinator.
   * Two coordinators sharing one watch manager need different ids, or one would
   * release the other's informers.
   */
  readonly ownerId?: string;
}

/**
 * Aggregates the watch requests of every instance reconciler, keeps the
 * reverse indexes that route child events back to instances, and owns the
 * child informers in the watch manager (seed: `WatchCoordinator`).
 *
 * Requests accumulate per reconcile cycle (`forInstance(...).watch`), and
 * `done(true)` replaces the instance's committed set with the cycle's while
 * `done(false)` keeps the committed set. The coordinator holds one
 * ownership per GVR in the watch manager and releases it when the last request
 * for that GVR, across all instances, goes away.
 *
 * Easy to get wrong: a request routes events from the moment `watch` is
 * called, but the informer may still be syncing; await `watch` before
 * reading the resource so no change falls between the read and the watch.
 */
export class IndexedWatchCoordinator implements WatchCoordinator {
  /** The owner id used with the watch manager. */
  readonly ownerId: string;
  private readonly log: Logger;
  /** parent GVR key -> instance key -> state. */
  private readonly instances = new Map<string, Map<string, InstanceState>>();
  private readonly gvrs: GvrOwnership;
  private scalarCount = 0;
  private collectionCount = 0;
  private activeInstances = 0;
  private stamp = 0;
  /** Counts every `watch` and `done`, so a pass can tell whether its handler settled the cycle. */
  private activityCount = 0;
  private routing = false;
  private readonly scratch: InstanceState[] = [];
  private readonly host: WatcherHost = {
    watch: (watcher, req) => this.watchFor(watcher, req),
    done: (watcher, commit) => this.doneFor(watcher, commit),
  };
  private readonly passHost: PassHost = {
    forInstance: (parentGVR, instance) => this.forInstance(parentGVR, instance),
    endPass: (parentGVR, instance, since, commit) => this.endPass(parentGVR, instance, since, commit),
  };

  constructor(
    watches: WatchManager,
    private readonly enqueue: EnqueueFunc,
    logger: Logger,
    options: IndexedWatchCoordinatorOptions = {},
  ) {
    this.ownerId = options.ownerId ?? DEFAULT_COORDINATOR_OWNER_ID;
    this.log = logger.child({ component: 'watch-coordinator' });
    this.gvrs = new GvrOwnership(
      watches,
      this.ownerId,
      this.log,
      (entry) => this.dropFailed(entry),
      (gvrWatches) => this.wakeParked(gvrWatches),
    );
  }

  /**
   * The watcher an instance's reconcile uses to declare its watches. Take a
   * new one per reconcile: a watcher obtained before `removeInstance` stays
   * stale (its `watch` rejects with {@link InstanceRemovedError}). Watchers
   * of one instance share its cycle, as in kro: `done` settles the requests
   * of all of them.
   */
  forInstance(parentGVR: GroupVersionResource, instance: NamespacedName): InstanceWatcher {
    let state = this.instances.get(gvrKey(parentGVR))?.get(namespacedNameKey(instance));
    if (state === undefined) {
      state = new InstanceState(parentGVR, instance);
      this.register(state);
    }
    return new ScopedInstanceWatcher(this.host, state);
  }

  /**
   * Starts a reconcile pass: a watcher of the instance whose `end(commit)`
   * settles the pass from the handler's outcome. A pass that declared
   * nothing and ends with `commit` drops the instance's committed watches;
   * a pass whose cycle the handler settled itself (through any watcher of
   * the instance) is left alone.
   */
  beginPass(parentGVR: GroupVersionResource, instance: NamespacedName): InstancePass {
    return new CoordinatorPass(this.passHost, parentGVR, instance, this.activityCount);
  }

  /**
   * Enqueues, once each, every instance with a scalar request for the
   * event's object or a collection request whose namespace fits and whose
   * selector matches the new labels or the old ones. Initial-list adds and
   * resync updates are ignored: they replay state, they do not change it.
   */
  routeEvent(event: WatchEvent): void {
    // kro-diff: initial-list adds are not routed (kro routes them): a brand-new informer has no committed request, and
    // the instance that asked for it reads after `watch()` resolves, so routing would only reconcile it twice.
    if (event.initialList === true) return;
    // kro-diff: resync updates are not routed (kro routes them): parents are re-reconciled on resync anyway, and
    // routing them would enqueue every watcher each period.
    if (event.resync === true) return;
    // A child that entered this replica's share (a range taken over) did not change; its parents are enqueued anyway.
    if (event.takeover === true) return;
    const gvrWatches = this.gvrs.get(event.gvr);
    if (gvrWatches === undefined) return;
    const stamp = ++this.stamp;
    // The scratch array saves an allocation per event; an enqueue callback
    // that routes another event re-entrantly gets a fresh one.
    const matched = this.routing ? [] : this.scratch;
    // Each instance the event concerns, once per stamp: scalar requests by namespace and name, then collection requests.
    if (gvrWatches.scalar.size !== 0) gvrWatches.scalar.collect(event.namespace, event.name, stamp, matched);
    gvrWatches.collection.collect(event, stamp, matched);
    if (matched.length === 0) return;
    if (this.log.isLevelEnabled('debug')) {
      this.log.debug(
        { gvr: gvrWatches.key, namespace: event.namespace, name: event.name, type: event.type, instances: matched.length },
        'routed event',
      );
    }
    const outer = this.routing;
    this.routing = true;
    // While tracing is on, each instance's next pass links to this routing, with the watches the event matched.
    const trigger = tracing.enabled ? new RouteTrigger(event, matched.length) : undefined;
    try {
      // Enqueue after matching so a re-entrant or throwing callback cannot disturb the walk.
      for (const state of matched) {
        try {
          if (trigger === undefined) this.enqueue(state.parentGVR, state.instance);
          else this.enqueue(state.parentGVR, state.instance, trigger.for(state));
        } catch (err) {
          this.log.error({ err, parent: state.parentKey, instance: state.instanceKey }, 'enqueue failed');
        }
      }
    } finally {
      this.routing = outer;
      matched.length = 0;
    }
  }

  /** Drops every request of the instance; harmless for an unknown instance. */
  removeInstance(parentGVR: GroupVersionResource, instance: NamespacedName): void {
    const parentKey = gvrKey(parentGVR);
    const byInstance = this.instances.get(parentKey);
    const state = byInstance?.get(namespacedNameKey(instance));
    if (byInstance === undefined || state === undefined) return;
    byInstance.delete(state.instanceKey);
    if (byInstance.size === 0) this.instances.delete(parentKey);
    this.dropState(state);
    this.gvrs.flush();
  }

  /** Drops every instance of the parent GVR; harmless for an unknown parent. */
  removeParentGVR(parentGVR: GroupVersionResource): void {
    const parentKey = gvrKey(parentGVR);
    const byInstance = this.instances.get(parentKey);
    if (byInstance === undefined) return;
    this.instances.delete(parentKey);
    for (const state of byInstance.values()) this.dropState(state);
    this.gvrs.flush();
  }

  /** Number of instances with at least one request in the indexes. */
  instanceWatchCount(): number {
    return this.activeInstances;
  }

  /**
   * Requests in the indexes. During a cycle that re-targets a node, both
   * the committed and the new target count (both route until `done`).
   */
  watchRequestCount(): { scalar: number; collection: number } {
    return { scalar: this.scalarCount, collection: this.collectionCount };
  }

  /**
   * Every instance with a request in the indexes, and its requests: the
   * committed ones (`committed: true`) and those of a pass in progress
   * (`committed: false`; a re-targeted node shows both, as both route until
   * the pass ends). Sorted by parent, namespace, name; watches by GVR, node
   * id, committed first.
   */
  declaredWatches(): InstanceWatches[] {
    const out: InstanceWatches[] = [];
    for (const byInstance of this.instances.values()) {
      for (const state of byInstance.values()) {
        const watches: DeclaredWatch[] = [];
        for (const entry of state.committed.values()) if (entry.indexed) watches.push(declaredWatch(entry));
        for (const [nodeId, entry] of state.pending) {
          if (entry.indexed && state.committed.get(nodeId) !== entry) watches.push(declaredWatch(entry));
        }
        if (watches.length === 0) continue;
        if (watches.length > 1) watches.sort(compareWatches);
        out.push({ parent: state.parentKey, namespace: state.instance.namespace, name: state.instance.name, watches });
      }
    }
    return out.sort((a, b) => compare(a.parent, b.parent) || compare(a.namespace, b.namespace) || compare(a.name, b.name));
  }

  /**
   * Which instances an event for `query` (an add or delete with these
   * labels) is routed to, and why each other request of its GVR does not
   * match. It walks every request of the GVR in the indexes, the same set
   * {@link routeEvent} searches, and applies the rules the indexes encode
   * (scalar: namespace and name; collection: namespace filter, then
   * selector), so its routes are exactly the instances `routeEvent` would
   * enqueue. An update reaches the union of the answers for its old and new
   * labels. Cost: linear in the GVR's requests; for diagnostics, not the
   * event path.
   */
  explain(query: RouteQuery): RouteExplanation {
    const gvrWatches = this.gvrs.get(query.gvr);
    const routes: WatchRoute[] = [];
    const misses: WatchMiss[] = [];
    if (gvrWatches === undefined) return { routes, misses };
    for (const entry of gvrWatches.entries) {
      const miss = entryMiss(entry, query);
      const who = { parent: entry.instance.parentKey, instance: entry.instance.instanceKey, watch: declaredWatch(entry) };
      if (miss === undefined) routes.push(who);
      else misses.push({ ...who, ...miss });
    }
    const order = (a: WatchRoute, b: WatchRoute): number =>
      compare(a.parent, b.parent) || compare(a.instance, b.instance) || compareWatches(a.watch as DeclaredWatch, b.watch as DeclaredWatch);
    routes.sort(order);
    misses.sort(order);
    return { routes, misses };
  }

  private async watchFor(watcher: ScopedInstanceWatcher, req: WatchRequest): Promise<void> {
    validateWatchRequest(req, watcher.state.describe());
    const state = this.attach(watcher, req.nodeId);
    state.lastWatchAt = ++this.activityCount;
    const entry = this.record(state, req);
    this.gvrs.flush();
    const gvrWatches = this.gvrs.get(entry.gvr)!;
    try {
      await this.gvrs.acquire(gvrWatches);
    } catch (err) {
      // kro-diff: a failed ensure rejects `watch()` with WatchUnavailableError, so the handler learns that its watch is
      // missing; kro logs the ensure error and reports success.
      throw new WatchUnavailableError(state.describe(), req.nodeId, entry.gvr, err);
    }
  }

  private doneFor(watcher: ScopedInstanceWatcher, commit: boolean): void {
    const state = watcher.state;
    if (state.removed) return;
    const current = this.instances.get(state.parentKey)?.get(state.instanceKey);
    // Not registered: the state was dropped while empty, so there is nothing to settle.
    if (current === undefined) return;
    watcher.state = current;
    this.settle(current, commit);
  }

  private endPass(parentGVR: GroupVersionResource, instance: NamespacedName, since: number, commit: boolean): void {
    const current = this.instances.get(gvrKey(parentGVR))?.get(namespacedNameKey(instance));
    // No state: nothing committed and nothing declared, so nothing to settle.
    if (current === undefined) return;
    if (current.lastDoneAt > since && current.lastWatchAt < current.lastDoneAt) return; // settled by the handler
    this.settle(current, commit);
  }

  /** Ends the instance's cycle: `commit` makes it the committed set, else it is discarded. */
  private settle(current: InstanceState, commit: boolean): void {
    current.lastDoneAt = ++this.activityCount;
    if (commit) {
      for (const [nodeId, entry] of current.committed) {
        if (current.pending.get(nodeId) !== entry) this.unindex(entry);
      }
      current.committed = current.pending;
    } else {
      // Entries of the failed cycle go; committed ones were never taken out, so they stay.
      for (const [nodeId, entry] of current.pending) {
        if (current.committed.get(nodeId) !== entry) this.unindex(entry);
      }
    }
    current.pending = new Map();
    if (this.log.isLevelEnabled('debug')) {
      this.log.debug({ parent: current.parentKey, instance: current.instanceKey, commit, requests: current.committed.size }, 'cycle done');
    }
    if (current.isEmpty()) this.unregister(current);
    this.gvrs.flush();
  }

  /** The registered state a watcher acts on, registering or adopting one if needed. */
  private attach(watcher: ScopedInstanceWatcher, nodeId: string): InstanceState {
    const state = watcher.state;
    // kro-diff: a watcher of a removed instance throws InstanceRemovedError, so no watches stay alive for an instance
    // that no longer exists; kro silently re-creates the state of a removed instance when a stale watcher calls Watch.
    if (state.removed) throw new InstanceRemovedError(state.describe(), nodeId);
    const current = this.instances.get(state.parentKey)?.get(state.instanceKey);
    if (current === state) return state;
    if (current !== undefined) {
      watcher.state = current;
      return current;
    }
    this.register(state);
    return state;
  }

  /** Puts the request in the instance's current cycle and, if new, in the indexes. */
  private record(state: InstanceState, req: WatchRequest): WatchEntry {
    const fresh = createWatchEntry(state, req);
    const nodeId = fresh.nodeId;
    const current = state.pending.get(nodeId);
    if (current !== undefined && current.target === fresh.target) return current;
    const committed = state.committed.get(nodeId);
    const entry = committed !== undefined && committed.target === fresh.target ? committed : fresh;
    // Index the new target before dropping the displaced one, so a re-target
    // within one GVR never lets its request count touch zero (a release and
    // an immediate re-ensure would restart the informer).
    if (entry === fresh) this.index(fresh);
    state.pending.set(nodeId, entry);
    if (current !== undefined && current !== committed) this.unindex(current);
    if (this.log.isLevelEnabled('debug')) {
      this.log.debug(
        {
          parent: state.parentKey,
          instance: state.instanceKey,
          nodeId,
          gvr: entry.gvrKey,
          target: entry.selector === undefined ? 'scalar' : 'collection',
        },
        'watch requested',
      );
    }
    return entry;
  }

  private index(entry: WatchEntry): void {
    if (!this.gvrs.open(entry).add(entry)) return;
    entry.indexed = true;
    if (entry.selector === undefined) this.scalarCount++;
    else this.collectionCount++;
    if (entry.instance.indexedCount++ === 0) this.activeInstances++;
  }

  private unindex(entry: WatchEntry): void {
    if (!entry.indexed) return;
    entry.indexed = false;
    const gvrWatches = this.gvrs.get(entry.gvr);
    if (gvrWatches === undefined || !gvrWatches.remove(entry)) return;
    if (entry.selector === undefined) this.scalarCount--;
    else this.collectionCount--;
    if (--entry.instance.indexedCount === 0) this.activeInstances--;
    if (gvrWatches.entries.size === 0) this.gvrs.retire(gvrWatches);
  }

  /** The kind of `gvrWatches` is available again: every instance with a request on it runs, once. */
  private wakeParked(gvrWatches: GvrWatches): void {
    const stamp = ++this.stamp;
    const woken: InstanceState[] = [];
    for (const entry of gvrWatches.entries) {
      const state = entry.instance;
      if (state.routedStamp === stamp) continue;
      state.routedStamp = stamp;
      woken.push(state);
    }
    for (const state of woken) {
      try {
        this.enqueue(state.parentGVR, state.instance);
      } catch (err) {
        this.log.error({ err, parent: state.parentKey, instance: state.instanceKey }, 'enqueue failed');
      }
    }
  }

  /** A request whose GVR could not be watched leaves its instance and the indexes. */
  private dropFailed(entry: WatchEntry): void {
    const owner = entry.instance;
    if (owner.pending.get(entry.nodeId) === entry) owner.pending.delete(entry.nodeId);
    if (owner.committed.get(entry.nodeId) === entry) owner.committed.delete(entry.nodeId);
    this.unindex(entry);
  }

  private dropState(state: InstanceState): void {
    state.removed = true;
    for (const entry of state.committed.values()) this.unindex(entry);
    for (const entry of state.pending.values()) this.unindex(entry);
    state.committed = new Map();
    state.pending = new Map();
  }

  private register(state: InstanceState): void {
    let byInstance = this.instances.get(state.parentKey);
    if (byInstance === undefined) {
      byInstance = new Map();
      this.instances.set(state.parentKey, byInstance);
    }
    byInstance.set(state.instanceKey, state);
  }

  private unregister(state: InstanceState): void {
    const byInstance = this.instances.get(state.parentKey);
    if (byInstance?.get(state.instanceKey) !== state) return;
    byInstance.delete(state.instanceKey);
    if (byInstance.size === 0) this.instances.delete(state.parentKey);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareWatches(a: DeclaredWatch, b: DeclaredWatch): number {
  return compare(a.gvr, b.gvr) || compare(a.nodeId, b.nodeId) || Number(b.committed) - Number(a.committed);
}
