import type { Clock } from '../clock.js';
import type { RateLimitingQueue, WatchCoordinator, WatchManager } from '../contracts/index.js';
import type { ObjectIdentifiers } from '../gvr.js';
import { buildControllerStatus, buildQueueStatus } from './buildControllerStatus.js';
import type { ControllerStatus, ExplainTarget, Explanation, QueueStatus } from './ControllerStatus.js';
import { explainRouting } from './explainRouting.js';
import type { ParentRegistry } from './ParentRegistry.js';
import type { WorkerActivity } from './WorkerActivity.js';

/** What {@link StatusView} reads; all of it owned by the controller. */
export interface StatusViewDeps {
  readonly clock: Clock;
  readonly queue: RateLimitingQueue<ObjectIdentifiers>;
  readonly activity: WorkerActivity;
  readonly parents: ParentRegistry;
  readonly watchManager: WatchManager;
  readonly watchCoordinator: WatchCoordinator;
  readonly workers: number;
  readonly reconcileTimeoutMs: number;
  readonly isStarted: () => boolean;
  readonly isLeading: () => boolean;
}

/**
 * `DynamicController.status()`, `queueStatus()` and `explain()`: read-only
 * views over the controller's parts, metadata only. Times on the
 * controller's clock are shown as wall time through the offset taken when
 * the view was made.
 */
export class StatusView {
  /** `Date.now() - clock.now()` at construction. */
  private readonly wallOffsetMs: number;

  constructor(private readonly deps: StatusViewDeps) {
    // Wall time only to print the clock's instants as dates in status(); nothing is timed by it.
    // eslint-disable-next-line no-restricted-properties
    this.wallOffsetMs = Date.now() - deps.clock.now();
  }

  status(): ControllerStatus {
    const { deps } = this;
    return buildControllerStatus({
      ...this.queueSources(),
      started: deps.isStarted(),
      leading: deps.isLeading(),
      parents: deps.parents.entries(),
      watchManager: deps.watchManager,
      watchCoordinator: deps.watchCoordinator,
    });
  }

  queueStatus(): QueueStatus {
    return buildQueueStatus(this.queueSources());
  }

  explain(target: ExplainTarget): Explanation {
    const { deps } = this;
    return explainRouting(
      { watchManager: deps.watchManager, watchCoordinator: deps.watchCoordinator, isParent: (gvr) => deps.parents.has(gvr) },
      target,
    );
  }

  private queueSources(): Parameters<typeof buildQueueStatus>[0] {
    const { deps } = this;
    return {
      nowMs: deps.clock.now(),
      wallTime: (clockMs) => new Date(this.wallOffsetMs + clockMs).toISOString(),
      queue: deps.queue,
      activity: deps.activity,
      workers: deps.workers,
      reconcileTimeoutMs: deps.reconcileTimeoutMs,
    };
  }
}
