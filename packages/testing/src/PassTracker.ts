import type { Handler } from '@protean/core';

/**
 * Counts the passes of the handlers it wraps, so a test can wait until the
 * controller is quiet: no pass running and none ended for a while. Useful
 * before a step that races a pass already under way, e.g. deleting an owner
 * while a pass that read it still applies its children.
 *
 * ```ts
 * const passes = new PassTracker();
 * await controller.register(gvr, passes.wrap(handler));
 * await waitUntil(() => passes.quietFor(1000), 'a quiet controller');
 * ```
 */
export class PassTracker {
  private running = 0;
  private lastEndedMs = -Infinity;
  private total = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** `handler`, counted: each pass is running from its call until its promise settles (or it throws). */
  wrap(handler: Handler): Handler {
    return async (key, ctx) => {
      this.running++;
      this.total++;
      try {
        await handler(key, ctx);
      } finally {
        this.running--;
        this.lastEndedMs = this.now();
      }
    };
  }

  /** Passes running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Passes started so far. */
  get started(): number {
    return this.total;
  }

  /** True when no pass is running and none has ended in the last `ms` milliseconds. */
  quietFor(ms: number): boolean {
    return this.running === 0 && this.now() - this.lastEndedMs >= ms;
  }
}
