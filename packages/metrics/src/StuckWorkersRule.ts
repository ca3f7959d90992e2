import type { InFlightPass, QueueStatus } from '@protean/core/internal';

/** Thresholds of {@link StuckWorkersRule}; every field has a default. */
export interface StuckWorkersOptions {
  /**
   * How long past `reconcileTimeoutMs` a pass may still run before it counts
   * as stuck. At the timeout the controller aborts the pass's `ctx.signal`;
   * a handler that honours it returns within moments, one that ignores it
   * (a loop without checks, a request without the signal) keeps its worker.
   * Default 60 000.
   */
  readonly stuckGraceMs?: number;
  /**
   * With `reconcileTimeoutMs: 0` (no per-pass limit) a pass older than this
   * counts as stuck. Default 0: with no limit the rule is off, since the
   * configuration allows passes of any length.
   */
  readonly stuckAfterMs?: number;
}

/** What {@link StuckWorkersRule.assess} finds. */
export interface StuckWorkersVerdict {
  /** Every worker is busy with a stuck pass: the process cannot make progress. */
  readonly stuck: boolean;
  /** The age from which a pass counts as stuck; undefined when the rule is off. */
  readonly thresholdMs: number | undefined;
  /** The passes older than the threshold, oldest first. */
  readonly stuckPasses: readonly InFlightPass[];
  /** Why it failed, naming the stuck instances and their ages; undefined when not stuck. */
  readonly reason: string | undefined;
}

/**
 * The liveness rule for the workers (`/healthz` check `workers-progressing`):
 * it fails when every worker (`config.workers`) is busy with a pass older
 * than `reconcileTimeoutMs + stuckGraceMs` (or `stuckAfterMs` when there is
 * no timeout). Some workers stuck and others free still make progress, so
 * that is not a liveness failure; a standby (leader election) runs no pass
 * and never fails it.
 *
 * Easy to get wrong: ages are on the controller's clock (`queueStatus()`),
 * so a test moves them with the clock it gave the controller.
 */
export class StuckWorkersRule {
  readonly stuckGraceMs: number;
  readonly stuckAfterMs: number;

  constructor(options: StuckWorkersOptions = {}) {
    this.stuckGraceMs = nonNegative('stuckGraceMs', options.stuckGraceMs ?? 60_000);
    this.stuckAfterMs = nonNegative('stuckAfterMs', options.stuckAfterMs ?? 0);
  }

  /** The age from which a pass counts as stuck under `reconcileTimeoutMs`; undefined when the rule is off. */
  thresholdMs(reconcileTimeoutMs: number): number | undefined {
    if (reconcileTimeoutMs > 0) return reconcileTimeoutMs + this.stuckGraceMs;
    return this.stuckAfterMs > 0 ? this.stuckAfterMs : undefined;
  }

  assess(queue: QueueStatus): StuckWorkersVerdict {
    const thresholdMs = this.thresholdMs(queue.reconcileTimeoutMs);
    if (thresholdMs === undefined) return { stuck: false, thresholdMs, stuckPasses: [], reason: undefined };
    const stuckPasses = queue.inFlight.filter((p) => p.ageMs >= thresholdMs);
    const stuck = queue.workers > 0 && stuckPasses.length >= queue.workers;
    if (!stuck) return { stuck, thresholdMs, stuckPasses, reason: undefined };
    const limit =
      queue.reconcileTimeoutMs > 0
        ? `reconcileTimeoutMs ${queue.reconcileTimeoutMs} ms + stuckGraceMs ${this.stuckGraceMs} ms`
        : `stuckAfterMs ${this.stuckAfterMs} ms`;
    const passes = stuckPasses
      .map((p) => `${p.parent} ${p.namespace === '' ? p.name : `${p.namespace}/${p.name}`} for ${Math.round(p.ageMs / 1000)} s`)
      .join(', ');
    return {
      stuck,
      thresholdMs,
      stuckPasses,
      reason: `every worker (${queue.workers}) is busy with a pass older than ${limit}: ${passes}`,
    };
  }
}

function nonNegative(name: string, value: number): number {
  if (!(value >= 0) || !Number.isFinite(value))
    throw new RangeError(`StuckWorkersRule: ${name} must be a finite number >= 0, got ${String(value)}`);
  return value;
}
