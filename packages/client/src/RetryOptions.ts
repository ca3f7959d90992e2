/**
 * How a {@link KubeClient} retries. Every wait is aborted by the request's
 * signal. Durations are milliseconds.
 */
export interface RetryOptions {
  /**
   * Retries after the first attempt, for 429 Too Many Requests, 5xx and
   * connection failures (see `KubeClient` for which requests retry after
   * which failures). Default 4; 0 disables retrying.
   */
  readonly retries?: number;
  /** First backoff delay; it doubles per retry (with jitter) up to `maxDelayMs`. Default 100. */
  readonly minDelayMs?: number;
  /** Cap of the backoff delay. Default 5000. */
  readonly maxDelayMs?: number;
  /**
   * Longest `Retry-After` waited for; a server asking for longer fails the
   * request at once, so the handler fails and the controller's own backoff
   * takes over. Default 30000.
   */
  readonly maxRetryAfterMs?: number;
  /**
   * Attempts of a read-modify-write (`modify`, finalizer changes) that
   * keeps losing to concurrent writers (409 Conflict) before giving up. Default 5.
   */
  readonly conflictAttempts?: number;
}

/** {@link RetryOptions} with every default filled in. */
export type ResolvedRetryOptions = Required<RetryOptions>;

/** The defaults of {@link RetryOptions}. */
export const defaultRetryOptions: ResolvedRetryOptions = Object.freeze({
  retries: 4,
  minDelayMs: 100,
  maxDelayMs: 5000,
  maxRetryAfterMs: 30_000,
  conflictAttempts: 5,
});

/** Fills unset fields and checks every value; throws a `RangeError` naming the field. */
export function resolveRetryOptions(options: RetryOptions = {}): ResolvedRetryOptions {
  const resolved: ResolvedRetryOptions = { ...defaultRetryOptions, ...options };
  const check = (field: keyof ResolvedRetryOptions, ok: (v: number) => boolean, rule: string): void => {
    const v = resolved[field];
    if (typeof v !== 'number' || Number.isNaN(v) || !ok(v)) throw new RangeError(`invalid retry option ${field}=${String(v)}: ${rule}`);
  };
  check('retries', (v) => Number.isInteger(v) && v >= 0, 'must be an integer >= 0');
  check('minDelayMs', (v) => v >= 0 && Number.isFinite(v), 'must be a finite number >= 0');
  check('maxDelayMs', (v) => v >= resolved.minDelayMs && Number.isFinite(v), 'must be a finite number >= minDelayMs');
  check('maxRetryAfterMs', (v) => v >= 0 && Number.isFinite(v), 'must be a finite number >= 0');
  check('conflictAttempts', (v) => Number.isInteger(v) && v >= 1, 'must be an integer >= 1');
  return Object.freeze(resolved);
}
