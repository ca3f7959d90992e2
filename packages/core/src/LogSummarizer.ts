import { realClock, type Clock, type TimerHandle } from './clock.js';
import type { Logger } from './logger.js';

/** Level of a summarized line. */
export type LogSummarizerLevel = 'error' | 'warn' | 'info' | 'debug';

/** Options of a {@link LogSummarizer}. */
export interface LogSummarizerOptions {
  /** Where the lines go (usually a component's child logger). */
  readonly logger: Logger;
  /** Time of the intervals. Default core's `realClock`. */
  readonly clock?: Clock;
  /** How long repeats of one cause are counted before their count is logged. Default 10 000. */
  readonly intervalMs?: number;
  /** Level of a cause's lines when {@link LogSummarizer.log} is given none. Default `warn`. */
  readonly level?: LogSummarizerLevel;
}

/** Per-line options of {@link LogSummarizer.log}. */
export interface LogSummaryLineOptions {
  /** Level of this cause's lines (its first line and its count lines). Default the summarizer's `level`. */
  readonly level?: LogSummarizerLevel;
  /** Who saw the cause (a GVR, a controller); the count line says how many distinct sources repeated it. */
  readonly source?: string;
}

/** What the summarizer keeps per cause: its level, repeats since the last line, their sources, and one example of them. */
interface CauseWindow {
  readonly level: LogSummarizerLevel;
  repeats: number;
  readonly sources: Set<string>;
  example: Record<string, unknown> | undefined;
}

/**
 * Turns a burst of log lines with one cause (the same network failure seen
 * by many instances or informers, say) into a handful: the first
 * occurrence of a cause is logged as given, later ones within `intervalMs`
 * are only counted, and at the end of the interval one line per cause says
 * how many were left out (and from how many distinct sources, when the
 * lines name one). While a cause keeps repeating it gets one count line per
 * interval; after a quiet interval its next occurrence is logged in full again.
 *
 * The interval's timer is unref'd when the clock's handle allows it (a
 * real clock's does): pending counts never keep the process alive.
 *
 * Easy to get wrong: the cause is the key, not the message (which names the
 * item or GVR and so differs between repeats); call {@link flush} when the
 * owner stops, or the last counts are never logged.
 */
export class LogSummarizer {
  private readonly logger: Logger;
  private readonly clock: Clock;
  /** How long repeats of one cause are counted before their count is logged. */
  readonly intervalMs: number;
  private readonly level: LogSummarizerLevel;
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
   * logged in this interval; then it is only counted (with its `source`),
   * and `fields` kept as the example of the count line.
   */
  log(cause: string, fields: Record<string, unknown>, message: string, options: LogSummaryLineOptions = {}): void {
    const window = this.windows.get(cause);
    if (window !== undefined) {
      window.repeats++;
      if (options.source !== undefined) window.sources.add(options.source);
      window.example ??= fields;
      return;
    }
    const level = options.level ?? this.level;
    this.windows.set(cause, { level, repeats: 0, sources: new Set(), example: undefined });
    this.logger[level]({ ...fields, cause }, message);
    this.startTimer();
  }

  /** Logs the counts of this interval now and forgets every cause (call it when the owner stops). */
  flush(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.logCounts();
    this.windows.clear();
  }

  private startTimer(): void {
    if (this.timer !== undefined) return;
    this.timer = this.clock.setTimeout(() => this.endInterval(), this.intervalMs);
    // Counts due later must not keep the process alive.
    (this.timer as { unref?: () => void }).unref?.();
  }

  private endInterval(): void {
    this.timer = undefined;
    this.logCounts();
    // A cause that repeated stays counted for one more interval; a quiet one is logged in full next time.
    for (const [cause, window] of this.windows) {
      if (window.repeats === 0) this.windows.delete(cause);
      else {
        window.repeats = 0;
        window.sources.clear();
        window.example = undefined;
      }
    }
    if (this.windows.size > 0) this.startTimer();
  }

  private logCounts(): void {
    for (const [cause, window] of this.windows) {
      if (window.repeats === 0) continue;
      const sources = window.sources.size;
      this.logger[window.level](
        { ...window.example, cause, repeats: window.repeats, ...(sources > 0 ? { sources } : {}), intervalMs: this.intervalMs },
        `${cause}: ${window.repeats} more like this${sources > 0 ? ` from ${sources} source(s)` : ''} in the last ${this.intervalMs} ms`,
      );
    }
  }
}
