import type { ControllerStatus, DynamicController } from '@protean/core';
import type { InformerStatusEntry } from '@protean/core/internal';
import type { InformerStatus } from '../InformerHealthRules.js';
import type { PermissionsStatus } from '../permissions/PermissionsMonitor.js';
import type { RecentPassesView } from '../tracing/RecentPass.js';
import type { WebhookStatusView } from '../WebhookMetrics.js';
import type { StatusPageSource } from './StatusPageSource.js';

/**
 * How an informer fares under the health rules, as the status page colours
 * it; `unknown`: synced, but the watch manager reports no health to assess.
 */
export type InformerState = 'syncing' | 'healthy' | 'unhealthy' | 'down' | 'unknown';

/** One informer of {@link StatusPageStatus}: the controller's entry plus its assessment. */
export interface StatusPageInformer extends InformerStatusEntry {
  readonly state: InformerState;
  /** What the health rules found wrong (`failing for 75 s ...`); unset when healthy. */
  readonly problem?: string;
}

/** `/statusz/status.json`: `DynamicController.status()` with each informer assessed by the health rules. */
export interface StatusPageStatus extends Omit<ControllerStatus, 'informers'> {
  readonly informers: readonly StatusPageInformer[];
  /** The permissions used and refused, when `instrumentContainer` was given the connection pool. */
  readonly permissions?: Pick<PermissionsStatus, 'denied' | 'rows'>;
  /** The recent passes with their spans and triggers, when `instrumentContainer` was given a `RecentPassesRecorder`. */
  readonly recentPasses?: RecentPassesView;
  /** The webhook server's paths and their counts, when `instrumentContainer` was given `webhooks`. */
  readonly webhooks?: WebhookStatusView;
}

/**
 * The status page's source over a composed controller: `status()` is
 * `DynamicController.status()` with the informers' assessed health,
 * `explain()` is `DynamicController.explain()`; with `recentPasses`, the
 * status carries its passes (`RecentPassesRecorder.view()`).
 */
export function controllerStatusPage(
  controller: () => DynamicController | undefined,
  informers: () => readonly InformerStatus[],
  permissions?: () => PermissionsStatus,
  recentPasses?: { view(): RecentPassesView },
  webhooks?: () => WebhookStatusView,
): StatusPageSource {
  const composed = (): DynamicController => {
    const c = controller();
    if (c === undefined) throw new Error('the status page has no controller yet: get DynamicController from the container first');
    return c;
  };
  return {
    status: (): StatusPageStatus => {
      const status = composed().status();
      const assessed = new Map(informers().map((i) => [i.gvr, i]));
      return {
        ...status,
        informers: status.informers.map((entry) => {
          const a = assessed.get(entry.gvr);
          const state: InformerState = !entry.synced
            ? 'syncing'
            : a === undefined
              ? 'unknown'
              : a.down
                ? 'down'
                : a.healthy
                  ? 'healthy'
                  : 'unhealthy';
          return { ...entry, state, ...(a?.problem === undefined ? {} : { problem: a.problem }) };
        }),
        ...(permissions === undefined ? {} : { permissions: pageView(permissions()) }),
        ...(recentPasses === undefined ? {} : { recentPasses: recentPasses.view() }),
        ...(webhooks === undefined ? {} : { webhooks: webhooks() }),
      };
    },
    explain: (query) => composed().explain(query),
  };
}

function pageView(status: PermissionsStatus): Pick<PermissionsStatus, 'denied' | 'rows'> {
  return { denied: status.denied, rows: status.rows };
}
