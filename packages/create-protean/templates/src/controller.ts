import type { KubeConfigLike } from '@protean/transport';
import { applyOwned, EventRecorder, KubeClient, reconcileFinalizer, setStatusCondition } from '@protean/client';
import { parseSelector, type DynamicController, type Handler, type Logger } from '@protean/core';
import type { Parent } from './kind.js';
import { CONFIGMAPS, CONTROLLER_NAME, FINALIZER, PARENT, PART_OF_LABEL, REPORTING_CONTROLLER } from './names.js';

export type { Parent } from './kind.js';

/** What {@link createHandler} needs. */
export interface HandlerOptions {
  readonly kubeConfig: KubeConfigLike;
  /** Read for the informer cache of the parts (metadata only, no request to the API server). */
  readonly controller: Pick<DynamicController, 'informer'>;
  /** Where the client tells of what the API server warned about (a field it pruned). Default: a logger of its own. */
  readonly logger?: Logger;
  /** Abort it once the controller has stopped: the handler's client is closed, and an Event still being retried stops. */
  readonly signal?: AbortSignal;
}

/**
 * Reconciles one parent: keeps a ConfigMap `<name>-{{singular}}` holding its
 * message and the names of its parts (ConfigMaps labelled
 * `PART_OF_LABEL=<name>`), reports a `Ready` condition, records Events, and
 * holds a finalizer so it gets one last pass before the parent goes.
 *
 * Easy to get wrong: declare each watch on `ctx.watcher` before reading or
 * writing what it watches (`applyOwned` does it for the child), so no change
 * in between is missed.
 */
export function createHandler(options: HandlerOptions): Handler {
  const client = new KubeClient({
    kubeConfig: options.kubeConfig,
    fieldManager: CONTROLLER_NAME,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  options.signal?.addEventListener('abort', () => client.close(), { once: true });
  const events = new EventRecorder({ client, reportingController: REPORTING_CONTROLLER });
  return async ({ namespace, name }, ctx) => {
    const { signal } = ctx; // aborts at shutdown, at the reconcile timeout and when leadership ends: pass it on
    const parent = await client.find<Parent>(PARENT.gvr, { namespace, name }, { signal });
    if (parent === undefined) return; // deleted: declaring nothing drops its watches

    const step = await reconcileFinalizer(client, PARENT.gvr, parent, {
      finalizer: FINALIZER,
      // The child is garbage-collected through its owner reference; release here what the cluster cannot.
      cleanup: async (p) => events.event(p, { type: 'Normal', reason: 'CleanedUp', action: 'Cleanup' }),
      signal,
    });
    if (step.deleting) return;

    // The collection watch: any ConfigMap entering, changing in or leaving the selector wakes this parent.
    const selector = parseSelector(`${PART_OF_LABEL}=${name}`);
    await ctx.watcher.watch({ nodeId: 'parts', gvr: CONFIGMAPS, namespace, selector });
    const parts = (options.controller.informer(CONFIGMAPS)?.list() ?? [])
      .filter((o) => o.metadata.namespace === namespace && selector.matches(o.metadata.labels ?? {}))
      .map((o) => o.metadata.name)
      .sort();

    const child = `${name}-{{singular}}`;
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: child, namespace },
      data: { message: parent.spec?.message ?? '', parts: parts.join(',') },
    };
    // Watch the child, make the parent its controller, then server-side apply it: in that order.
    await applyOwned(client, ctx.watcher, CONFIGMAPS, parent, configMap, { nodeId: 'configmap', force: true, signal });

    const conditions = structuredClone(parent.status?.conditions ?? []);
    const generation = parent.metadata.generation;
    const changed = setStatusCondition(conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'ConfigMapApplied',
      message: `ConfigMap ${child} holds the message and ${parts.length} parts`,
      ...(generation === undefined ? {} : { observedGeneration: generation }),
    });
    if (changed || parent.status?.parts !== parts.length) {
      await client.patchStatus(PARENT.gvr, { namespace, name }, { conditions, parts: parts.length }, { signal });
      events.event(parent, { type: 'Normal', reason: 'ConfigMapApplied', action: 'Apply', note: `${child}: ${parts.length} parts` });
    }
  };
}
