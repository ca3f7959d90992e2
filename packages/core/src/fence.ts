import type { Validity } from './contracts/Validity.js';
import { LeaseExpiredError } from './LeaseExpiredError.js';
import { bindWriteRecorder, writeRecorderOf } from './passWrites.js';

/** One level of a pass's signal: the validity it adds and the controller that aborts it. */
interface Fence {
  readonly parent: Fence | undefined;
  readonly validity: Validity | undefined;
  readonly abort: AbortController;
}

const fences = new WeakMap<AbortSignal, Fence>();

/**
 * Ties a pass's signal to the lease it runs under: returns `abort.signal`
 * (or, with `parent`, a signal that also aborts with `parent`) registered
 * so that {@link assertStillValid} on it checks `validity` and every
 * validity `parent` was tied to. Used by the worker pool (a leader term)
 * and the shard gate (a member's ranges); a handler never needs it.
 */
export function fenceSignal(abort: AbortController, validity: Validity | undefined, parent?: AbortSignal): AbortSignal {
  const signal = parent === undefined ? abort.signal : AbortSignal.any([parent, abort.signal]);
  fences.set(signal, { parent: parent === undefined ? undefined : fences.get(parent), validity, abort });
  // Writes made with the derived signal are still the pass's (read your writes).
  const recorder = parent === undefined ? undefined : writeRecorderOf(parent);
  if (recorder !== undefined) bindWriteRecorder(signal, recorder);
  return signal;
}

/**
 * Throws a {@link LeaseExpiredError} (and aborts the pass's signal with
 * it, at once) when a lease the pass runs under is no longer valid;
 * returns otherwise, also for a signal no lease is tied to. Call it right
 * before each write a handler sends through its own HTTP client
 * (`assertStillValid(ctx, 'POST https://billing/charge')`);
 * `@protean/client` calls it before every write made with the pass's
 * `ctx.signal`.
 *
 * Easy to get wrong: the check covers the instant it runs; a write sent
 * later (after an `await`) needs its own check.
 */
export function assertStillValid(target: AbortSignal | { readonly signal: AbortSignal } | undefined, action = 'a write'): void {
  if (target === undefined) return;
  const signal = target instanceof AbortSignal ? target : target.signal;
  const first = fences.get(signal);
  for (let fence = first; fence !== undefined; fence = fence.parent) {
    if (fence.validity === undefined || fence.validity.isValid()) continue;
    const err = new LeaseExpiredError(action, fence.validity.description);
    for (let f = first; f !== undefined; f = f === fence ? undefined : f.parent) if (!f.abort.signal.aborted) f.abort.abort(err);
    throw err;
  }
}
