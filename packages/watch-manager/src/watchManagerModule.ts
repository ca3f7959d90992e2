import type { KubeConfig } from '@kubernetes/client-node';
import { TOKENS, type WatchManagerFactory } from '@protean/core';
import { ContainerModule } from 'inversify';
import { KubernetesInformerSource, type KubernetesInformerSourceOptions } from './KubernetesInformerSource.js';
import { InformerWatchManager } from './InformerWatchManager.js';
import type { InformerWatchManagerOptions } from './InformerWatchManagerOptions.js';

/** Options of {@link watchManagerModule}. */
export interface WatchManagerModuleOptions extends Partial<KubernetesInformerSourceOptions> {
  /** The cluster and credentials the default informer source talks to. */
  readonly kubeConfig: KubeConfig;
  /** Options of every {@link InformerWatchManager} the bound factory builds (sync timeout, polling, failure backoff, clock). */
  readonly watchManager?: InformerWatchManagerOptions;
}

/**
 * Binds `TOKENS.informerSource` to a {@link KubernetesInformerSource} for
 * `kubeConfig` (logging through `TOKENS.logger` when bound) and
 * `TOKENS.watchManagerFactory` to a factory of {@link InformerWatchManager}.
 * Swap the informer source by rebinding its token before the first
 * `container.get`: `container.rebind(TOKENS.informerSource).toConstantValue(mySource)`.
 */
export function watchManagerModule(options: WatchManagerModuleOptions): ContainerModule {
  if (options?.kubeConfig === undefined) throw new TypeError('watchManagerModule: options.kubeConfig is required');
  const factory: WatchManagerFactory = (deps) =>
    new InformerWatchManager(deps.source, deps.resyncPeriodMs, deps.onEvent, deps.logger, options.watchManager);
  return new ContainerModule((bindOptions) => {
    bindOptions
      .bind(TOKENS.informerSource)
      .toDynamicValue((ctx) => {
        const logger = options.logger ?? ctx.get(TOKENS.logger, { optional: true });
        const { watchManager: _watchManager, ...sourceOptions } = options;
        return new KubernetesInformerSource(logger === undefined ? sourceOptions : { ...sourceOptions, logger });
      })
      .inSingletonScope();
    bindOptions.bind(TOKENS.watchManagerFactory).toConstantValue(factory);
  });
}
