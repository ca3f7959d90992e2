import type { Clock, Logger } from '@protean/core';

/** Options of an {@link Informer}. */
export interface InformerOptions {
  /**
   * How often the cache is replayed to the listener as updates to itself
   * (`onUpdate(obj, obj, true)`); 0 (default) disables resync. A finite
   * number >= 0, or the constructor throws a `RangeError`.
   */
  readonly resyncPeriodMs?: number;
  /** Paces resync and the health ages. Default: the real clock. */
  readonly clock?: Clock;
  /** Where a throwing listener is logged. Default: silent. */
  readonly logger?: Logger;
  /** The source delivers full objects (see `holdsObjects`). Default false. */
  readonly holdsObjects?: boolean;
}
