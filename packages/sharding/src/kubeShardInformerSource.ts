import type { KubeConfigLike } from '@protean/transport';
import { KubernetesInformerSource, type KubernetesInformerSourceOptions } from '@protean/watch-manager';
import { StreamingListSupport } from '@protean/watch-manager/internal';
import type { ShardFilterMode } from './detectShardSelectorSupport.js';
import { shardSelector, type HashRange, type ShardKey } from './HashRange.js';
import { ShardedInformerSource } from './ShardedInformerSource.js';

/** Options of {@link kubeShardInformerSource}. */
export interface KubeShardInformerSourceOptions extends Omit<KubernetesInformerSourceOptions, 'shardSelector'> {
  readonly kubeConfig: KubeConfigLike;
  readonly key: ShardKey;
  readonly ranges: readonly HashRange[];
  /** From {@link detectShardSelectorSupport}. */
  readonly mode: ShardFilterMode;
}

/** What a server-side shard with no range asks for: `[0, 1)`, practically nothing (the client filter drops the rest). */
const NOTHING: readonly HashRange[] = [{ start: 0n, end: 1n }];

/**
 * The informer source of one shard on a real cluster, behind the
 * client-side filter of its ranges. In `'client'` mode its Kubernetes
 * informers list and watch everything and the filter hides what is not
 * owned. In `'server'` mode they list and watch with the `shardSelector`
 * of the ranges, so the server sends only the share; when `setRanges`
 * changes the share (wider or narrower), each informer is rebuilt with
 * the new selector and the handlers move to it once it has listed (see
 * {@link ShardedInformerSource}). `cachedObjects()` of the result counts
 * what the Kubernetes informers hold.
 */
export function kubeShardInformerSource(options: KubeShardInformerSourceOptions): ShardedInformerSource {
  const { key, ranges, mode, ...rest } = options;
  if (mode === 'client') return new ShardedInformerSource(new KubernetesInformerSource(rest), { key, ranges });
  // One memory of streaming-list refusals across the rebuilt sources.
  const streamingListSupport = rest.streamingListSupport ?? new StreamingListSupport();
  const factory = (owned: readonly HashRange[]): KubernetesInformerSource =>
    new KubernetesInformerSource({
      ...rest,
      streamingListSupport,
      shardSelector: shardSelector(key, owned.length === 0 ? NOTHING : owned),
    });
  return new ShardedInformerSource(factory, { key, ranges });
}
