import type { Lease } from './Lease.js';

/**
 * The three Lease calls leader election makes. {@link KubeLeaseClient} makes
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
}
