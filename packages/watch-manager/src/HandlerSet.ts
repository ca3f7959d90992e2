import type { DeletedFinalStateUnknown, HandlerRegistration, Logger, PartialObjectMetadata, ResourceEventHandler } from '@protean/core';

class Registration implements HandlerRegistration {
  synced = false;
  removed = false;
  constructor(readonly handler: ResourceEventHandler) {}
  hasSynced(): boolean {
    return this.synced;
  }
}

/**
 * Delivers events to a fixed list of handlers. Each handler call is
 * isolated: a handler that throws is logged and the others (and the
 * informer) carry on. A handler removed during dispatch is skipped from then
 * on. See {@link HandlerSet.batch}.
 */
export class HandlerBatch {
  constructor(
    protected regs: readonly Registration[],
    protected readonly log: Logger,
  ) {}

  added(obj: PartialObjectMetadata, isInInitialList: boolean): void {
    for (const r of this.regs) {
      if (r.removed || r.handler.onAdd === undefined) continue;
      try {
        r.handler.onAdd(obj, isInInitialList);
      } catch (err) {
        this.handlerThrew(err, 'onAdd');
      }
    }
  }

  updated(oldObj: PartialObjectMetadata, newObj: PartialObjectMetadata): void {
    for (const r of this.regs) {
      if (r.removed || r.handler.onUpdate === undefined) continue;
      try {
        r.handler.onUpdate(oldObj, newObj);
      } catch (err) {
        this.handlerThrew(err, 'onUpdate');
      }
    }
  }

  deleted(obj: PartialObjectMetadata | DeletedFinalStateUnknown): void {
    for (const r of this.regs) {
      if (r.removed || r.handler.onDelete === undefined) continue;
      try {
        r.handler.onDelete(obj);
      } catch (err) {
        this.handlerThrew(err, 'onDelete');
      }
    }
  }

  protected handlerThrew(err: unknown, callback: string): void {
    this.log.error({ err, callback }, 'informer event handler threw; the informer carries on');
  }
}

/**
 * The event handlers of one informer: a {@link HandlerBatch} whose list
 * changes. The list is replaced, never modified, on register and unregister,
 * so each dispatch walks the handlers registered when it began: a handler
 * added or removed by a handler takes effect from the next event, never
 * mid-event (a removed one is skipped at once).
 */
export class HandlerSet extends HandlerBatch {
  constructor(log: Logger) {
    super([], log);
  }

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

  /**
   * A dispatcher over the handlers registered now. Use one for a run of
   * events that belong together (a relist, a resync): a handler registered
   * during the run already got the whole cache as its replay, so it must
   * not also get the rest of the run. A single event needs none: `added`,
   * `updated` and `deleted` of the set itself dispatch to the handlers
   * registered when they are called.
   */
  batch(): HandlerBatch {
    return new HandlerBatch(this.regs, this.log);
  }
}
