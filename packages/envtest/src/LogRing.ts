/**
 * The last `capacity` lines written to it, for failure messages. Chunks may
 * split lines anywhere; a trailing partial line is kept until completed.
 *
 * Easy to get wrong: it keeps lines, not bytes; a process that writes one
 * enormous line is kept whole.
 */
export class LogRing {
  private readonly lines: string[] = [];
  private partial = '';
  /** Complete lines ever pushed (kept or dropped). */
  private written = 0;

  constructor(private readonly capacity: number) {}

  write(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.push(line);
  }

  /** Adds one complete line (used for the harness's own notes). */
  push(line: string): void {
    this.written++;
    this.lines.push(line);
    if (this.lines.length > this.capacity) this.lines.splice(0, this.lines.length - this.capacity);
  }

  /** The kept lines (and any unfinished one), oldest first. */
  text(): string {
    return this.partial === '' ? this.lines.join('\n') : [...this.lines, this.partial].join('\n');
  }

  /** A position to pass to {@link LogRing.includes} later: "lines written from now on". */
  mark(): number {
    return this.written;
  }

  /** True if a kept line written since `mark` (default: any kept line) contains `needle`. */
  includes(needle: string, mark = 0): boolean {
    const first = Math.max(0, mark - (this.written - this.lines.length));
    return this.partial.includes(needle) || this.lines.slice(first).some((l) => l.includes(needle));
  }
}
