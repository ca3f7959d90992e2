import { gvrKey, summarizeError, type ControllerObserver, type DynamicController, type GroupVersionResource } from '@protean/core';
import { describeFailedPass, firstStackFrame } from './describeFailedPass.js';
import type { FailedPass } from './FailedPass.js';

/** Where {@link FailedPassLog} prints each failed pass; `undefined`: nowhere. */
export type FailedPassPrinter = ((line: string) => void) | undefined;

/**
 * Keeps the last failed pass of a test controller and prints each one, by
 * decorating the controller's observer: `onHandlerError` tells which
 * errors are failures (the controller's own rule), the passes in flight at
 * that moment tell the instance, and the controller's failed-items status
 * tells how many times in a row it failed and whether it is retried.
 */
export class FailedPassLog {
  private controller: DynamicController | undefined;
  private seq = 0;
  private lastPass: FailedPass | undefined;

  constructor(private readonly print: FailedPassPrinter) {}

  /** The controller whose status names the instances; set once it is built (no pass runs before). */
  attach(controller: DynamicController): void {
    this.controller = controller;
  }

  /** The controller it reports on, once attached. */
  attached(): DynamicController | undefined {
    return this.controller;
  }

  /** Failed passes so far. */
  count(): number {
    return this.seq;
  }

  last(): FailedPass | undefined {
    return this.lastPass;
  }

  /**
   * `inner` with `onHandlerError` recorded first; every other hook (present
   * or added later to the contract) is `inner`'s own.
   */
  observe(inner: ControllerObserver): ControllerObserver {
    const onHandlerError = (gvr: GroupVersionResource, err: unknown, thrownSync: boolean): void => {
      try {
        this.record(gvr, err);
      } finally {
        inner.onHandlerError?.(gvr, err, thrownSync);
      }
    };
    return new Proxy<ControllerObserver>(
      {},
      {
        get: (_target, prop) => {
          if (prop === 'onHandlerError') return onHandlerError;
          const value: unknown = Reflect.get(inner, prop, inner);
          return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(inner) : value;
        },
        has: (_target, prop) => prop === 'onHandlerError' || Reflect.has(inner, prop),
      },
    );
  }

  private record(gvr: GroupVersionResource, error: unknown): void {
    const parent = gvrKey(gvr);
    const inFlight = (this.controller?.queueStatus().inFlight ?? []).filter((p) => p.parent === parent).map((p) => instanceKey(p));
    const summary = summarizeError(error);
    const frame = firstStackFrame(error);
    const pass: FailedPass = {
      seq: ++this.seq,
      parent,
      ...(inFlight.length === 1 ? { instance: inFlight[0] } : {}),
      inFlight,
      error,
      summary,
      ...(frame === undefined ? {} : { frame }),
    };
    this.lastPass = pass;
    // The controller records the failure (count, retry or drop) right after this hook returns, in the same turn.
    queueMicrotask(() => this.complete(pass));
  }

  private complete(pass: FailedPass): void {
    const failures = this.controller?.queueStatus().recentFailures ?? [];
    const keys = pass.instance === undefined ? pass.inFlight : [pass.instance];
    const candidates = failures.filter((f) => f.parent === pass.parent && f.error === pass.summary && keys.includes(instanceKey(f)));
    const record = candidates.length === 1 ? candidates[0] : undefined;
    const completed: FailedPass =
      record === undefined ? pass : { ...pass, instance: instanceKey(record), failures: record.failures, dropped: record.dropped };
    if (this.lastPass === pass) this.lastPass = completed;
    // Failures of passes cut off by stop() are the stop's doing, not the test's news.
    if (this.print !== undefined && this.controller?.isStarted() !== false)
      this.print(`createTestController: a pass failed: ${describeFailedPass(completed)}`);
  }
}

/**
 * `logFailures: true`: the line goes to `console.warn`, which Jest prints
 * under the running test, with this function as the place that logged it.
 */
export function warnFailedPass(line: string): void {
  // A handler failed in this test (the line above says where); createTestController({ logFailures: false }) silences it.
  console.warn(line);
}

function instanceKey(item: { readonly namespace: string; readonly name: string }): string {
  return item.namespace === '' ? item.name : `${item.namespace}/${item.name}`;
}
