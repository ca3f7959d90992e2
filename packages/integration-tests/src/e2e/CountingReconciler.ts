import { gvrKey, parseSelector, type Handler, type NamespacedName, type ReconcileContext } from '@protean/core';
import type { E2eCluster } from './E2eCluster.js';
import { CONFIGMAPS, type E2eKind } from './kinds.js';

/** Name of an instance's child ConfigMap. */
export function childName(instance: string): string {
  return `${instance}-config`;
}

/** One handler invocation, recorded when the handler starts. */
export interface ReconcileCall {
  readonly gvr: string;
  readonly namespace: string;
  readonly name: string;
}

/**
 * The handler the real-cluster tests register, shaped like a user's:
 * it reads the instance, declares a scalar watch on its child ConfigMap
 * before touching it, creates or updates that ConfigMap from
 * `spec.message`, declares a collection watch on ConfigMaps labelled
 * `app=<instance>`, counts them and writes the count and the generation
 * to the instance's status. A deleted instance returns at once, declaring
 * nothing: the controller forgets its watches. Every call is recorded.
 *
 * Easy to get wrong: the collection count is read after the watch is
 * declared, so no relabel can fall between the read and the watch.
 */
export class CountingReconciler {
  readonly calls: ReconcileCall[] = [];
  /** Errors the handler rejected with (the controller retries them). */
  readonly failures: unknown[] = [];
  /** Handlers running now. */
  inFlight = 0;
  /**
   * Runs after the instance was read and before any watch is declared; a
   * test sets it to hold a reconcile at that point.
   */
  beforeWatches: ((req: NamespacedName) => Promise<void>) | undefined;

  constructor(private readonly cluster: E2eCluster) {}

  handlerFor(kind: E2eKind): Handler {
    return async (req, ctx) => {
      this.calls.push({ gvr: gvrKey(ctx.gvr), namespace: req.namespace, name: req.name });
      this.inFlight++;
      try {
        await this.reconcile(kind, req, ctx);
      } catch (err) {
        this.failures.push(err);
        throw err;
      } finally {
        this.inFlight--;
      }
    };
  }

  /** Handler calls for one instance of `kind` so far. */
  callsFor(kind: E2eKind, name: string): number {
    const key = gvrKey(kind.gvr);
    return this.calls.filter((c) => c.gvr === key && c.name === name).length;
  }

  /** Resolving commits the watches declared on `ctx.watcher`; rejecting keeps the previous ones. */
  private async reconcile(kind: E2eKind, req: NamespacedName, ctx: ReconcileContext): Promise<void> {
    const obj = await this.cluster.getInstance(kind, req);
    if (obj === undefined) return; // deleted
    await this.beforeWatches?.(req);
    const child = childName(req.name);
    await ctx.watcher.watch({ nodeId: 'child', gvr: CONFIGMAPS, namespace: req.namespace, name: child });
    await this.cluster.applyChild(req.namespace, child, req.name, { message: obj.spec?.message ?? '' });
    await ctx.watcher.watch({ nodeId: 'members', gvr: CONFIGMAPS, namespace: req.namespace, selector: parseSelector(`app=${req.name}`) });
    const count = (await this.cluster.listConfigMaps(`app=${req.name}`, req.namespace)).length;
    const generation = obj.metadata.generation ?? 0;
    if (obj.status?.count !== count || obj.status.observedGeneration !== generation) {
      await this.cluster.writeStatus(kind, req, { count, observedGeneration: generation });
    }
  }
}
