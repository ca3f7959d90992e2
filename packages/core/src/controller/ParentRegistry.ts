import { gvrKey, type GroupVersionResource } from '../gvr.js';
import type { Handler } from '../handler.js';
import type { ParentHandler } from './WorkerPool.js';

/** What {@link ParentRegistry.begin} returns: the new entry and the one it replaced. */
export interface ParentRegistration {
  readonly key: string;
  readonly entry: ParentHandler;
  readonly previous: ParentHandler | undefined;
}

/**
 * The parent GVRs with a handler. Entries are compared by identity, so a
 * stale registration (one that a newer `register` or a `deregister`
 * overtook while its informer synced) can neither undo nor confirm the
 * newer state.
 *
 * Easy to get wrong: an entry is set before its informer starts, so the
 * informer's initial adds are enqueued; it counts as registered for
 * {@link status} only once {@link confirm}ed (its informer synced).
 */
export class ParentRegistry {
  /** The live map the workers look handlers up in (`WorkerPool`'s `parents`). */
  readonly handlers = new Map<string, ParentHandler>();
  private readonly confirmed = new WeakSet<ParentHandler>();

  /** Sets `handler` for `gvr` now, before its informer syncs. */
  begin(gvr: GroupVersionResource, handler: Handler): ParentRegistration {
    const key = gvrKey(gvr);
    const entry: ParentHandler = { gvr: { group: gvr.group, version: gvr.version, resource: gvr.resource }, handler };
    const previous = this.handlers.get(key);
    this.handlers.set(key, entry);
    return { key, entry, previous };
  }

  /** The informer synced; false when the registration was overtaken meanwhile (nothing more to do for it). */
  confirm({ key, entry }: ParentRegistration): boolean {
    this.confirmed.add(entry);
    return this.handlers.get(key) === entry;
  }

  /**
   * The informer could not sync: the previous handler comes back only if
   * its own registration completed, so two overlapping first registrations
   * that both fail leave nothing behind. True when no handler is left for
   * the GVR (the caller then drops the parent's routing state).
   */
  rollback({ key, entry, previous }: ParentRegistration): boolean {
    if (this.handlers.get(key) !== entry) return false;
    if (previous !== undefined && this.confirmed.has(previous)) {
      this.handlers.set(key, previous);
      return false;
    }
    this.handlers.delete(key);
    return true;
  }

  /** Removes the handler of `gvr` and returns it; `undefined` when none was registered. */
  remove(gvr: GroupVersionResource): ParentHandler | undefined {
    const key = gvrKey(gvr);
    const entry = this.handlers.get(key);
    if (entry !== undefined) this.handlers.delete(key);
    return entry;
  }

  has(gvr: GroupVersionResource): boolean {
    return this.handlers.has(gvrKey(gvr));
  }

  /** The registered parent GVRs, in registration order. */
  gvrs(): GroupVersionResource[] {
    return [...this.handlers.values()].map((e) => e.gvr);
  }

  /** Every registered parent and whether its registration completed. */
  entries(): { gvr: GroupVersionResource; confirmed: boolean }[] {
    return [...this.handlers.values()].map((p) => ({ gvr: p.gvr, confirmed: this.confirmed.has(p) }));
  }
}
