import type { GroupVersionResource } from './gvr.js';
import type { CachedObject } from './informer.js';

/**
 * One write a handler made, as a client reports it with {@link noteWrite}:
 * which object, the resourceVersion the server answered with (or `deleted`),
 * and how to read the object from the server if the cache does not catch up.
 */
export interface ObjectWrite {
  readonly gvr: GroupVersionResource;
  /** `""` for a cluster-scoped object. */
  readonly namespace: string;
  readonly name: string;
  /** The stored object's resourceVersion after the write; unset for a delete that removed it. */
  readonly resourceVersion?: string | undefined;
  /** The write removed the object (a delete the server answered without a `deletionTimestamp`). */
  readonly deleted?: boolean;
  /** The uid of the object written (for a delete: the one removed). */
  readonly uid?: string | undefined;
  /** Reads the object from the server (`undefined` when it does not exist): the fallback when the cache lags. */
  readonly refetch: (signal: AbortSignal | undefined) => Promise<CachedObject | undefined>;
}

/** Where the writes made with a pass's signal are recorded (the controller's object cache reads). */
export interface WriteRecorder {
  record(write: ObjectWrite): void;
}

const recorders = new WeakMap<AbortSignal, WriteRecorder>();

/**
 * Ties a pass's signal to the recorder of its controller, so writes made
 * with it are read back by `ctx.get`/`ctx.list` (read your writes). The
 * worker pool calls it; `fenceSignal` carries it to signals derived from
 * the pass's.
 */
export function bindWriteRecorder(signal: AbortSignal, recorder: WriteRecorder): void {
  recorders.set(signal, recorder);
}

/** The recorder `signal` is tied to, if any (for signals derived from a pass's). */
export function writeRecorderOf(signal: AbortSignal): WriteRecorder | undefined {
  return recorders.get(signal);
}

/**
 * Tells the controller whose pass `signal` belongs to that the handler
 * wrote an object: a cached read of it (`ctx.get`, `ctx.list`) in this pass
 * or a later one then never returns an older version. `@protean/client`
 * calls it after every write made with the pass's `ctx.signal`; a handler
 * writing through its own HTTP client calls it after each write. Does
 * nothing for a signal no pass is tied to, or without one.
 */
export function noteWrite(signal: AbortSignal | undefined, write: ObjectWrite): void {
  if (signal === undefined) return;
  recorders.get(signal)?.record(write);
}
