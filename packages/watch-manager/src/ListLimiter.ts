/**
 * Caps how many paginated LISTs of a `KubernetesInformerSource`'s informers
 * run at once: an informer waits here, in arrival order, before its list
 * and frees its slot when the list ends, however it ends. Watches are never
 * held back. Shared by every informer of the source (`listConcurrency`).
 */
export class ListLimiter {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  /** `limit`: lists at once, an integer >= 1, or `Infinity` for no cap. */
  constructor(readonly limit: number) {
    if (!(limit === Infinity || (Number.isInteger(limit) && limit >= 1))) {
      throw new RangeError(`listConcurrency must be an integer >= 1 or Infinity, got ${String(limit)}`);
    }
  }

  /** Lists running now. */
  get active(): number {
    return this.running;
  }

  /** Lists waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `list` once a slot is free; the slot is released when it settles. */
  async run<T>(list: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await list();
    } finally {
      const next = this.waiting.shift();
      // The slot passes straight to the next in line, so `running` never dips below the cap while lists wait.
      if (next === undefined) this.running--;
      else next();
    }
  }
}
