/**
 * Thrown, before anything is sent, by a write (or any action checked with
 * {@link assertStillValid}) attempted for a pass whose lease is no longer
 * valid: the replica passed its renew deadline (it may have been frozen)
 * and another may already own the instance. The pass's `ctx.signal` is
 * aborted with the same error.
 *
 * Easy to get wrong: it is not a failure to retry in place; the pass must
 * end (the instance is reconciled by whoever holds the lease now).
 */
export class LeaseExpiredError extends Error {
  override readonly name = 'LeaseExpiredError';
  /** What was refused, e.g. `PATCH /apis/apps/v1/namespaces/a/deployments/web`. */
  readonly action: string;
  /** The lease, as its {@link Validity} describes it. */
  readonly lease: string;

  constructor(action: string, lease: string) {
    super(`${action} not sent: ${lease} is no longer valid (past its renew deadline)`);
    this.action = action;
    this.lease = lease;
  }
}
