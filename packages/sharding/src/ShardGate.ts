import {
  FencingRequiredError,
  type Fencing,
  gvrKey,
  LeaseExpiredError,
  namespacedNameKey,
  PassCancelledError,
  realClock,
  RequeueWhen,
  type Clock,
  type GroupVersionResource,
  type Handler,
  type NamespacedName,
  type ReconcileContext,
  type Validity,
} from '@protean/core';
import { fenceSignal, passCancellationOf } from '@protean/core/internal';
import { fnv1a64 } from './fnv1a64.js';
import { inRanges, validateRanges, type HashRange, type ShardKey } from './HashRange.js';
import { ShardingConfigError } from './ShardingConfigError.js';

/** Options of a {@link ShardGate} besides its fence. */
export interface ShardGateBaseOptions {
  readonly key: ShardKey;
  /** The ranges owned at first. Default none. */
  readonly ranges?: readonly HashRange[];
  /**
   * With `key: 'uid'`: the uid of an instance (e.g. from its parent
   * informer's cache), `undefined` when unknown (then it is not owned).
   */
  readonly uidOf?: (gvr: GroupVersionResource, item: NamespacedName) => string | undefined;
  /** Times the recheck of a validity without `whenValid` (every second). Default `realClock`. */
  readonly clock?: Clock;
}

/**
 * Options of a {@link ShardGate}: its fence is required. `validity` is the
 * member's lease (`membership.validity`): checked when an item is admitted
 * and tied to each pass's `ctx.signal`, so that past the renew deadline no
 * pass starts and no write made with the pass's signal is sent
 * (`assertStillValid`), even before the membership's timer drops the
 * ranges. `fencing: 'none'` runs without one, on purpose (logged once, at
 * the first pass).
 */
export type ShardGateOptions = ShardGateBaseOptions &
  ({ readonly validity: Validity; readonly fencing?: never } | { readonly fencing: 'none'; readonly validity?: never });

interface Pass {
  readonly item: NamespacedName;
  readonly gvr: GroupVersionResource;
  readonly abort: AbortController;
  readonly done: Promise<void>;
  readonly hash: bigint | undefined;
}

/**
 * The handler side of a shard: `wrap(handler)` runs the handler only for
 * instances whose shard key hashes into the owned ranges (others return
 * at once, without a pass), and tracks the passes in flight.
 * `setRanges(next)` stops taking instances of the ranges lost at once,
 * aborts the `ctx.signal` of their passes in flight (unless
 * `abortLost: false`; the reason is a `PassCancelledError` with reason
 * `range-lost`, and a pass that fails after it rejects with that error, so
 * the controller logs it once at info and neither retries it nor counts it
 * as a handler error) and resolves once those passes returned: call it,
 * and await it, before handing the lost ranges over (before
 * `ShardedInformerSource.setRanges`, whose deletes for the objects that
 * left the share then reach the controller as no-op passes, not as "the
 * instance is gone" reconciles).
 *
 * Easy to get wrong: register `gate.wrap(handler)`, not the handler, or
 * an instance whose object left the share is reconciled one last time as
 * if deleted, while its new owner reconciles it too.
 */
export class ShardGate {
  readonly key: ShardKey;
  private current: readonly HashRange[];
  private readonly uidOf: ((gvr: GroupVersionResource, item: NamespacedName) => string | undefined) | undefined;
  private readonly passes = new Set<Pass>();
  private readonly validity: Validity | undefined;
  /** The gate's fence: the member's validity, or `'none'`. */
  readonly fencing: Fencing;
  /** `fencing: 'none'` still to be logged (at the first pass). */
  private unfencedUnlogged: boolean;
  private readonly clock: Clock;

  /** @throws FencingRequiredError without `validity` or `fencing: 'none'`; ShardingConfigError for a bad key, ranges or uidOf. */
  constructor(options: ShardGateOptions) {
    if (options?.key !== 'namespace' && options?.key !== 'uid') {
      throw new ShardingConfigError(`key: must be 'namespace' or 'uid', got ${String(options?.key)}`);
    }
    if (options.key === 'uid' && options.uidOf === undefined) throw new ShardingConfigError("uidOf: is required with key 'uid'");
    const fencing = options.validity ?? options.fencing;
    if (fencing !== 'none' && typeof fencing?.isValid !== 'function') {
      throw new FencingRequiredError(
        'ShardGate',
        'new ShardGate({ key, validity: membership.validity }), or shardingModule(...), which wires it',
      );
    }
    this.key = options.key;
    this.uidOf = options.uidOf;
    this.fencing = fencing;
    this.validity = fencing === 'none' ? undefined : fencing;
    this.unfencedUnlogged = fencing === 'none';
    this.clock = options.clock ?? realClock;
    const ranges = options.ranges ?? [];
    validateRanges(ranges);
    this.current = [...ranges];
  }

  ranges(): readonly HashRange[] {
    return this.current;
  }

  /** Passes in flight now. */
  inFlight(): number {
    return this.passes.size;
  }

  /** True when `item` of `gvr` is in the owned ranges now. */
  owns(gvr: GroupVersionResource, item: NamespacedName): boolean {
    const hash = this.hashOf(gvr, item);
    return hash !== undefined && inRanges(hash, this.current);
  }

  /** `handler`, run only for owned instances, its passes tracked. */
  wrap(handler: Handler): Handler {
    return async (item, ctx) => {
      const hash = this.hashOf(ctx.gvr, item);
      if (hash === undefined || !inRanges(hash, this.current)) {
        ctx.logger.debug({ instance: namespacedNameKey(item), gvr: gvrKey(ctx.gvr) }, 'not in this shard: skipped');
        return;
      }
      if (this.unfencedUnlogged) {
        this.unfencedUnlogged = false;
        ctx.logger.warn(
          { fencing: 'none' },
          "the shard gate runs without a fence (fencing: 'none'): a write of a member past its lease is not refused",
        );
      }
      const validity = this.validity;
      if (validity !== undefined && !validity.isValid()) {
        // Past the renew deadline (a freeze): nothing starts, and the passes in flight stop now, not when a timer runs.
        const err = new LeaseExpiredError(`a pass of ${namespacedNameKey(item)}`, validity.description);
        for (const p of this.passes) p.abort.abort(err);
        ctx.logger.debug({ instance: namespacedNameKey(item), gvr: gvrKey(ctx.gvr) }, 'shard lease past its renew deadline: waits for it');
        // Not forgotten: the item runs again when the lease is renewed (and is skipped then if its range went elsewhere).
        throw new RequeueWhen(
          err,
          (signal) => (validity.whenValid === undefined ? recheck(this.clock, signal) : validity.whenValid(signal)),
          'requeue when the shard lease is valid',
        );
      }
      const abort = new AbortController();
      const signal = fenceSignal(abort, this.validity, ctx.signal);
      const inner: ReconcileContext = {
        signal,
        gvr: ctx.gvr,
        watcher: ctx.watcher,
        get logger() {
          return ctx.logger;
        },
        // Writes made with `signal` are recorded as the pass's (fenceSignal carries its recorder).
        get: (gvr, namespace, name) => ctx.get(gvr, namespace, name),
        list: (gvr, options) => ctx.list(gvr, options),
      };
      let finish!: () => void;
      const pass: Pass = { item, gvr: ctx.gvr, abort, hash, done: new Promise<void>((r) => (finish = r)) };
      this.passes.add(pass);
      try {
        await handler(item, inner);
      } catch (err) {
        // Cut off by the rebalance, whatever the handler threw: not a failure, and not this replica's to retry.
        if (abort.signal.aborted && !ctx.signal.aborted) throw passCancellationOf(err) ?? rangeLost(err);
        throw err;
      } finally {
        this.passes.delete(pass);
        finish();
      }
    };
  }

  /**
   * Owns `ranges` from now on: instances of lost ranges are not taken any
   * more, their passes in flight are aborted (unless `abortLost` is false)
   * and the promise resolves once they all returned.
   */
  async setRanges(ranges: readonly HashRange[], options: { readonly abortLost?: boolean } = {}): Promise<void> {
    validateRanges(ranges);
    this.current = [...ranges];
    const lost = [...this.passes].filter((p) => p.hash === undefined || !inRanges(p.hash, this.current));
    if (options.abortLost !== false) for (const p of lost) p.abort.abort(rangeLost());
    await Promise.all(lost.map((p) => p.done));
  }

  private hashOf(gvr: GroupVersionResource, item: NamespacedName): bigint | undefined {
    if (this.key === 'namespace') return fnv1a64(item.namespace);
    const uid = this.uidOf!(gvr, item);
    return uid === undefined ? undefined : fnv1a64(uid);
  }
}

/** Why a pass of an instance whose range this replica lost was cut off. */
function rangeLost(cause?: unknown): PassCancelledError {
  return new PassCancelledError('range-lost', 'the shard lost the range of this instance', cause === undefined ? undefined : { cause });
}

/** For a validity that cannot tell when it is valid again: look again in a second. */
function recheck(clock: Clock, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = clock.setTimeout(done, 1_000);
    function done(): void {
      clock.clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
