import type {
  DeletedFinalStateUnknown,
  HandlerRegistration,
  Logger,
  PartialObjectMetadata,
  ResourceEventHandler,
} from '@protean/core';

class Registration implements HandlerRegistration {
  synced = false;
  removed = false;
  constructor(readonly handler: ResourceEventHandler) {}
  hasSynced(): boolean {
    return this.synced;
  }
}

/**
 * The event handlers of one informer. Each handler call is isolated: a
 * handler that throws is logged and the others (and the informer) carry
 * on. Dispatch iterates over a snapshot, so a handler added or removed by
 * a handler takes effect from the next event, never mid-event.
 */
export class HandlerSet {
  private regs: readonly Registration[] = [];

  constructor(private readonly log: Logger) {}

  /**
   * Registers `handler` and replays `current` to it as adds, flagged
   * `isInInitialList` while the informer has not synced. Easy to get wrong:
   * the registration reports synced only once the handler has had the
   * initial list, which for an unsynced informer is at {@link markSynced}.
   */
  register(handler: ResourceEventHandler, current: Iterable<PartialObjectMetadata>, informerSynced: boolean): HandlerRegistration {
    const reg = new Registration(handler);
    this.regs = [...this.regs, reg];
    for (const obj of current) {
      if (reg.removed) break;
      try {
        handler.onAdd?.(obj, !informerSynced);
      } catch (err) {
        this.handlerThrew(err, 'onAdd');
      }
    }
    reg.synced = informerSynced;
    return reg;
  }

  unregister(registration: HandlerRegistration): void {
    if (!(registration instanceof Registration)) return;
    registration.removed = true;
    this.regs = this.regs.filter((r) => r !== registration);
  }

  get size(): number {
    return this.regs.length;
  }

  /** Every handler has now had the initial list. */
  markSynced(): void {
    for (const r of this.regs) r.synced = true;
  }

  added(obj: PartialObjectMetadata, isInInitialList: boolean): void {
    this.batch().added(obj, isInInitialList);
  }

  updated(oldObj: PartialObjectMetadata, newObj: PartialObjectMetadata): void {
    this.batch().updated(oldObj, newObj);
  }

  deleted(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void {
    this.batch().deleted(obj);
  }

  /**
   * A dispatcher over the handlers registered now. Use one for a run of
   * events that belong together (a relist, a resync): a handler registered
   * during the run already got the whole cache as its replay, so it must
   * not also get the rest of the run.
   */
  batch(): HandlerBatch {
    return new HandlerBatch(this.regs, (err, callback) => this.handlerThrew(err, callback));
  }

  private handlerThrew(err: unknown, callback: string): void {
    this.log.error({ err, callback }, 'informer event handler threw; the informer carries on');
  }
}

/** Delivers events to a fixed set of handlers; see {@link HandlerSet.batch}. */
export class HandlerBatch {
  constructor(
    private readonly regs: readonly Registration[],
    private readonly threw: (err: unknown, callback: string) => void,
  ) {}

  added(obj: PartialObjectMetadata, isInInitialList: boolean): void {
    for (const r of this.regs) {
      if (r.removed || r.handler.onAdd === undefined) continue;
      try {
        r.handler.onAdd(obj, isInInitialList);
      } catch (err) {
        this.threw(err, 'onAdd');
      }
    }
  }

  updated(oldObj: PartialObjectMetadata, newObj: PartialObjectMetadata): void {
    for (const r of this.regs) {
      if (r.removed || r.handler.onUpdate === undefined) continue;
      try {
        r.handler.onUpdate(oldObj, newObj);
      } catch (err) {
        this.threw(err, 'onUpdate');
      }
    }
  }

  deleted(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void {
    for (const r of this.regs) {
      if (r.removed || r.handler.onDelete === undefined) continue;
      try {
        r.handler.onDelete(obj);
      } catch (err) {
        this.threw(err, 'onDelete');
      }
    }
  }
}
