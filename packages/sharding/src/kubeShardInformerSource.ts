import type { KubeConfig } from '@kubernetes/client-node';
import { KubernetesInformerSource, type KubernetesInformerSourceOptions } from '@protean/watch-manager';
import type { ShardFilterMode } from './detectShardSelectorSupport.js';
import { shardSelector, type HashRange, type ShardKey } from './HashRange.js';
import { ShardedInformerSource } from './ShardedInformerSource.js';

/** Options of {@link kubeShardInformerSource}. */
export interface KubeShardInformerSourceOptions extends Omit<KubernetesInformerSourceOptions, 'shardSelector'> {
  readonly kubeConfig: KubeConfig;
  readonly key: ShardKey;
  readonly ranges: readonly HashRange[];
  /** From {@link detectShardSelectorSupport}. */
  readonly mode: ShardFilterMode;
}

/**
 * The informer source of one shard on a real cluster: Kubernetes informers
 * that, in `'server'` mode, list and watch with the `shardSelector` of
 * `ranges` (the server sends only the share), behind the client-side
 * filter of the same ranges (which, in `'client'` mode, does all the
 * filtering). With no range at all, the server is asked for nothing and
 * the filter passes nothing.
 *
 * Easy to get wrong: in `'server'` mode the informers cache only the
 * ranges they were created with, so `setRanges` on the result can only
 * narrow the share; to take new ranges, create a new source (and new
 * informers) with them.
 */
export function kubeShardInformerSource(options: KubeShardInformerSourceOptions): ShardedInformerSource {
  const { key, ranges, mode, ...rest } = options;
  const selector = mode === 'server' && ranges.length > 0 ? shardSelector(key, ranges) : undefined;
  const inner = new KubernetesInformerSource(selector === undefined ? rest : { ...rest, shardSelector: selector });
  return new ShardedInformerSource(inner, { key, ranges });
}
