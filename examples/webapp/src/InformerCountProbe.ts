import { forwardEveryMember, gvrKey, type GroupVersionResource, type WatchManager, type WatchManagerFactory } from '@protean/core';

/** An informer the watch manager started or stopped, and how many run afterwards. */
export interface InformerChange {
  readonly gvr: GroupVersionResource;
  readonly change: 'started' | 'stopped';
  readonly active: number;
}

/**
 * Follows the controller's informers by decorating the watch manager
 * factory bound in the container (a supported swap point): it reports each
 * informer that starts or stops, and answers how many run and for which
 * GVRs. The controller keeps its watch manager private; this is how an
 * application observes it without reaching into the controller.
 *
 * Easy to get wrong: install it before the first `container.get(DynamicController)`;
 * the factory is called once, when the controller is built.
 */
export class InformerCountProbe {
  private watchManager: WatchManager | undefined;
  private readonly running = new Set<string>();

  constructor(private readonly onChange: (change: InformerChange) => void = () => {}) {}

  /** Number of running informers (0 before the controller is built). */
  count(): number {
    return this.watchManager?.activeWatchCount() ?? 0;
  }

  /** GVR keys of the running informers, sorted. */
  gvrs(): string[] {
    return [...this.running].sort();
  }

  /** Wraps `factory` so the watch manager it builds reports informer starts and stops. */
  wrap(factory: WatchManagerFactory): WatchManagerFactory {
    return (deps) => {
      const inner = factory(deps);
      this.watchManager = inner;
      const settle = (gvr: GroupVersionResource): void => {
        const key = gvrKey(gvr);
        const runs = inner.getInformer(gvr) !== undefined;
        if (runs === this.running.has(key)) return;
        if (runs) this.running.add(key);
        else this.running.delete(key);
        this.onChange({ gvr, change: runs ? 'started' : 'stopped', active: inner.activeWatchCount() });
      };
      // Every member named, so one the contract gains cannot be dropped here.
      return forwardEveryMember<WatchManager>({
        async ensureWatch(gvr, ownerId) {
          try {
            await inner.ensureWatch(gvr, ownerId);
          } finally {
            settle(gvr);
          }
        },
        ensureObjects:
          inner.ensureObjects === undefined
            ? undefined
            : async (gvr, ownerId, options) => {
                try {
                  await inner.ensureObjects!(gvr, ownerId, options);
                } finally {
                  settle(gvr);
                }
              },
        whenAvailable: inner.whenAvailable === undefined ? undefined : (refusal, signal) => inner.whenAvailable!(refusal, signal),
        releaseWatch(gvr, ownerId) {
          inner.releaseWatch(gvr, ownerId);
          settle(gvr);
        },
        getInformer: (gvr) => inner.getInformer(gvr),
        activeWatchCount: () => inner.activeWatchCount(),
        shutdown: () => inner.shutdown(),
        // Passed through: the health rules, /readyz and the status page read it.
        health: inner.health === undefined ? undefined : () => inner.health?.() ?? [],
      });
    };
  }
}
