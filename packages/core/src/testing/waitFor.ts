import { describeCondition } from './describeCondition.js';

/**
 * The default timeout of {@link waitFor}: 4 s, below Jest's default test
 * timeout (5 s), so a condition that never holds fails with waitFor's
 * message (the condition) rather than Jest's generic "Exceeded timeout".
 */
export const waitForTimeoutMs = 4_000;

/** Options of {@link waitFor}. */
export interface WaitForOptions {
  /** Give up after this long (real time). Default {@link waitForTimeoutMs} (4000). */
  readonly timeoutMs?: number;
  /** Pause between checks (real time). Default 2. */
  readonly intervalMs?: number;
  /** Describes the condition in the timeout error. Default the condition's source, as `describeCondition` shows it. */
  readonly message?: string;
}

/** Thrown by {@link waitFor} when the condition did not hold in time; `cause` is the condition's last error. */
export class WaitForTimeoutError extends Error {
  override readonly name = 'WaitForTimeoutError';
}

/**
 * Resolves as soon as `condition` returns `true`, checking it again every
 * `intervalMs`; rejects with {@link WaitForTimeoutError} after `timeoutMs`.
 * A condition that throws counts as "not yet" (so an `expect` inside it
 * works) and its last error becomes the timeout error's `cause`.
 *
 * Easy to get wrong: it polls in real time, so it cannot wait for a fake
 * clock to move; advance the clock first, then wait for the effect.
 */
export async function waitFor(condition: () => boolean | Promise<boolean>, options: WaitForOptions = {}): Promise<void> {
  const timeoutMs = options.timeoutMs ?? waitForTimeoutMs;
  const intervalMs = options.intervalMs ?? 2;
  const deadline = performance.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if ((await condition()) === true) return;
      lastError = undefined;
    } catch (err) {
      lastError = err;
    }
    if (performance.now() >= deadline) {
      const what = options.message ?? describeCondition(condition);
      const detail = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new WaitForTimeoutError(
        `condition not met within ${timeoutMs}ms: ${what}${detail}`,
        lastError === undefined ? undefined : { cause: lastError },
      );
    }
    await new Promise<void>((resolve) => setTimeout(resolve, intervalMs));
  }
}
