import { realClock, type Clock, type TimerHandle } from './clock.js';
import type { Logger } from './logger.js';

/** Options of a {@link LogSummarizer}. */
export interface LogSummarizerOptions {
  /** Where the lines go (usually a component's child logger). */
  readonly logger: Logger;
  /** Time of the intervals. Default core's `realClock`. */
  readonly clock?: Clock;
  /** How long repeats of one cause are counted before their count is logged. Default 10 000. */
  readonly intervalMs?: number;
  /** Level of every line. Default `warn`. */
  readonly level?: 'error' | 'warn' | 'info' | 'debug';
}

/** What the summarizer keeps per cause: repeats since the last line, and one example of them. */
interface CauseWindow {
  repeats: number;
  example: Record<string, unknown> | undefined;
}

/**
 * Turns a burst of log lines with one cause (the same network failure seen
 * by many instances, say) into a handful: the first occurrence of a cause
 * is logged as given, later ones within `intervalMs` are only counted, and
 * at the end of the interval one line per cause says how many were left
 * out. While a cause keeps repeating it gets one count line per interval;
 * after a quiet interval its next occurrence is logged in full again.
 *
 * Easy to get wrong: the interval runs on a timer of `clock`; call
 * {@link flush} when the owner stops, or the last counts are never logged
 * and a real clock's timer keeps the process alive until it fires.
 */
export class LogSummarizer {
  private readonly logger: Logger;
  private readonly clock: Clock;
  /** How long repeats of one cause are counted before their count is logged. */
  readonly intervalMs: number;
  private readonly level: 'error' | 'warn' | 'info' | 'debug';
  private readonly windows = new Map<string, CauseWindow>();
  private timer: TimerHandle | undefined;

  constructor(options: LogSummarizerOptions) {
    const intervalMs = options.intervalMs ?? 10_000;
    if (!(intervalMs > 0) || !Number.isFinite(intervalMs)) {
      throw new RangeError(`LogSummarizer: intervalMs must be a finite number > 0, got ${String(options.intervalMs)}`);
    }
    this.logger = options.logger;
    this.clock = options.clock ?? realClock;
    this.intervalMs = intervalMs;
    this.level = options.level ?? 'warn';
  }

  /**
   * Logs `message` with `fields` (plus `cause`) unless `cause` was already
   * logged in this interval; then it is only counted, and `fields` kept as
   * the example of the count line.
   */
  log(cause: string, fields: Record<string, unknown>, message: string): void {
    const window = this.windows.get(cause);
    if (window !== undefined) {
      window.repeats++;
      window.example ??= fields;
      return;
    }
    this.windows.set(cause, { repeats: 0, example: undefined });
    this.logger[this.level]({ ...fields, cause }, message);
    this.timer ??= this.clock.setTimeout(() => this.endInterval(), this.intervalMs);
  }

  /** Logs the counts of this interval now and forgets every cause (call it when the owner stops). */
  flush(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.logCounts();
    this.windows.clear();
  }

  private endInterval(): void {
    this.timer = undefined;
    this.logCounts();
    // A cause that repeated stays counted for one more interval; a quiet one is logged in full next time.
    for (const [cause, window] of this.windows) {
      if (window.repeats === 0) this.windows.delete(cause);
      else {
        window.repeats = 0;
        window.example = undefined;
      }
    }
    if (this.windows.size > 0) this.timer = this.clock.setTimeout(() => this.endInterval(), this.intervalMs);
  }

  private logCounts(): void {
    for (const [cause, window] of this.windows) {
      if (window.repeats === 0) continue;
      this.logger[this.level](
        { ...window.example, cause, repeats: window.repeats, intervalMs: this.intervalMs },
        `${cause}: ${window.repeats} more like this in the last ${this.intervalMs} ms`,
      );
    }
  }
}
