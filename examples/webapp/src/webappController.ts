import { CoreV1Api, CustomObjectsApi, type KubeConfig } from '@kubernetes/client-node';
import {
  isNotFound,
  parseSelector,
  requeue,
  type GroupVersionResource,
  type Handler,
  type NamespacedName,
  type ReconcileContext,
} from '@protean/core';
import { APP_LABEL, applyConfigMap, configMapName } from './applyConfigMap.js';
import { CONFIGMAPS } from './kinds.js';
import { InvalidSpecError } from './InvalidSpecError.js';
import { parseWebAppSpec } from './parseWebAppSpec.js';
import type { ReconcileReporter, ReconcileResult } from './ReconcileReporter.js';
import { requestOptions } from './requestOptions.js';
import type { WebAppObject, WebAppSpec } from './WebAppObject.js';
import { writeStatus } from './writeStatus.js';

/** What the WebApp handler needs. */
export interface WebAppHandlerDeps {
  /** The cluster the handler reads and writes (the informers use their own connection). */
  readonly kubeConfig: KubeConfig;
  /** Optional hooks to follow each call (the demo's live log). */
  readonly reporter?: ReconcileReporter;
}

/**
 * The handler of every parent kind of the example (WebApp, WebSite): it
 * renders the instance's spec into the ConfigMap `<instance>-config`,
 * counts the ConfigMaps labelled `app=<instance>` in its namespace, and
 * reports both in the instance's status. The parent GVR comes from
 * `ctx.gvr`, so one handler serves any kind with this shape.
 *
 * Child watches are declared on `ctx.watcher`, and the controller settles
 * them from the outcome: resolving commits exactly what this pass declared
 * (a deleted instance declares nothing, so its watches go), throwing keeps
 * the previous pass's set.
 *
 * Easy to get wrong: declare a watch *before* reading or writing what it
 * covers, or a change landing in between is never seen.
 */
export function createWebAppHandler(deps: WebAppHandlerDeps): Handler {
  const objects = deps.kubeConfig.makeApiClient(CustomObjectsApi);
  const core = deps.kubeConfig.makeApiClient(CoreV1Api);
  const { reporter } = deps;

  async function reconcile(req: NamespacedName, ctx: ReconcileContext): Promise<ReconcileResult> {
    // (a) The informer cache holds metadata only: fetch the whole instance.
    const instance = await readInstance(objects, ctx.gvr, req, ctx.signal);
    // Deleted: declare nothing, and the controller drops the instance's watches.
    if (instance === undefined) return { outcome: 'deleted' };
    let spec: WebAppSpec;
    try {
      spec = parseWebAppSpec(instance);
    } catch (err) {
      if (!(err instanceof InvalidSpecError)) throw err;
      await writeStatus(objects, ctx.gvr, instance, { ready: false, reason: 'InvalidSpec', message: err.message }, ctx.signal);
      // Retrying cannot help; fixing the spec bumps the generation, which reconciles again.
      throw requeue.none(err);
    }

    // (b) The ConfigMap this instance owns: watch it, then create or update it.
    const name = configMapName(req.name);
    await ctx.watcher.watch({ nodeId: 'config', gvr: CONFIGMAPS, namespace: req.namespace, name });
    const configMap = await applyConfigMap(core, instance, spec, ctx.signal);

    // (c) Every ConfigMap labelled app=<instance>: watch the collection, then count it.
    const selector = parseSelector(`${APP_LABEL}=${req.name}`);
    await ctx.watcher.watch({ nodeId: 'labelled', gvr: CONFIGMAPS, namespace: req.namespace, selector });
    const list = await core.listNamespacedConfigMap(
      { namespace: req.namespace, labelSelector: selector.toString() },
      requestOptions(ctx.signal),
    );
    const configMapCount = list.items.length;

    // (d) Report through the status subresource (does not bump the generation).
    const statusWritten = await writeStatus(objects, ctx.gvr, instance, { ready: true, configMapCount }, ctx.signal);

    // (e) Returning commits this pass's watches: anything not declared again is released.
    const generation = instance.metadata.generation ?? 0;
    return { outcome: 'reconciled', configMap, configMapCount, generation, statusWritten };
  }

  return async (req, ctx) => {
    reporter?.started?.(ctx.gvr, req);
    let result: ReconcileResult;
    try {
      result = await reconcile(req, ctx);
    } catch (err) {
      const invalid = err instanceof Error && err.cause instanceof InvalidSpecError;
      reporter?.finished?.(
        ctx.gvr,
        req,
        invalid ? { outcome: 'invalid', message: (err.cause as Error).message } : { outcome: 'failed', error: err },
      );
      throw err;
    }
    if (ctx.logger.isLevelEnabled('debug')) ctx.logger.debug({ result }, 'reconciled');
    reporter?.finished?.(ctx.gvr, req, result);
  };
}

/** The instance, or undefined when it no longer exists. */
async function readInstance(
  objects: CustomObjectsApi,
  gvr: GroupVersionResource,
  req: NamespacedName,
  signal: AbortSignal,
): Promise<WebAppObject | undefined> {
  try {
    const params = { group: gvr.group, version: gvr.version, plural: gvr.resource, namespace: req.namespace, name: req.name };
    return (await objects.getNamespacedCustomObject(params, requestOptions(signal))) as WebAppObject;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
