/**
 * The demo's human-readable log: one line per event, prefixed with the
 * seconds since the log was created (`[  0.41s] ...`). Controller internals
 * log separately, as pino JSON.
 */
export class LiveLog {
  private readonly startMs: number;

  constructor(
    private readonly write: (line: string) => void,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.startMs = now();
  }

  /** Milliseconds since the log was created. */
  elapsedMs(): number {
    return this.now() - this.startMs;
  }

  /** Writes one timestamped line. */
  line(text: string): void {
    const seconds = (this.elapsedMs() / 1000).toFixed(2).padStart(6);
    this.write(`[${seconds}s] ${text}`);
  }
}
