import { gvrKey, type GroupVersionResource, type WatchHealth, type InformerFailure } from '@protean/core';

/** Thresholds of {@link InformerHealthRules}; every field has a default. */
export interface InformerHealthOptions {
  /**
   * A registered parent's informer whose requests have been failing (backing
   * off or retrying) for this long makes `/readyz` fail. Default 60 000: two
   * or three retries of the default backoff (0.8 s doubling to 30 s), so a
   * blip or a quick API server restart does not flip readiness, a lasting
   * outage (403, 404, unreachable server) does.
   */
  readonly readinessGraceMs?: number;
  /**
   * `/healthz` fails when every informer has been failing, or silent, for
   * this long. Default 300 000: long enough that an API server outage alone
   * does not restart the controller in a loop, short enough that a process
   * whose watches never came back is restarted.
   */
  readonly livenessGraceMs?: number;
  /**
   * An informer that has heard nothing from the server (no event, bookmark,
   * list page or watch response) for this long has stalled, failing or not.
   * Default 300 000: twice the informer's 150 s inactivity watchdog, which
   * reconnects a silent watch, so a working informer never gets there. Keep
   * it above `inactivityTimeoutMs` if you raise that.
   */
  readonly maxIdleMs?: number;
}

/** One informer as the health endpoints and metrics see it (`/statusz/informers`). */
export interface InformerStatus {
  /** `group/version/resource`, as every GVR label. */
  readonly gvr: string;
  /** A registered parent GVR of the controller. */
  readonly parent: boolean;
  readonly owners: readonly string[];
  readonly synced: boolean;
  /** Passes the readiness rules: synced, not failing beyond the grace period, not stalled. */
  readonly healthy: boolean;
  /** Fails the liveness rules: failing or silent for longer than the liveness grace period. */
  readonly down: boolean;
  /** What is wrong (also within the grace period); undefined when nothing is. */
  readonly problem: string | undefined;
  readonly idleMs: number | undefined;
  readonly relists: number;
  readonly listMode: 'streaming' | 'paginated' | undefined;
  readonly failing: InformerFailure | undefined;
}

/**
 * The rules behind `/readyz`, `/healthz`, `/statusz/informers` and the
 * `dynamic_controller_informer_*` gauges, applied to the watch manager's
 * health report (`WatchManager.health`). An informer is unhealthy when it
 * has not synced, when its requests have failed for `readinessGraceMs`, or
 * when it heard nothing from the server for `maxIdleMs`; it is down when it
 * has failed, or been silent, for `livenessGraceMs`.
 *
 * Easy to get wrong: the ages come from each informer's own clock; the
 * rules need no clock of their own, so a test moves them with the clock it
 * gave the informers.
 */
export class InformerHealthRules {
  readonly readinessGraceMs: number;
  readonly livenessGraceMs: number;
  readonly maxIdleMs: number;

  constructor(options: InformerHealthOptions = {}) {
    this.readinessGraceMs = nonNegative('readinessGraceMs', options.readinessGraceMs ?? 60_000);
    this.livenessGraceMs = nonNegative('livenessGraceMs', options.livenessGraceMs ?? 300_000);
    this.maxIdleMs = nonNegative('maxIdleMs', options.maxIdleMs ?? 300_000);
  }

  /** Applies the rules to each informer; `parents` are the controller's registered parent GVRs. */
  assess(watches: readonly WatchHealth[], parents: readonly GroupVersionResource[]): InformerStatus[] {
    const parentKeys = new Set(parents.map(gvrKey));
    return watches.map((w) => this.assessOne(w, parentKeys.has(gvrKey(w.gvr))));
  }

  private assessOne(w: WatchHealth, parent: boolean): InformerStatus {
    const h = w.informer;
    const synced = w.synced && h.synced;
    const failing = h.failing;
    const idleMs = h.idleMs;
    const failingTooLong = failing !== undefined && failing.forMs >= this.readinessGraceMs;
    const stalled = idleMs !== undefined && idleMs >= this.maxIdleMs;
    let problem: string | undefined;
    if (failing !== undefined) problem = `failing for ${seconds(failing.forMs)} (${failing.consecutive} in a row): ${failing.cause}`;
    else if (stalled) problem = `nothing from the server for ${seconds(idleMs)}`;
    else if (!synced) problem = 'not synced';
    const down =
      (failing !== undefined && failing.forMs >= this.livenessGraceMs) ||
      (idleMs !== undefined && idleMs >= Math.max(this.maxIdleMs, this.livenessGraceMs));
    return {
      gvr: gvrKey(w.gvr),
      parent,
      owners: w.owners,
      synced,
      healthy: synced && !failingTooLong && !stalled,
      down,
      problem,
      idleMs,
      relists: h.relists,
      listMode: h.listMode,
      failing,
    };
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

function nonNegative(name: string, value: number): number {
  if (!(value >= 0) || !Number.isFinite(value))
    throw new RangeError(`InformerHealthRules: ${name} must be a finite number >= 0, got ${String(value)}`);
  return value;
}
