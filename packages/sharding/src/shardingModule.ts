import { TOKENS, type Logger } from '@protean/core';
import type { KubeConfigLike } from '@protean/transport';
import type { KubernetesInformerSourceOptions } from '@protean/watch-manager';
import type { ContainerModule } from 'inversify';
import { containerModule, markChecked } from '@protean/core/internal';
import type { ShardFilterMode } from './detectShardSelectorSupport.js';
import type { ShardKey } from './HashRange.js';
import { KubeMemberLeaseClient, type MemberLeaseClient } from './MemberLeaseClient.js';
import { kubeShardInformerSource } from './kubeShardInformerSource.js';
import { resolveShardMembershipOptions, type ShardMembershipOptions } from './ShardMembershipOptions.js';
import { ShardReplica, type ShardReplicaOptions } from './ShardReplica.js';
import type { ShardedInformerSource } from './ShardedInformerSource.js';
import { ShardingConfigError } from './ShardingConfigError.js';

/** Options of {@link shardingModule}. */
export interface ShardingModuleOptions
  extends Omit<ShardMembershipOptions, 'client'>, Pick<ShardReplicaOptions, 'uidOf' | 'onShareChange'> {
  readonly kubeConfig: KubeConfigLike;
  /** The field hashed: `'namespace'` or `'uid'` (which needs `uidOf`). */
  readonly key: ShardKey;
  /** From `detectShardSelectorSupport(kubeConfig)`: `'server'` sends the share's selector, `'client'` filters here. */
  readonly mode: ShardFilterMode;
  /** Default: the member leases through `kubeConfig`. */
  readonly client?: MemberLeaseClient;
  /** Given to the Kubernetes informer source (backoff, list mode, ...). */
  readonly informers?: Omit<KubernetesInformerSourceOptions, 'kubeConfig' | 'shardSelector' | 'logger'>;
  /** Replaces the source built from `kubeConfig` (tests: a `ShardedInformerSource` over a fake source). */
  readonly source?: ShardedInformerSource;
}

/**
 * Makes the container's DynamicController one replica of a shard group:
 * rebinds `TOKENS.informerSource` to the sharded source (load it after
 * `watchManagerModule`) and binds `TOKENS.passGate` to a
 * {@link ShardReplica}, whose gate is fenced by the membership's validity.
 * The controller then wraps every handler it registers with the gate and
 * runs the membership from `start(signal)`; on abort the replica gives its
 * ranges up, drains, and releases its lease before `start` resolves. The
 * options are checked here, so a bad group fails when the module is built.
 */
export function shardingModule(options: ShardingModuleOptions): ContainerModule {
  if (options?.kubeConfig === undefined && (options?.client === undefined || options?.source === undefined)) {
    throw new ShardingConfigError('kubeConfig: is required (unless both client and source are given)');
  }
  if (options.mode !== 'server' && options.mode !== 'client') {
    throw new ShardingConfigError(`mode: must be 'server' or 'client' (from detectShardSelectorSupport), got ${String(options.mode)}`);
  }
  if (options.key === 'uid' && options.uidOf === undefined) throw new ShardingConfigError("uidOf: is required with key 'uid'");
  const client = options.client ?? new KubeMemberLeaseClient(options.kubeConfig);
  resolveShardMembershipOptions({ ...options, client });
  return containerModule((container) => {
    let replica: ShardReplica | undefined;
    const build = (logger: Logger | undefined): ShardReplica => {
      if (replica !== undefined) return replica;
      const log = options.logger ?? logger;
      const source =
        options.source ??
        kubeShardInformerSource({
          ...options.informers,
          kubeConfig: options.kubeConfig,
          key: options.key,
          ranges: [],
          mode: options.mode,
          ...(log === undefined ? {} : { logger: log }),
        });
      const { kubeConfig: _k, mode: _m, informers: _i, source: _s, key: _key, ...membership } = options;
      // Checked when the module was built (above): the replica's membership checks nothing again.
      replica = new ShardReplica(markChecked({ ...membership, client, source, ...(log === undefined ? {} : { logger: log }) }));
      return replica;
    };
    // Unbind + bind rather than rebind: a binding made through this module's own `bind` is unloaded with it.
    if (container.isBound(TOKENS.informerSource)) container.unbind(TOKENS.informerSource);
    container
      .bind(TOKENS.informerSource)
      .toDynamicValue((ctx) => build(ctx.get(TOKENS.logger, { optional: true })).source)
      .inSingletonScope();
    container
      .bind(TOKENS.passGate)
      .toDynamicValue((ctx) => build(ctx.get(TOKENS.logger, { optional: true })))
      .inSingletonScope();
  });
}
