import {
  gvrKey,
  namespacedNameKey,
  type GroupVersionResource,
  type InstancePass,
  type InstanceWatcher,
  type NamespacedName,
  type WatchCoordinator,
  type WatchCoordinatorDeps,
  type WatchEvent,
  type WatchRequest,
} from '../index.js';
import { type EnqueueFunc } from '../events.js';

/** One recorded call of a {@link FakeWatchCoordinator}, or the end of one of its passes. */
export type FakeWatchCoordinatorCall =
  | { readonly op: 'routeEvent'; readonly event: WatchEvent }
  | { readonly op: 'forInstance'; readonly parentGVR: GroupVersionResource; readonly instance: NamespacedName }
  | { readonly op: 'beginPass'; readonly parentGVR: GroupVersionResource; readonly instance: NamespacedName }
  | {
      readonly op: 'endPass';
      readonly parentGVR: GroupVersionResource;
      readonly instance: NamespacedName;
      readonly commit: boolean;
    }
  | { readonly op: 'removeInstance'; readonly parentGVR: GroupVersionResource; readonly instance: NamespacedName }
  | { readonly op: 'removeParentGVR'; readonly parentGVR: GroupVersionResource };

/** An instance of a parent GVR, as the coordinator's calls name it. */
export interface FakeInstanceRef {
  readonly parentGVR: GroupVersionResource;
  readonly instance: NamespacedName;
}

/** What a watcher or pass of a {@link FakeWatchCoordinator} reports to it. Internal to the fake. */
interface FakeWatcherHost {
  watched(ref: FakeInstanceRef, req: WatchRequest): void;
  settled(ref: FakeInstanceRef, commit: boolean): void;
  ended(pass: FakeInstancePass, commit: boolean): void;
}

/**
 * The watcher {@link FakeWatchCoordinator.forInstance} hands out: records
 * what is declared on it; `watch` resolves at once.
 */
export class FakeInstanceWatcher implements InstanceWatcher {
  /** The requests declared, in order. */
  readonly watches: WatchRequest[] = [];
  /** The arguments of every `done` call, in order. */
  readonly doneCalls: boolean[] = [];

  constructor(
    protected readonly host: FakeWatcherHost,
    readonly parentGVR: GroupVersionResource,
    readonly instance: NamespacedName,
  ) {}

  watch(req: WatchRequest): Promise<void> {
    this.watches.push(req);
    this.host.watched(this, req);
    return Promise.resolve();
  }

  done(commit: boolean): void {
    this.doneCalls.push(commit);
    this.host.settled(this, commit);
  }
}

/**
 * The pass {@link FakeWatchCoordinator.beginPass} hands out (a handler's
 * `ctx.watcher`): a {@link FakeInstanceWatcher} that also records how the
 * controller ended it.
 */
export class FakeInstancePass extends FakeInstanceWatcher implements InstancePass {
  /** The arguments of every `end` call, in order: a controller ends each pass exactly once. */
  readonly endCalls: boolean[] = [];

  /** @param startedAt - the coordinator's activity count when the pass began. */
  constructor(
    host: FakeWatcherHost,
    parentGVR: GroupVersionResource,
    instance: NamespacedName,
    readonly startedAt: number,
  ) {
    super(host, parentGVR, instance);
  }

  end(commit: boolean): void {
    this.endCalls.push(commit);
    this.host.ended(this, commit);
  }

  /** True once `end` was called. */
  ended(): boolean {
    return this.endCalls.length > 0;
  }
}

interface InstanceWatches {
  readonly ref: FakeInstanceRef;
  /** The committed set, by node id. */
  committed: Map<string, WatchRequest>;
  /** The open cycle: declared since the last settle, by node id. */
  readonly cycle: Map<string, WatchRequest>;
  lastWatchAt: number;
  lastSettleAt: number;
}

/**
 * A {@link WatchCoordinator} that routes nothing, for testing a controller
 * without `@protean/coordinator`: it records every call (`calls`, in
 * order, with the end of each pass), and hands out recording watchers
 * ({@link FakeInstanceWatcher}) and passes ({@link FakeInstancePass}) whose
 * `watch` resolves at once. {@link enqueue} plays a watched child changing:
 * it calls the `enqueue` the coordinator was built with.
 *
 * `instanceWatchCount` and `watchRequestCount` follow the watcher
 * contracts in a simple model: requests declared on any watcher or pass of
 * an instance form its open cycle; `done(true)` makes the cycle the
 * committed set, `done(false)` drops the cycle; a pass's `end(commit)`
 * does the same unless the cycle was settled during the pass with nothing
 * declared since; `removeInstance` and `removeParentGVR` forget the
 * instances. A count covers committed and open requests (one per node id).
 *
 * Easy to get wrong: a watcher or pass taken before `removeInstance` still
 * works and brings the instance back (the real coordinator rejects a stale
 * watcher's `watch`); and `routeEvent` only records, it never enqueues.
 */
export class FakeWatchCoordinator implements WatchCoordinator {
  readonly calls: FakeWatchCoordinatorCall[] = [];
  /** Every pass handed out by `beginPass`, oldest first. */
  readonly passes: FakeInstancePass[] = [];
  /** Every watcher handed out by `forInstance`, oldest first. */
  readonly watchers: FakeInstanceWatcher[] = [];
  private readonly enqueueFn: EnqueueFunc;
  private readonly instances = new Map<string, InstanceWatches>();
  /** Counts every `watch` and `done`, so a pass can tell whether its cycle was settled during it. */
  private activity = 0;
  private readonly host: FakeWatcherHost = {
    watched: (ref, req) => this.watched(ref, req),
    settled: (ref, commit) => this.settled(ref, commit),
    ended: (pass, commit) => this.ended(pass, commit),
  };

  /** Takes the deps a `WatchCoordinatorFactory` is given; only `enqueue` is used. */
  constructor(deps: Partial<WatchCoordinatorDeps> = {}) {
    this.enqueueFn = deps.enqueue ?? (() => {});
  }

  routeEvent(event: WatchEvent): void {
    this.calls.push({ op: 'routeEvent', event });
  }

  forInstance(parentGVR: GroupVersionResource, instance: NamespacedName): FakeInstanceWatcher {
    const ref = refOf(parentGVR, instance);
    this.calls.push({ op: 'forInstance', ...ref });
    const watcher = new FakeInstanceWatcher(this.host, ref.parentGVR, ref.instance);
    this.watchers.push(watcher);
    return watcher;
  }

  beginPass(parentGVR: GroupVersionResource, instance: NamespacedName): FakeInstancePass {
    const ref = refOf(parentGVR, instance);
    this.calls.push({ op: 'beginPass', ...ref });
    const pass = new FakeInstancePass(this.host, ref.parentGVR, ref.instance, this.activity);
    this.passes.push(pass);
    return pass;
  }

  removeInstance(parentGVR: GroupVersionResource, instance: NamespacedName): void {
    const ref = refOf(parentGVR, instance);
    this.calls.push({ op: 'removeInstance', ...ref });
    this.instances.delete(keyOf(ref));
  }

  removeParentGVR(parentGVR: GroupVersionResource): void {
    this.calls.push({ op: 'removeParentGVR', parentGVR });
    const parent = gvrKey(parentGVR);
    for (const [key, watches] of this.instances) {
      if (gvrKey(watches.ref.parentGVR) === parent) this.instances.delete(key);
    }
  }

  instanceWatchCount(): number {
    let count = 0;
    for (const watches of this.instances.values()) if (requestsOf(watches).size > 0) count++;
    return count;
  }

  watchRequestCount(): { scalar: number; collection: number } {
    let scalar = 0;
    let collection = 0;
    for (const watches of this.instances.values()) {
      for (const req of requestsOf(watches).values()) {
        if (req.selector === undefined) scalar++;
        else collection++;
      }
    }
    return { scalar, collection };
  }

  /** Calls the `enqueue` the coordinator was built with, as a change of a watched child would. */
  enqueue(parentGVR: GroupVersionResource, instance: NamespacedName): void {
    this.enqueueFn(parentGVR, instance);
  }

  /** The recorded calls of one kind, in order. */
  callsOf<K extends FakeWatchCoordinatorCall['op']>(op: K): Extract<FakeWatchCoordinatorCall, { op: K }>[] {
    return this.calls.filter((c): c is Extract<FakeWatchCoordinatorCall, { op: K }> => c.op === op);
  }

  /** The events passed to `routeEvent`, in order. */
  routedEvents(): WatchEvent[] {
    return this.callsOf('routeEvent').map((c) => c.event);
  }

  /** The instances passed to `removeInstance`, in order, as `namespace/name` keys. */
  removedInstances(): string[] {
    return this.callsOf('removeInstance').map((c) => namespacedNameKey(c.instance));
  }

  /** The passes begun for one instance, oldest first. */
  passesOf(instance: NamespacedName): FakeInstancePass[] {
    const key = namespacedNameKey(instance);
    return this.passes.filter((p) => namespacedNameKey(p.instance) === key);
  }

  /** The requests `instance` of `parentGVR` holds, committed and open (one per node id). */
  requestsOf(parentGVR: GroupVersionResource, instance: NamespacedName): WatchRequest[] {
    const watches = this.instances.get(keyOf(refOf(parentGVR, instance)));
    return watches === undefined ? [] : [...requestsOf(watches).values()];
  }

  private watched(ref: FakeInstanceRef, req: WatchRequest): void {
    const watches = this.watchesOf(ref);
    watches.cycle.set(req.nodeId, req);
    watches.lastWatchAt = ++this.activity;
  }

  private settled(ref: FakeInstanceRef, commit: boolean): void {
    const watches = this.watchesOf(ref);
    this.settle(watches, commit);
    watches.lastSettleAt = ++this.activity;
  }

  private ended(pass: FakeInstancePass, commit: boolean): void {
    this.calls.push({ op: 'endPass', parentGVR: pass.parentGVR, instance: pass.instance, commit });
    const watches = this.instances.get(keyOf(pass));
    if (watches === undefined) return;
    // Settled by the handler during the pass, and nothing declared since: left as the handler settled it.
    if (watches.lastSettleAt > pass.startedAt && watches.lastWatchAt < watches.lastSettleAt) return;
    this.settle(watches, commit);
  }

  private settle(watches: InstanceWatches, commit: boolean): void {
    if (commit) watches.committed = new Map(watches.cycle);
    watches.cycle.clear();
  }

  private watchesOf(ref: FakeInstanceRef): InstanceWatches {
    const key = keyOf(ref);
    let watches = this.instances.get(key);
    if (watches === undefined) {
      watches = { ref, committed: new Map(), cycle: new Map(), lastWatchAt: 0, lastSettleAt: 0 };
      this.instances.set(key, watches);
    }
    return watches;
  }
}

function refOf(parentGVR: GroupVersionResource, instance: NamespacedName): FakeInstanceRef {
  return {
    parentGVR: { group: parentGVR.group, version: parentGVR.version, resource: parentGVR.resource },
    instance: { namespace: instance.namespace, name: instance.name },
  };
}

function keyOf(ref: FakeInstanceRef): string {
  return `${gvrKey(ref.parentGVR)}|${namespacedNameKey(ref.instance)}`;
}

function requestsOf(watches: InstanceWatches): Map<string, WatchRequest> {
  return new Map([...watches.committed, ...watches.cycle]);
}
