import type { Clock } from '../clock.js';

/**
 * Waits for `drained`, at most `timeoutMs` on `clock` (0: no limit); past
 * it, rejects with what `timedOut()` returns (the controller's
 * `ShutdownTimeoutError`, built then so it lists the passes still running).
 */
export async function awaitWithin(drained: Promise<unknown>, timeoutMs: number, clock: Clock, timedOut: () => Error): Promise<void> {
  if (timeoutMs === 0) {
    await drained;
    return;
  }
  let timer: ReturnType<Clock['setTimeout']> | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = clock.setTimeout(() => reject(timedOut()), timeoutMs);
  });
  try {
    await Promise.race([drained, expired]);
  } finally {
    if (timer !== undefined) clock.clearTimeout(timer);
  }
}
