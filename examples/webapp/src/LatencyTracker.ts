/** Percentiles of the recorded latencies, in milliseconds (undefined when nothing was recorded). */
export interface LatencyStats {
  readonly count: number;
  readonly p50Ms: number | undefined;
  readonly p99Ms: number | undefined;
  readonly maxMs: number | undefined;
}

/**
 * Measures event-to-reconcile latency: from the moment a change the
 * scenario made is acknowledged by the API server to the next handler call
 * for each instance the change affects.
 *
 * Easy to get wrong: the watch event can overtake the API response, so a
 * handler call that starts while the request is still in flight counts as
 * latency 0 instead of leaving the change waiting for a later, unrelated
 * reconcile.
 */
export class LatencyTracker {
  /** Instance key -> when the change was acknowledged. */
  private readonly pending = new Map<string, number>();
  /** Instance key -> when its handler last started. */
  private readonly lastStart = new Map<string, number>();
  private readonly samples: number[] = [];

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Runs `change` (one API call) and marks `keys` as changed when it returns. */
  async track<T>(keys: readonly string[], change: () => Promise<T>): Promise<T> {
    const sentAt = this.now();
    const result = await change();
    const ackedAt = this.now();
    for (const key of keys) {
      const started = this.lastStart.get(key);
      if (started !== undefined && started >= sentAt) this.samples.push(0);
      else this.pending.set(key, ackedAt);
    }
    return result;
  }

  /** Call when a handler call for `key` starts. */
  handlerStarted(key: string): void {
    const at = this.now();
    this.lastStart.set(key, at);
    const changedAt = this.pending.get(key);
    if (changedAt === undefined) return;
    this.pending.delete(key);
    this.samples.push(at - changedAt);
  }

  /** Changes still waiting for a handler call. */
  pendingCount(): number {
    return this.pending.size;
  }

  stats(): LatencyStats {
    const sorted = [...this.samples].sort((a, b) => a - b);
    return { count: sorted.length, p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted.at(-1) };
  }
}

/** Nearest-rank percentile of an ascending array. */
function percentile(sorted: readonly number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}
