import { namespacedNameKey, type Handler, type NamespacedName, type ReconcileContext } from '../index.js';

/** One recorded handler call. */
export interface HandlerCall {
  readonly req: NamespacedName;
  readonly ctx: ReconcileContext;
}

/**
 * A {@link Handler} that records its calls and then runs `impl` (default:
 * succeed). Register `recorder.handler`; swap `impl` at any time to change
 * what the next calls do.
 * Easy to get wrong: a call is recorded when it starts, before `impl`
 * settles; await a condition on your own state to know it finished.
 */
export class HandlerRecorder {
  readonly calls: HandlerCall[] = [];
  impl: Handler;

  constructor(impl: Handler = () => Promise.resolve()) {
    this.impl = impl;
  }

  readonly handler: Handler = (req, ctx) => {
    this.calls.push({ req: { namespace: req.namespace, name: req.name }, ctx });
    return this.impl(req, ctx);
  };

  /** Calls so far, for one instance when `req` is given. */
  count(req?: NamespacedName): number {
    if (req === undefined) return this.calls.length;
    const key = namespacedNameKey(req);
    return this.calls.filter((c) => namespacedNameKey(c.req) === key).length;
  }

  /** The requested instances as `namespace/name` keys, in call order. */
  keys(): string[] {
    return this.calls.map((c) => namespacedNameKey(c.req));
  }

  clear(): void {
    this.calls.length = 0;
  }
}
