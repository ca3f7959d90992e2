import type { KubeConfig } from '@kubernetes/client-node';
import { TOKENS, type WatchManagerFactory } from '@protean/core';
import { ContainerModule } from 'inversify';
import { KubernetesInformerSource, type KubernetesInformerSourceOptions } from './KubernetesInformerSource.js';
import { InformerWatchManager } from './InformerWatchManager.js';
import type { InformerWatchManagerOptions } from './InformerWatchManagerOptions.js';
import { ResourceAllowList, type GvrPattern } from './ResourceAllowList.js';

/** Options of {@link watchManagerModule}. */
export interface WatchManagerModuleOptions extends Partial<KubernetesInformerSourceOptions> {
  /** The cluster and credentials the default informer source talks to. */
  readonly kubeConfig: KubeConfig;
  /** Options of every {@link InformerWatchManager} the bound factory builds (sync timeout, polling, failure backoff, clock). */
  readonly watchManager?: InformerWatchManagerOptions;
  /**
   * The GVRs the controller may watch (`InformerWatchManagerOptions.allowedResources`):
   * a parent or child GVR outside these patterns is refused with a
   * `ResourceNotAllowedError` before any request, so the RBAC the
   * controller needs stays finite. Default: every GVR.
   */
  readonly allowedResources?: readonly GvrPattern[];
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
  const { watchManager: watchManagerOptions, allowedResources, ...sourceOptions } = options;
  const managerOptions: InformerWatchManagerOptions | undefined =
    allowedResources === undefined ? watchManagerOptions : { ...watchManagerOptions, allowedResources };
  // Bad patterns fail here, when the module is built, not at the first watch.
  if (allowedResources !== undefined) new ResourceAllowList(allowedResources);
  const factory: WatchManagerFactory = (deps) =>
    new InformerWatchManager(deps.source, deps.resyncPeriodMs, deps.onEvent, deps.logger, managerOptions);
  return new ContainerModule((bindOptions) => {
    bindOptions
      .bind(TOKENS.informerSource)
      .toDynamicValue((ctx) => {
        const logger = options.logger ?? ctx.get(TOKENS.logger, { optional: true });
        return new KubernetesInformerSource(logger === undefined ? sourceOptions : { ...sourceOptions, logger });
      })
      .inSingletonScope();
    bindOptions.bind(TOKENS.watchManagerFactory).toConstantValue(factory);
  });
}
