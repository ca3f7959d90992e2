export * from './assignShards.js';
export * from './detectShardSelectorSupport.js';
export * from './fnv1a64.js';
export * from './HashRange.js';
export * from './kubeShardInformerSource.js';
export * from './ShardedInformerSource.js';
export * from './ShardingConfigError.js';
