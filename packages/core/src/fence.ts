import type { Validity } from './contracts/Validity.js';
import { LeaseExpiredError } from './LeaseExpiredError.js';
import { bindPassReads } from './passReads.js';
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
  // So are its reads (the versions a write's precondition carries).
  if (parent !== undefined) bindPassReads(signal, parent);
  if (validity !== undefined) fencedBy.add(validity.description);
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

/** The leases some pass of this process has been fenced by: while there is one, a write without a fence is counted. */
const fencedBy = new Set<string>();
let unfencedWrites = 0;
const unfencedSites = new Set<string>();

/** True when `signal` is a pass's signal tied to a lease's validity (by the worker pool or a shard gate). */
export function isFenced(signal: AbortSignal | undefined): boolean {
  for (let fence = signal === undefined ? undefined : fences.get(signal); fence !== undefined; fence = fence.parent) {
    if (fence.validity !== undefined) return true;
  }
  return false;
}

/** What {@link noteUnfencedWrite} found. */
export interface UnfencedWrite {
  /** The lease(s) this process acts under, e.g. `leadership of lease ctl/webapp`. */
  readonly leases: string;
  /** Where the write was made (the first stack frame outside the client), `unknown` when not found. */
  readonly site: string;
  /** True the first time a write from `site` is noted: log it then. */
  readonly first: boolean;
}

/**
 * Called by `@protean/client` for every write: when this process acts
 * under a lease (some pass was fenced by one) and the write's signal is
 * not a fenced pass's (no `ctx.signal`, or the handler's own signal), the
 * write is counted ({@link unfencedWriteCount}) and returned with its call
 * site, so the client logs it once per site. `undefined` otherwise.
 * `skip` names the frames to pass over (the client's own files).
 */
export function noteUnfencedWrite(signal: AbortSignal | undefined, skip: RegExp): UnfencedWrite | undefined {
  if (fencedBy.size === 0 || isFenced(signal)) return undefined;
  unfencedWrites++;
  const site = callSite(skip);
  const first = !unfencedSites.has(site);
  if (first && unfencedSites.size < 256) unfencedSites.add(site);
  return { leases: [...fencedBy].join(', '), site, first };
}

/**
 * Writes made through `@protean/client` without a fenced pass's signal
 * since this process first acted under a lease: each could reach the
 * server after the lease ended. Exported as a metric by `@protean/metrics`.
 */
export function unfencedWriteCount(): number {
  return unfencedWrites;
}

function callSite(skip: RegExp): string {
  const stack = new Error().stack?.split('\n').slice(1) ?? [];
  for (const line of stack) {
    const frame = line.trim();
    if (frame === '' || skip.test(frame) || frame.includes('/core/src/fence.') || frame.includes('/core/dist/fence.')) continue;
    if (frame.includes('node:internal') || frame.includes('processTicksAndRejections')) continue;
    return frame.replace(/^at /, '');
  }
  return 'unknown';
}
