/** Options of {@link pollUntil}. */
export interface PollOptions {
  /** Give up after this long. */
  readonly timeoutMs: number;
  /** Pause between checks. Default 25. */
  readonly intervalMs?: number;
  /** Stops waiting early (rejects with the signal's reason). */
  readonly signal?: AbortSignal;
}

/** The condition of {@link pollUntil} did not hold in time; the message says what was last seen. */
export class PollTimeoutError extends Error {
  override readonly name = 'PollTimeoutError';
  /** What the check reported the last time it did not hold. */
  readonly lastObserved: string;

  constructor(what: string, timeoutMs: number, lastObserved: string, cause?: unknown) {
    super(`${what}: not true within ${timeoutMs} ms (last seen: ${lastObserved})`, cause === undefined ? undefined : { cause });
    this.lastObserved = lastObserved;
  }
}

/**
 * Calls `check` until it returns `true`, pausing `intervalMs` between calls,
 * and rejects with {@link PollTimeoutError} after `timeoutMs`. `check`
 * returns `true` or a description of what it saw instead; a check that
 * throws counts as "not yet" (its message becomes the description).
 *
 * Easy to get wrong: it is a bounded wait for state owned by someone else
 * (the API server, the controller); never use it to wait a fixed time.
 */
export async function pollUntil(what: string, check: () => Promise<true | string> | true | string, options: PollOptions): Promise<void> {
  const deadline = performance.now() + options.timeoutMs;
  const intervalMs = options.intervalMs ?? 25;
  let lastObserved: string;
  let lastError: unknown;
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      const result = await check();
      if (result === true) return;
      lastObserved = result;
      lastError = undefined;
    } catch (err) {
      lastObserved = err instanceof Error ? err.message : String(err);
      lastError = err;
    }
    if (performance.now() >= deadline) throw new PollTimeoutError(what, options.timeoutMs, lastObserved, lastError);
    await new Promise<void>((resolve) => setTimeout(resolve, intervalMs));
  }
}
