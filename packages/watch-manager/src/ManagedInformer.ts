import type { Clock, GroupVersionResource, ObjectCacheOptions, TimerHandle } from '@protean/core';
import type { Informer } from './Informer.js';
import { UnfixableStreak } from './UnfixableStreak.js';

/** A caller of `ensureWatch`/`ensureObjects` waiting for the informer to sync. */
export interface SyncWaiter {
  readonly ownerId: string;
  /** Resolves only once the informer holds full objects. */
  readonly objects: boolean;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
  deadline: TimerHandle | undefined;
}

/**
 * One informer an {@link InformerWatchManager} runs for a GVR: its owners
 * (a set), the callers waiting for it to sync, the owners that keep full
 * objects, and what its failures before the first sync have done so far.
 *
 * Easy to get wrong: an entry outlives its place in the manager (a
 * released informer may still be delivering); the manager checks that an
 * entry is still the one it holds before acting on its callbacks.
 */
export class ManagedInformer {
  readonly abort = new AbortController();
  readonly owners = new Set<string>();
  readonly waiters = new Set<SyncWaiter>();
  /** The manager saw it synced. */
  synced = false;
  /** Its failure to sync was counted in the failure memory (once per informer). */
  failureRecorded = false;
  lastError: Error | undefined;
  /** Failures in a row that waiting will not fix (TLS verification, connection refused). */
  readonly streak = new UnfixableStreak();
  /** When the streak is due to have lasted `failFastMs`. */
  failFastTimer: TimerHandle | undefined;
  /** The owners that asked for full objects, with what they asked. */
  readonly objectOwners = new Map<string, ObjectCacheOptions>();

  constructor(
    readonly key: string,
    readonly gvr: GroupVersionResource,
    readonly informer: Informer,
    /** What the informer's source was last built with: full objects with these options, or metadata only (undefined). */
    public objects: ObjectCacheOptions | undefined,
    private readonly clock: Clock,
  ) {}

  /** The informer holds full objects, with the transform last asked for (no switch still listing). */
  holdsAskedObjects(): boolean {
    return this.informer.holdsObjects() && !this.informer.isSwitching();
  }

  /** Waits until the informer synced (with full objects: `objects`), or `onTimeout` after `timeoutMs`. */
  wait(ownerId: string, objects: boolean, timeoutMs: number, onTimeout: (waiter: SyncWaiter) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: SyncWaiter = { ownerId, objects, resolve, reject, deadline: undefined };
      waiter.deadline = this.clock.setTimeout(() => {
        waiter.deadline = undefined;
        if (this.waiters.has(waiter)) onTimeout(waiter);
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** The informer synced: resolves every waiter, but those that wait for full objects only once it holds them. */
  resolveWaiters(): void {
    const holdsObjects = this.holdsAskedObjects();
    for (const w of [...this.waiters]) {
      if (w.objects && !holdsObjects) continue; // until its switch to full objects (or to a new transform) has listed
      this.settle(w);
      w.resolve();
    }
  }

  /** Rejects the waiters of `ownerId` (every waiter when undefined) with `err`. */
  rejectWaiters(err: Error, ownerId?: string): void {
    for (const w of [...this.waiters]) {
      if (ownerId !== undefined && w.ownerId !== ownerId) continue;
      this.settle(w);
      w.reject(err);
    }
  }

  /** Why `ownerId` may not ask for full objects with `objects` now, if it may not. */
  transformConflict(ownerId: string, objects: ObjectCacheOptions): string | undefined {
    for (const [owner, asked] of this.objectOwners) {
      if (owner === ownerId || asked.transform === objects.transform) continue;
      return `owner ${JSON.stringify(owner)} keeps its objects with another transform; ${JSON.stringify(ownerId)} cannot ask for a different one`;
    }
    return undefined;
  }

  /** Why `objects` may not add its indexes to the informer, if it may not: a name indexed by another function. */
  indexConflict(objects: ObjectCacheOptions): string | undefined {
    for (const [name, fn] of Object.entries(objects.indexes ?? {})) {
      const current = this.informer.indexFuncOf(name);
      if (current !== undefined && current !== fn)
        return `index ${JSON.stringify(name)} is defined by another function already; give yours another name`;
    }
    return undefined;
  }

  private settle(waiter: SyncWaiter): void {
    this.waiters.delete(waiter);
    if (waiter.deadline !== undefined) this.clock.clearTimeout(waiter.deadline);
  }
}
