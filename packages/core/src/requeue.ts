/**
 * Requeue signals a {@link Handler} rejects with to steer what happens to the
 * instance next (kro `pkg/requeue`). Any other error is retried with
 * per-item exponential backoff until `queueMaxRetries`.
 */

/** Do not retry: the item is forgotten even though the handler failed. */
export class NoRequeue extends Error {
  override readonly name: string = 'NoRequeue';
  constructor(cause?: unknown) {
    super(messageOf('no requeue', cause), cause === undefined ? undefined : { cause });
  }
}

/** Retry now (re-added without rate limiting or backoff). */
export class RequeueNeeded extends Error {
  override readonly name: string = 'RequeueNeeded';
  constructor(cause?: unknown, what = 'requeue needed') {
    super(messageOf(what, cause), cause === undefined ? undefined : { cause });
  }
}

/**
 * Retry after `delayMs`. The item's failure count is reset first: a handler
 * polling an external state is not a failing handler.
 */
export class RequeueNeededAfter extends RequeueNeeded {
  override readonly name: string = 'RequeueNeededAfter';
  readonly delayMs: number;
  constructor(cause: unknown, delayMs: number) {
    if (!Number.isFinite(delayMs) || delayMs < 0) {
      throw new RangeError(`requeue delay must be a finite number of ms >= 0, got ${String(delayMs)}`);
    }
    super(cause, `requeue needed after ${delayMs}ms`);
    this.delayMs = delayMs;
  }
}

/**
 * Retry once `ready` resolves: the item waits outside the queue (one wait
 * per item, ended at shutdown or deregister), its failure count reset,
 * and runs again the moment `ready` resolves (or rejects). For a wait on
 * something the handler cannot hurry: a lease valid again, a kind served.
 */
export class RequeueWhen extends RequeueNeeded {
  override readonly name: string = 'RequeueWhen';
  /** Resolves when the item should run again; `signal` aborts when the wait is no longer wanted. */
  readonly ready: (signal: AbortSignal) => Promise<void>;
  constructor(cause: unknown, ready: (signal: AbortSignal) => Promise<void>, what = 'requeue when ready') {
    if (typeof ready !== 'function') throw new TypeError(`RequeueWhen: ready must be a function, got ${typeof ready}`);
    super(cause, what);
    this.ready = ready;
  }
}

function messageOf(what: string, cause: unknown): string {
  if (cause === undefined || cause === null) return what;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return `${what}: ${detail}`;
}

/** Factories for the requeue signals, mirroring kro's `requeue.None`/`Needed`/`NeededAfter`. */
export const requeue = Object.freeze({
  none: (err?: unknown): NoRequeue => new NoRequeue(err),
  needed: (err?: unknown): RequeueNeeded => new RequeueNeeded(err),
  neededAfter: (err: unknown, delayMs: number): RequeueNeededAfter => new RequeueNeededAfter(err, delayMs),
});

/** True for any of the three requeue signals. */
export function isRequeueError(err: unknown): err is NoRequeue | RequeueNeeded {
  return err instanceof NoRequeue || err instanceof RequeueNeeded;
}
