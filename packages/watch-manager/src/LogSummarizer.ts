import { realClock, type Clock, type Logger, type TimerHandle } from '@protean/core';

/** Level of a summarized line. */
export type SummarizedLevel = 'warn' | 'info';

interface Window {
  readonly level: SummarizedLevel;
  readonly msg: string;
  readonly fields: Record<string, unknown>;
  /** Lines held back since the window opened. */
  more: number;
  /** Distinct GVRs of those lines. */
  readonly gvrs: Set<string>;
  timer: TimerHandle | undefined;
}

/**
 * Turns a burst of the same log line from many informers (every informer
 * losing its connection in one API server outage, then every one
 * recovering) into two lines per cause: the first occurrence at once, and
 * at the end of `intervalMs` one line with how many more there were and
 * over how many GVRs. A cause that recurs after its interval ended is
 * logged at once again.
 *
 * A {@link KubernetesInformerSource} gives one to all its informers; share
 * one between sources by passing it in their options.
 *
 * Easy to get wrong: the key is the cause (an error code and the server),
 * not the message, which names the GVR and the request and so differs
 * between informers.
 */
export class LogSummarizer {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly log: Logger,
    private readonly clock: Clock = realClock,
    /** Length of a window; default 5 000. */
    readonly intervalMs = 5000,
  ) {
    if (!(intervalMs > 0) || !Number.isFinite(intervalMs)) {
      throw new RangeError(`LogSummarizer: intervalMs must be a finite number > 0, got ${String(intervalMs)}`);
    }
  }

  /**
   * Logs `msg` with `fields` at `level` unless a line of the same `key` was
   * logged less than `intervalMs` ago, in which case it is counted into the
   * summary line of that window. `gvr` is counted as a distinct source.
   */
  note(level: SummarizedLevel, key: string, gvr: string, fields: Record<string, unknown>, msg: string): void {
    const open = this.windows.get(key);
    if (open !== undefined) {
      open.more++;
      open.gvrs.add(gvr);
      return;
    }
    this.log[level]({ ...fields, gvr }, msg);
    const window: Window = { level, msg, fields, more: 0, gvrs: new Set(), timer: undefined };
    this.windows.set(key, window);
    window.timer = this.clock.setTimeout(() => this.close(key, window), this.intervalMs);
    // A summary due later must not keep the process alive.
    (window.timer as { unref?: () => void }).unref?.();
  }

  /** Writes the summary of every open window now (at shutdown). */
  flush(): void {
    for (const [key, window] of [...this.windows]) {
      if (window.timer !== undefined) this.clock.clearTimeout(window.timer);
      this.close(key, window);
    }
  }

  private close(key: string, window: Window): void {
    window.timer = undefined;
    if (this.windows.get(key) === window) this.windows.delete(key);
    if (window.more === 0) return;
    const fields = { ...window.fields, count: window.more, gvrs: window.gvrs.size, intervalMs: this.intervalMs };
    this.log[window.level](fields, `${window.msg} (${window.more} more like it from ${window.gvrs.size} GVR(s) in ${this.intervalMs} ms)`);
  }
}
