import { causeOfType } from '../causeChain.js';

/**
 * Why a pass was cut off:
 * - `deregistered`: its parent GVR was deregistered while it ran;
 * - `deleted`: its instance was deleted while it ran;
 * - `stopping`: the controller is shutting down, or the leadership term its worker ran in ended;
 * - `range-lost`: with sharding, this replica lost the hash range of the instance.
 */
export type PassCancelReason = 'deregistered' | 'deleted' | 'stopping' | 'range-lost';

/**
 * The abort reason of a pass's `ctx.signal` when the pass is cut off by
 * normal operation (a deregistration, a shard rebalance), and how the
 * controller tells such a pass from a failure: a pass that rejects with
 * this error (also as the `cause` of another error) is logged once at
 * info, not counted as a handler error, and not retried.
 *
 * Easy to get wrong: a handler that wraps the abort should keep it as the
 * `cause`; a handler that catches it and goes on writing does so for an
 * instance that is no longer its to reconcile.
 */
export class PassCancelledError extends Error {
  override readonly name = 'PassCancelledError';
  /** What cut the pass off. */
  readonly reason: PassCancelReason;

  constructor(reason: PassCancelReason, message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.reason = reason;
  }
}

/** The {@link PassCancelledError} of `err` or of its `cause` chain, if any. */
export function passCancellationOf(err: unknown): PassCancelledError | undefined {
  return causeOfType(err, PassCancelledError);
}
