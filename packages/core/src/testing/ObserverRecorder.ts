import { gvrKey, type ControllerObserver, type EventType, type GroupVersionResource } from '../index.js';
import { type ReconcileOutcome } from '../controller/ControllerObserver.js';

/** One `onReconcile` call. */
export interface RecordedReconcile {
  readonly gvr: GroupVersionResource;
  readonly durationMs: number;
  readonly outcome: ReconcileOutcome;
}

/** One `onHandlerError` call. */
export interface RecordedHandlerError {
  readonly gvr: GroupVersionResource;
  readonly err: unknown;
  readonly thrownSync: boolean;
}

/**
 * A {@link ControllerObserver} that records every hook call, to assert on
 * what the controller did with each item (`outcomes()`), which parent
 * events it saw and which handler failures it reported.
 */
export class ObserverRecorder implements ControllerObserver {
  readonly reconciles: RecordedReconcile[] = [];
  readonly parentEvents: { readonly gvr: GroupVersionResource; readonly type: EventType }[] = [];
  readonly handlerErrors: RecordedHandlerError[] = [];
  /** The GVR of each `onCacheReadFallback` call (a cached read that went to the server). */
  readonly cacheReadFallbacks: GroupVersionResource[] = [];

  onCacheReadFallback(gvr: GroupVersionResource): void {
    this.cacheReadFallbacks.push(gvr);
  }

  onReconcile(gvr: GroupVersionResource, durationMs: number, outcome: ReconcileOutcome): void {
    this.reconciles.push({ gvr, durationMs, outcome });
  }

  onParentEvent(gvr: GroupVersionResource, type: EventType): void {
    this.parentEvents.push({ gvr, type });
  }

  onHandlerError(gvr: GroupVersionResource, err: unknown, thrownSync: boolean): void {
    this.handlerErrors.push({ gvr, err, thrownSync });
  }

  /** The outcomes so far, in order, for one parent GVR when given. */
  outcomes(gvr?: GroupVersionResource): ReconcileOutcome[] {
    const key = gvr === undefined ? undefined : gvrKey(gvr);
    return this.reconciles.filter((r) => key === undefined || gvrKey(r.gvr) === key).map((r) => r.outcome);
  }

  clear(): void {
    this.reconciles.length = 0;
    this.parentEvents.length = 0;
    this.handlerErrors.length = 0;
  }
}
