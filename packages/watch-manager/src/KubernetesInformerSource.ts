import {
  LogSummarizer,
  realClock,
  silentLogger,
  type GroupVersionResource,
  type InformerSource,
  type KindUnavailableError,
  type ListWatchOptions,
} from '@protean/core';
import { markChecked, validateNamespace } from '@protean/core/internal';
import { KindAvailability } from './KindAvailability.js';
import { ServerReadiness } from './ServerReadiness.js';
import { KubernetesListWatch } from './KubernetesListWatch.js';
import {
  checkInformerOptions,
  listLimiterOf,
  resolveInformerSettings,
  type KubernetesInformerOptions,
} from './KubernetesInformerOptions.js';
import { INFORMER_LOG_SUMMARY_INTERVAL_MS } from './RetryPolicy.js';
import { StreamingListSupport } from './StreamingListSupport.js';

/** Options of a {@link KubernetesInformerSource}: those of every list/watch it creates. */
export type KubernetesInformerSourceOptions = KubernetesInformerOptions;

/**
 * The default informer source: metadata-only list/watch sources against
 * the cluster a `@kubernetes/client-node` `KubeConfig` points at.
 * Credentials are re-read from the KubeConfig on every request, so token
 * rotation, exec plugins and in-cluster token files keep working.
 *
 * `createListWatch` throws core's `InvalidGroupVersionResourceError` for a
 * GVR that breaks Kubernetes' naming rules, before any request is made;
 * the constructor throws `InvalidObjectNameError` for a bad `namespace`.
 *
 * Its informers share one {@link StreamingListSupport} (unless the options
 * bring one): once a group version refused a streaming list, every informer
 * of that group version pages LISTs, and the fallback is logged once.
 * They share one {@link LogSummarizer} too: in an API server outage, the
 * network failures of all of them are one line per cause, then a count.
 * And one {@link KindAvailability}: a list/watch refused as not served or
 * forbidden tries again when its CRD changes or RBAC grants the verb, and
 * the watch manager asks the same (`whenAvailable`) for parked instances;
 * and one {@link ServerReadiness}: after a network failure, every informer
 * tries again the moment the API server answers `/readyz`.
 *
 * Easy to get wrong: each `createListWatch` call builds a new, unshared
 * source that does nothing until `run`; the cache and sharing per GVR are
 * the watch manager's job (its informer engine).
 */
export class KubernetesInformerSource implements InformerSource {
  private readonly options: KubernetesInformerSourceOptions;

  constructor(options: KubernetesInformerSourceOptions) {
    if (options?.kubeConfig === undefined) {
      throw new TypeError('KubernetesInformerSource: options.kubeConfig is required');
    }
    if (options.namespace !== undefined) validateNamespace(options.namespace);
    checkInformerOptions(options);
    const logSummarizer =
      options.logSummarizer ??
      new LogSummarizer({
        logger: (options.logger ?? silentLogger()).child({ component: 'informer' }),
        clock: options.clock ?? realClock,
        intervalMs: INFORMER_LOG_SUMMARY_INTERVAL_MS,
      });
    const shared = {
      ...options,
      streamingListSupport: options.streamingListSupport ?? new StreamingListSupport(),
      listConcurrency: listLimiterOf(options.listConcurrency),
      logSummarizer,
    };
    const pool = resolveInformerSettings(shared).connectionPool;
    const serverReadiness =
      options.serverReadiness ??
      (pool === undefined
        ? undefined
        : new ServerReadiness(pool, {
            ...(options.clock === undefined ? {} : { clock: options.clock }),
            ...(options.logger === undefined ? {} : { logger: options.logger }),
          }));
    // Checked above and private from here on: the list/watches it builds check nothing again.
    this.options = markChecked({
      ...shared,
      kindAvailability: options.kindAvailability ?? new KindAvailability(shared),
      ...(serverReadiness === undefined ? {} : { serverReadiness }),
    });
  }

  /**
   * Resolves once the kind `refusal` refused may be available again: its
   * CRD created or changed, RBAC granting the refused verb (see
   * {@link KindAvailability}); or when `signal` aborts. Never rejects.
   */
  whenAvailable(refusal: KindUnavailableError, signal: AbortSignal): Promise<void> {
    return this.options.kindAvailability!.whenAvailable(refusal, signal);
  }

  createListWatch(gvr: GroupVersionResource, options?: ListWatchOptions): KubernetesListWatch {
    return new KubernetesListWatch(gvr, this.options, options);
  }
}
