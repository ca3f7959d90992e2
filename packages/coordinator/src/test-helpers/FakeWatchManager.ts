import { gvrKey, type GroupVersionResource, type Informer, type WatchManager } from '@protean/core';

/** One call the coordinator made on the watchManager. */
export interface RegistryCall {
  readonly op: 'ensure' | 'release';
  readonly gvr: string;
  readonly ownerId: string;
}

interface PendingSync {
  readonly gvr: string;
  readonly ownerId: string;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

/**
 * A {@link WatchManager} with the owner-set semantics of `InformerWatchManager`
 * (ensure adds the owner at once, a failed sync drops only that owner, the
 * "informer" runs while any owner remains) and no informers. In `auto` mode
 * syncs succeed on the next microtask unless a failure was planned with
 * {@link failNext}; in `manual` mode every sync waits for {@link resolveSync}
 * or {@link rejectSync}.
 *
 * Easy to get wrong: `anomalies` collects contract breaches by the caller
 * (releasing a GVR it does not own); tests should assert it stays empty.
 */
export class FakeWatchManager implements WatchManager {
  readonly calls: RegistryCall[] = [];
  readonly anomalies: string[] = [];
  private readonly owners = new Map<string, Set<string>>();
  private readonly pending: PendingSync[] = [];
  private readonly failures = new Map<string, Error>();

  constructor(public mode: 'auto' | 'manual' = 'auto') {}

  ensureWatch(gvr: GroupVersionResource, ownerId: string): Promise<void> {
    const key = gvrKey(gvr);
    this.calls.push({ op: 'ensure', gvr: key, ownerId });
    this.ownersOf(key).add(ownerId);
    const planned = this.failures.get(key);
    if (planned !== undefined) {
      this.failures.delete(key);
      return Promise.resolve().then(() => {
        this.drop(key, ownerId);
        throw planned;
      });
    }
    if (this.mode === 'auto') return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.pending.push({
        gvr: key,
        ownerId,
        resolve,
        reject: (err) => {
          this.drop(key, ownerId);
          reject(err);
        },
      });
    });
  }

  releaseWatch(gvr: GroupVersionResource, ownerId: string): void {
    const key = gvrKey(gvr);
    this.calls.push({ op: 'release', gvr: key, ownerId });
    if (!this.owners.get(key)?.has(ownerId)) this.anomalies.push(`release of ${key} by non-owner ${ownerId}`);
    this.drop(key, ownerId);
  }

  getInformer(): Informer | undefined {
    return undefined;
  }

  /** Number of GVRs with at least one owner (a running informer in InformerWatchManager). */
  activeWatchCount(): number {
    return this.owners.size;
  }

  shutdown(): void {
    this.owners.clear();
  }

  /** True while `ownerId` (any owner when omitted) owns the GVR. */
  isWatching(gvr: GroupVersionResource, ownerId?: string): boolean {
    const owners = this.owners.get(gvrKey(gvr));
    if (owners === undefined) return false;
    return ownerId === undefined ? owners.size > 0 : owners.has(ownerId);
  }

  /** Makes the next `ensureWatch` of `gvr` fail with `err` (in both modes). */
  failNext(gvr: GroupVersionResource, err: Error): void {
    this.failures.set(gvrKey(gvr), err);
  }

  /** Syncs waiting in manual mode. */
  pendingSyncs(gvr?: GroupVersionResource): number {
    const key = gvr === undefined ? undefined : gvrKey(gvr);
    return this.pending.filter((p) => key === undefined || p.gvr === key).length;
  }

  /** Completes the oldest waiting sync of `gvr`. */
  resolveSync(gvr: GroupVersionResource): void {
    this.take(gvr).resolve();
  }

  /** Fails the oldest waiting sync of `gvr`; its owner is dropped as InformerWatchManager does. */
  rejectSync(gvr: GroupVersionResource, err: Error): void {
    this.take(gvr).reject(err);
  }

  /** Calls of one kind, optionally for one GVR. */
  count(op: RegistryCall['op'], gvr?: GroupVersionResource): number {
    const key = gvr === undefined ? undefined : gvrKey(gvr);
    return this.calls.filter((c) => c.op === op && (key === undefined || c.gvr === key)).length;
  }

  private take(gvr: GroupVersionResource): PendingSync {
    const key = gvrKey(gvr);
    const i = this.pending.findIndex((p) => p.gvr === key);
    if (i < 0) throw new Error(`no pending sync for ${key}`);
    return this.pending.splice(i, 1)[0]!;
  }

  private ownersOf(key: string): Set<string> {
    let owners = this.owners.get(key);
    if (owners === undefined) {
      owners = new Set();
      this.owners.set(key, owners);
    }
    return owners;
  }

  private drop(key: string, ownerId: string): void {
    const owners = this.owners.get(key);
    if (owners === undefined) return;
    owners.delete(ownerId);
    if (owners.size === 0) this.owners.delete(key);
  }
}
