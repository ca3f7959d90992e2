import type { KubeConfigLike } from '@protean/transport';
import { TOKENS, type InformerSource, type WatchManagerFactory } from '@protean/core';
import type { ContainerModule } from 'inversify';
import { containerModule, markChecked } from '@protean/core/internal';
import { KubernetesInformerSource, type KubernetesInformerSourceOptions } from './KubernetesInformerSource.js';
import { InformerWatchManager } from './InformerWatchManager.js';
import { checkInformerWatchManagerOptions, type InformerWatchManagerOptions } from './InformerWatchManagerOptions.js';
import type { GvrPattern } from './ResourceAllowList.js';

/** Options of {@link watchManagerModule} over the Kubernetes informer source. */
export interface WatchManagerModuleOptions extends Partial<KubernetesInformerSourceOptions>, WatchManagerModuleCommonOptions {
  /** The cluster and credentials the default informer source talks to. */
  readonly kubeConfig: KubeConfigLike;
}

/** Options of {@link watchManagerModule} over an informer source of your own (a fake in tests, a polling source). */
export interface WatchManagerModuleSourceOptions extends WatchManagerModuleCommonOptions {
  /** Bound to `TOKENS.informerSource` as is. */
  readonly source: InformerSource;
}

/** What {@link watchManagerModule} takes whichever the source. */
export interface WatchManagerModuleCommonOptions {
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
 * `kubeConfig` (logging through `TOKENS.logger` when bound), or to the
 * `source` given, and `TOKENS.watchManagerFactory` to a factory of
 * {@link InformerWatchManager}. Swap the informer source later by rebinding
 * its token before the first `container.get`:
 * `container.rebind(TOKENS.informerSource).toConstantValue(mySource)`.
 */
export function watchManagerModule(options: WatchManagerModuleOptions | WatchManagerModuleSourceOptions): ContainerModule {
  const given = options !== null && typeof options === 'object' && 'source' in options ? options.source : undefined;
  if (given === undefined && (options as WatchManagerModuleOptions | undefined)?.kubeConfig === undefined)
    throw new TypeError('watchManagerModule: options.kubeConfig (or an informer source as options.source) is required');
  const { watchManager: watchManagerOptions, allowedResources } = options;
  // Checked here, where they enter, so bad options (and allowedResources patterns) fail when the module is built, not
  // at the first watch; the watch managers the factory builds check nothing again, and take the resyncPeriodMs of
  // WatchManagerDeps as core's resolveConfig checked it.
  const { failureBackoff } = watchManagerOptions ?? {};
  // A copy no one else holds, so what was checked stays what the watch managers get.
  const managerOptions: InformerWatchManagerOptions = Object.freeze({
    ...watchManagerOptions,
    ...(failureBackoff === undefined ? {} : { failureBackoff: Object.freeze({ ...failureBackoff }) }),
    ...(allowedResources === undefined ? {} : { allowedResources }),
  });
  checkInformerWatchManagerOptions(managerOptions);
  markChecked(managerOptions);
  const factory: WatchManagerFactory = (deps) =>
    new InformerWatchManager(deps.source, deps.resyncPeriodMs, deps.onEvent, deps.logger, managerOptions);
  return containerModule((bindOptions) => {
    if (given !== undefined) bindOptions.bind(TOKENS.informerSource).toConstantValue(given);
    else
      bindOptions
        .bind(TOKENS.informerSource)
        .toDynamicValue((ctx) => {
          const { watchManager: _manager, allowedResources: _allowed, ...sourceOptions } = options as WatchManagerModuleOptions;
          const logger = sourceOptions.logger ?? ctx.get(TOKENS.logger, { optional: true });
          return new KubernetesInformerSource(logger === undefined ? sourceOptions : { ...sourceOptions, logger });
        })
        .inSingletonScope();
    bindOptions.bind(TOKENS.watchManagerFactory).toConstantValue(factory);
  });
}
