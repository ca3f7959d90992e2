import type { KubeConfigLike } from '@protean/transport';
import { applyOwned, KubeClient, type Stored } from '@protean/client';
import {
  parseSelector,
  requeue,
  type GroupVersionResource,
  type Handler,
  type NamespacedName,
  type ReconcileContext,
  type RegisterOptions,
} from '@protean/core';
import { InvalidSpecError } from './InvalidSpecError.js';
import { CONFIGMAPS } from './kinds.js';
import { parseWebAppSpec } from './parseWebAppSpec.js';
import type { ReconcileReporter, ReconcileResult } from './ReconcileReporter.js';
import { APP_LABEL, configMapChange, configMapName, desiredConfigMap, type ConfigMapObject } from './webAppConfigMap.js';
import type { WebAppObject, WebAppSpec } from './WebAppObject.js';
import { nextStatus, type StatusReport } from './webAppStatus.js';

/** The field manager of the handler's writes (`metadata.managedFields`). */
export const FIELD_MANAGER = 'webapp-controller';

/**
 * How to register the handler for a parent kind: its instances and the
 * ConfigMaps are read from the object cache, so a pass sends no GET or
 * LIST for them (`controller.register(gvr, handler, webAppRegisterOptions(gvr))`).
 */
export function webAppRegisterOptions(parent: GroupVersionResource): RegisterOptions {
  return { cache: [parent, CONFIGMAPS] };
}

/** What the WebApp handler needs. */
export interface WebAppHandlerDeps {
  /** The cluster the handler writes (it reads from the object cache; the informers use their own connection). */
  readonly kubeConfig: KubeConfigLike;
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
 * covers, or a change landing in between is never seen; and register with
 * {@link webAppRegisterOptions}, or its cached reads reject with an
 * `ObjectNotCachedError`.
 */
export function createWebAppHandler(deps: WebAppHandlerDeps): Handler {
  // Every request takes the pass's signal: shutdown and the reconcile timeout abort it.
  const client = new KubeClient({ kubeConfig: deps.kubeConfig, fieldManager: FIELD_MANAGER });
  const { reporter } = deps;

  /** Writes the status `report` asks for through the status subresource, unless the instance has it; returns whether it wrote. */
  async function writeStatus(instance: WebAppObject, report: StatusReport, ctx: ReconcileContext): Promise<boolean> {
    const status = nextStatus(instance, report);
    if (status === undefined) return false;
    await client.patchStatus(ctx.gvr, instance.metadata, status, { signal: ctx.signal });
    return true;
  }

  async function reconcile(req: NamespacedName, ctx: ReconcileContext): Promise<ReconcileResult> {
    const { signal } = ctx;
    // (a) The instance, from the object cache (the registration caches its kind: webAppRegisterOptions).
    const instance = await ctx.get<WebAppObject>(ctx.gvr, req.namespace, req.name);
    // Deleted: declare nothing, and the controller drops the instance's watches.
    if (instance === undefined) return { outcome: 'deleted' };
    let spec: WebAppSpec;
    try {
      spec = parseWebAppSpec(instance);
    } catch (err) {
      if (!(err instanceof InvalidSpecError)) throw err;
      await writeStatus(instance, { ready: false, reason: 'InvalidSpec', message: err.message }, ctx);
      // Retrying cannot help; fixing the spec bumps the generation, which reconciles again.
      throw requeue.none(err);
    }

    // (b) The ConfigMap this instance owns: applyOwned watches it, makes the instance its
    // controller and server-side applies it (force: the handler's label and data win over
    // another writer's). The reads (before, and applyOwned's) come from the object cache.
    const key = { namespace: req.namespace, name: configMapName(req.name) };
    await ctx.watcher.watch({ nodeId: 'config', gvr: CONFIGMAPS, ...key });
    const before = await ctx.get<Stored<ConfigMapObject>>(CONFIGMAPS, key.namespace, key.name);
    const applied = await applyOwned(client, ctx.watcher, CONFIGMAPS, instance, desiredConfigMap(instance, spec), {
      nodeId: 'config',
      force: true,
      signal,
      cache: ctx,
    });
    const configMap = configMapChange(before, applied);

    // (c) Every ConfigMap labelled app=<instance>: watch the collection, then count it in the cache
    // (read-your-writes: the ConfigMap just applied is counted even before its watch event arrives).
    const selector = parseSelector(`${APP_LABEL}=${req.name}`);
    await ctx.watcher.watch({ nodeId: 'labelled', gvr: CONFIGMAPS, namespace: req.namespace, selector });
    const labelled = await ctx.list(CONFIGMAPS, { namespace: req.namespace, labelSelector: selector });
    const configMapCount = labelled.length;

    // (d) Report through the status subresource (does not bump the generation).
    const statusWritten = await writeStatus(instance, { ready: true, configMapCount }, ctx);

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
