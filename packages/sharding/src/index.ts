export { applyShardChange } from './applyShardChange.js';
export { assignShards, equalShards, imbalance, keysPerMember, movedKeys, ownerOf, type ShardAssignment } from './assignShards.js';
export { detectShardSelectorSupport, type ShardFilterMode, type ShardSelectorSupport } from './detectShardSelectorSupport.js';
export { fnv1a64 } from './fnv1a64.js';
export {
  formatHashBound,
  HASH_SPACE_END,
  type HashRange,
  inRanges,
  mergeRanges,
  type ShardKey,
  shardSelector,
  validateRanges,
} from './HashRange.js';
export { kubeShardInformerSource, type KubeShardInformerSourceOptions } from './kubeShardInformerSource.js';
export { formatHolds, holdsOf, SHARD_HOLDS_ANNOTATION, withHolds } from './rangeClaims.js';
export { describeRanges, intersectRanges, normalizeRanges, rangeFraction, sameRanges, subtractRanges, unionRanges } from './rangeSet.js';
export {
  type RangeInformerSourceFactory,
  type ShardCachedObjects,
  ShardedListWatch,
  ShardedInformerSource,
  type ShardedInformerSourceOptions,
} from './ShardedInformerSource.js';
export { ShardingConfigError } from './ShardingConfigError.js';
export { FakeMemberLeaseClient, KubeMemberLeaseClient, type MemberLeaseClient } from './MemberLeaseClient.js';
export { type ShardAssigner, type ShardChange, type ShardChangeListener, ShardMembership } from './ShardMembership.js';
export { memberLeaseName, type ShardMembershipOptions } from './ShardMembershipOptions.js';
export type { ShardMembershipStatus, ShardTransition, ShardTransitionKind } from './ShardStatus.js';
export { ShardGate, type ShardGateBaseOptions, type ShardGateOptions } from './ShardGate.js';
export { ShardReplica, type ShardReplicaOptions } from './ShardReplica.js';
export { shardingModule, type ShardingModuleOptions } from './shardingModule.js';
