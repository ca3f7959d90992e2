import type { InstanceWatches, RateLimitingQueue, WatchCoordinator, WatchManager } from '../contracts/index.js';
import { gvrKey, parseGvrKey, type GroupVersionResource, type ObjectIdentifiers } from '../gvr.js';
import type { ControllerStatus, InformerStatusEntry, InFlightPass, QueueStatus, RecentFailure } from './ControllerStatus.js';
import type { WorkerActivity } from './WorkerActivity.js';

/** What {@link buildControllerStatus} reads; the DynamicController hands it its parts. */
export interface StatusSources {
  /** `clock.now()`. */
  readonly nowMs: number;
  /** Maps a `clock.now()` value to a wall-clock ISO string. */
  readonly wallTime: (clockMs: number) => string;
  readonly started: boolean;
  readonly leading: boolean;
  /** Registered parent GVRs, each with whether its registration completed. */
  readonly parents: readonly { readonly gvr: GroupVersionResource; readonly confirmed: boolean }[];
  readonly watchManager: WatchManager;
  readonly watchCoordinator: WatchCoordinator;
  readonly queue: RateLimitingQueue<ObjectIdentifiers>;
  readonly activity: WorkerActivity;
  readonly workers: number;
  readonly reconcileTimeoutMs: number;
}

/** The `queue` part of the status: cheap enough for a liveness probe (no walk over instances or informers). */
export function buildQueueStatus(
  s: Omit<StatusSources, 'parents' | 'watchManager' | 'watchCoordinator' | 'started' | 'leading'>,
): QueueStatus {
  const inFlight: InFlightPass[] = s.activity.inFlight().map(({ item, startedAtMs, trace }) => ({
    parent: gvrKey(item.gvr),
    namespace: item.namespace,
    name: item.name,
    startedAt: s.wallTime(startedAtMs),
    ageMs: Math.max(0, s.nowMs - startedAtMs),
    ...(trace === undefined ? {} : { traceId: trace.traceId, spanId: trace.spanId }),
  }));
  const recentFailures: RecentFailure[] = s.activity.recentFailures().map((f) => ({
    parent: gvrKey(f.item.gvr),
    namespace: f.item.namespace,
    name: f.item.name,
    at: s.wallTime(f.atMs),
    error: f.error,
    ...(f.reason === undefined ? {} : { reason: f.reason }),
    failures: f.failures,
    ...(f.nextRetryAtMs === undefined ? {} : { nextRetryAt: s.wallTime(f.nextRetryAtMs) }),
    dropped: f.dropped,
    ...(f.trace === undefined ? {} : { traceId: f.trace.traceId, spanId: f.trace.spanId }),
  }));
  const byPriority = s.queue.depthByPriority?.();
  return {
    depth: s.queue.len(),
    ...(byPriority === undefined ? {} : { depthByPriority: byPriority }),
    workers: s.workers,
    reconcileTimeoutMs: s.reconcileTimeoutMs,
    inFlight,
    recentFailures,
  };
}

/** Builds `DynamicController.status()`: plain data, metadata only. */
export function buildControllerStatus(s: StatusSources): ControllerStatus {
  const declared = s.watchCoordinator.declaredWatches?.() ?? [];
  const parents = s.parents.map(({ gvr, confirmed }) => {
    const informer = s.watchManager.getInformer(gvr);
    return { gvr: gvrKey(gvr), synced: confirmed && (informer?.hasSynced() ?? false), instances: informer?.list().length ?? 0 };
  });
  return {
    generatedAt: s.wallTime(s.nowMs),
    started: s.started,
    leading: s.leading,
    parents,
    informers: informerEntries(s, declared),
    instances: instanceEntries(s, declared),
    queue: buildQueueStatus(s),
  };
}

function informerEntries(s: StatusSources, declared: readonly InstanceWatches[]): InformerStatusEntry[] {
  // Instance keys by watched GVR, from the declared watches.
  const watchers = new Map<string, Set<string>>();
  for (const inst of declared) {
    const who = `${inst.parent} ${inst.namespace === '' ? inst.name : `${inst.namespace}/${inst.name}`}`;
    for (const w of inst.watches) {
      let set = watchers.get(w.gvr);
      if (set === undefined) watchers.set(w.gvr, (set = new Set()));
      set.add(who);
    }
  }
  const entry = (gvr: GroupVersionResource, owners: readonly string[], synced: boolean | undefined): InformerStatusEntry | undefined => {
    const informer = s.watchManager.getInformer(gvr);
    if (informer === undefined) return undefined;
    const key = gvrKey(gvr);
    return {
      gvr: key,
      objects: informer.list().length,
      owners: [...owners],
      watchers: [...(watchers.get(key) ?? [])].sort(),
      synced: synced ?? informer.hasSynced(),
      health: informer.health(),
    };
  };
  const report = s.watchManager.health?.();
  if (report !== undefined) {
    return report.flatMap((w) => entry(w.gvr, w.owners, w.synced) ?? []);
  }
  // Without a health report: the parents' informers and those of the declared GVRs, owners unknown.
  const seen = new Set<string>();
  const out: InformerStatusEntry[] = [];
  const add = (gvr: GroupVersionResource): void => {
    const key = gvrKey(gvr);
    if (seen.has(key)) return;
    seen.add(key);
    const e = entry(gvr, [], undefined);
    if (e !== undefined) out.push(e);
  };
  for (const p of s.parents) add(p.gvr);
  for (const inst of declared) for (const w of inst.watches) add(parseGvrKey(w.gvr));
  return out;
}

function instanceEntries(s: StatusSources, declared: readonly InstanceWatches[]): InstanceWatches[] {
  const byKey = new Map<string, InstanceWatches>();
  const keyOf = (parent: string, namespace: string, name: string): string => `${parent}\u0000${namespace}\u0000${name}`;
  for (const inst of declared) byKey.set(keyOf(inst.parent, inst.namespace, inst.name), inst);
  for (const { gvr } of s.parents) {
    const parent = gvrKey(gvr);
    for (const obj of s.watchManager.getInformer(gvr)?.list() ?? []) {
      const namespace = obj.metadata.namespace ?? '';
      const key = keyOf(parent, namespace, obj.metadata.name);
      if (!byKey.has(key)) byKey.set(key, { parent, namespace, name: obj.metadata.name, watches: [] });
    }
  }
  return [...byKey.values()].sort((a, b) => compare(a.parent, b.parent) || compare(a.namespace, b.namespace) || compare(a.name, b.name));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
