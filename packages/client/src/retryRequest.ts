import pRetry from 'p-retry';
import { KubeApiError } from './KubeApiError.js';
import { KubeTransportError } from './KubeTransportError.js';
import type { ResolvedRetryOptions } from './RetryOptions.js';

/** Server errors that say nothing about the request itself: retried (for idempotent requests). */
const TRANSIENT_5XX = new Set([500, 502, 503, 504]);

/**
 * True when a failed request may be sent again: 429, or any status with a
 * `Retry-After` (the server did not act on the request), or a refused
 * connection, whatever the request; a transient 5xx, reset connection or
 * other network failure only when the request is `idempotent` (it may
 * have been carried out).
 */
export function isRetryable(err: unknown, idempotent: boolean): boolean {
  if (err instanceof KubeApiError) {
    if (err.status === 429 || err.retryAfterMs !== undefined) return true;
    return idempotent && err.status !== undefined && TRANSIENT_5XX.has(err.status);
  }
  if (err instanceof KubeTransportError) {
    if (err.reason === 'ConnectionRefused') return true;
    return idempotent && (err.reason === 'ConnectionReset' || err.reason === 'NetworkError');
  }
  return false;
}

/**
 * Runs `attempt` with p-retry: retryable failures (see {@link isRetryable})
 * are retried with jittered exponential backoff, at most `retries` times;
 * a failure carrying `Retry-After` waits exactly that long instead (at most
 * `maxRetryAfterMs`, else it fails at once) and does not grow the backoff.
 * The signal aborts the waits, and the rejection is then its reason.
 */
export function retryRequest<T>(
  attempt: () => Promise<T>,
  options: ResolvedRetryOptions,
  idempotent: boolean,
  signal: AbortSignal | undefined,
): Promise<T> {
  if (options.retries === 0) return attempt();
  let throttled = 0;
  return pRetry(attempt, {
    retries: options.retries,
    factor: 2,
    minTimeout: options.minDelayMs,
    maxTimeout: options.maxDelayMs,
    randomize: true,
    signal,
    onFailedAttempt: async ({ error }) => {
      const waitMs = retryAfterOf(error);
      if (waitMs === undefined || !isRetryable(error, idempotent)) return;
      // Throttled attempts do not consume p-retry's budget (their wait is the server's), so bound them here.
      if (++throttled > options.retries || waitMs > options.maxRetryAfterMs) throw error;
      await abortableDelay(waitMs, signal);
    },
    shouldConsumeRetry: ({ error }) => retryAfterOf(error) === undefined,
    shouldRetry: ({ error }) => isRetryable(error, idempotent),
  });
}

function retryAfterOf(err: unknown): number | undefined {
  return err instanceof KubeApiError ? err.retryAfterMs : undefined;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function abortableDelay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
