import { gvrKey, namespacedNameKey, type GroupVersionResource, type NamespacedName } from '../gvr.js';

/**
 * The reason `ctx.signal` aborts with when a handler pass runs longer than
 * the config's `reconcileTimeoutMs`. The controller counts such a pass as
 * failed (retried with backoff), whatever the handler does afterwards.
 *
 * Easy to get wrong: a handler that catches the abort should rethrow it (or
 * let it propagate): swallowing it does not turn the pass into a success.
 */
export class ReconcileTimeoutError extends Error {
  override readonly name = 'ReconcileTimeoutError';
  readonly gvr: GroupVersionResource;
  readonly instance: NamespacedName;
  readonly timeoutMs: number;

  constructor(gvr: GroupVersionResource, instance: NamespacedName, timeoutMs: number) {
    super(
      `reconcile of ${gvrKey(gvr)} ${namespacedNameKey(instance)} exceeded reconcileTimeoutMs=${timeoutMs}; its ctx.signal was aborted`,
    );
    this.gvr = gvr;
    this.instance = { namespace: instance.namespace, name: instance.name };
    this.timeoutMs = timeoutMs;
  }
}
