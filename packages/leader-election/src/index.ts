export { defaultIdentity } from './defaultIdentity.js';
export { type FakeLeaseCall, FakeLeaseClient } from './FakeLeaseClient.js';
export { formatMicroTime } from './formatMicroTime.js';
export { keepLeaseWatch, type KeepLeaseWatchOptions } from './keepLeaseWatch.js';
export { KubeLeaseClient } from './KubeLeaseClient.js';
export { LeaderElectionConfigError } from './LeaderElectionConfigError.js';
export { leaderElectionModule } from './leaderElectionModule.js';
export { LeaderElector } from './LeaderElector.js';
export {
  DEFAULT_JITTER,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  type LeaderElectorOptions,
  type ResolvedLeaderElectorOptions,
  resolveLeaderElectorOptions,
} from './LeaderElectorOptions.js';
export type { Lease, LeaseSpec } from './Lease.js';
export type { LeaseClient, LeaseWatchEvent, LeaseWatchSelector } from './LeaseClient.js';
export { LeaseRequestError, type LeaseVerb } from './LeaseRequestError.js';
export { LeaseValidity } from './LeaseValidity.js';
