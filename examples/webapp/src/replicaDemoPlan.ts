import type { LeaseTimings } from './replicaProtocol.js';
import type { Ref } from './instanceKey.js';
import type { WebAppSpec } from './WebAppObject.js';

/** Short lease timings that keep the demo brisk (the defaults are 15 s, 10 s and 2 s). */
export const DEMO_LEASE_TIMINGS: LeaseTimings = Object.freeze({ leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 250 });

/** The demo's namespaces: the keys the split balances. */
export const REPLICA_DEMO_NAMESPACES: readonly string[] = Object.freeze([
  'payments', 'checkout', 'catalog', 'search', 'accounts', 'billing',
  'shipping', 'reviews', 'inventory', 'support', 'marketing', 'analytics',
]); // prettier-ignore

/** The WebApps created in every namespace. */
export const WEBAPPS_PER_NAMESPACE: readonly string[] = Object.freeze(['web', 'api', 'admin']);

/** The least the replicas get to start: N Node.js processes loading at once on a busy machine take seconds. */
export const STARTUP_TIMEOUT_MS = 60_000;
/** Where the member leases live. */
export const LEASE_NAMESPACE = 'webapp-system';
/** The shard group of the replicas. */
export const GROUP = 'webapp';

/** The spec of a demo WebApp: its message names it, and says so once it was edited during the outage. */
export const specOf = (ref: Ref, edited: boolean): WebAppSpec => ({
  message: `${ref.name} of ${ref.namespace}${edited ? ', edited while its replica was down' : ''}`,
  replicas: 1,
});
