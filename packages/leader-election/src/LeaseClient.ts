import type { Lease } from './Lease.js';

/** One change of a watched lease; a watch starts with an `ADDED` for each lease that exists. */
export interface LeaseWatchEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly lease: Lease;
}

/** Which leases of a namespace a watch follows: one by name, or those matching a label selector (`key=value`). */
export interface LeaseWatchSelector {
  readonly name?: string;
  readonly labelSelector?: string;
}

/**
 * The Lease calls leader election makes. {@link KubeLeaseClient} makes
 * them over HTTP; {@link FakeLeaseClient} keeps leases in memory for tests.
 *
 * Easy to get wrong: `create` and `update` must reject with a
 * {@link LeaseRequestError} whose `status` is 409 when the lease already
 * exists or `metadata.resourceVersion` is stale: that is how two candidates
 * racing for one lease learn that the other won.
 */
export interface LeaseClient {
  /** The lease, or `undefined` when there is none (404). */
  get(namespace: string, name: string, signal: AbortSignal): Promise<Lease | undefined>;
  create(lease: Lease, signal: AbortSignal): Promise<Lease>;
  /** A PUT guarded by `lease.metadata.resourceVersion`. */
  update(lease: Lease, signal: AbortSignal): Promise<Lease>;
  /**
   * Optional: watches the leases `selector` names, calling `onEvent` for
   * the current state (an `ADDED` each) and then every change. Resolves
   * when the server ends the watch or `signal` aborts (the caller opens
   * it again), rejects when it cannot be opened or breaks. Callers that
   * have it observe renewals and releases as they happen instead of at
   * their next poll; without it they poll.
   *
   * Easy to get wrong: a watch may lag behind the server; decisions that
   * must not act on a stale view (taking a lease, starting a range) still
   * go through a read or a guarded write.
   */
  watch?(namespace: string, selector: LeaseWatchSelector, onEvent: (event: LeaseWatchEvent) => void, signal: AbortSignal): Promise<void>;
}
