import type { KubeConfig } from '@kubernetes/client-node';
import { TOKENS, type WatchRegistryFactory } from '@protean/core';
import { ContainerModule } from 'inversify';
import { KubernetesInformerSource, type KubernetesInformerSourceOptions } from './KubernetesInformerSource.js';
import { WatchManager } from './WatchManager.js';

/** Options of {@link watchManagerModule}. */
export interface WatchManagerModuleOptions extends Partial<KubernetesInformerSourceOptions> {
  /** The cluster and credentials the default informer source talks to. */
  readonly kubeConfig: KubeConfig;
}

/**
 * Binds `TOKENS.informerSource` to a {@link KubernetesInformerSource} for
 * `kubeConfig` (logging through `TOKENS.logger` when bound) and
 * `TOKENS.watchRegistryFactory` to a factory of {@link WatchManager}.
 * Swap the informer source by rebinding its token before the first
 * `container.get`: `container.rebind(TOKENS.informerSource).toConstantValue(mySource)`.
 */
export function watchManagerModule(options: WatchManagerModuleOptions): ContainerModule {
  if (options?.kubeConfig === undefined) throw new TypeError('watchManagerModule: options.kubeConfig is required');
  const factory: WatchRegistryFactory = (deps) => new WatchManager(deps.source, deps.resyncPeriodMs, deps.onEvent, deps.logger);
  return new ContainerModule((bindOptions) => {
    bindOptions
      .bind(TOKENS.informerSource)
      .toDynamicValue((ctx) => {
        const logger = options.logger ?? ctx.get(TOKENS.logger, { optional: true });
        return new KubernetesInformerSource(logger === undefined ? options : { ...options, logger });
      })
      .inSingletonScope();
    bindOptions.bind(TOKENS.watchRegistryFactory).toConstantValue(factory);
  });
}
