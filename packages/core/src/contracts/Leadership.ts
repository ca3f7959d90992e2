import type { Fencing } from './Validity.js';

/**
 * Decides when a DynamicController's workers run, so that of several
 * replicas one reconciles while the others stand by with their informers
 * synced (a warm standby: taking over needs no relist). Implemented by
 * `LeaderElector` in `@protean/leader-election` on a coordination.k8s.io/v1
 * Lease; bind it to `TOKENS.leadership` (or pass `leadership` to
 * `DynamicController.create`). Without one, a controller always leads.
 *
 * The controller calls {@link Leadership.run} once, from `start(signal)`,
 * with that signal. Each time this replica becomes leader, the leadership
 * calls `lead(term)`; `term` aborts when the replica must stop (the lease
 * was lost, or `signal` aborted). The promise `lead` returns resolves once
 * the workers stopped taking items and every handler of the term returned;
 * it rejects when they could not be drained (handlers outlived the
 * controller's shutdown timeout), and then handlers may still be running.
 *
 * Easy to get wrong: a leadership must not let another replica lead before
 * `lead`'s promise settled (on a graceful stop: keep the lease until it
 * resolves, then release it; never release after a rejection, let the
 * lease run out instead); and a term must end before the lease can expire
 * from other replicas' point of view, or two replicas reconcile at once.
 * `fencing` is the term's validity, which tells synchronously whether the
 * term may still be acted on: the workers check it before each pass and tie
 * it to each pass's `ctx.signal`, so a write attempted after it ended is
 * refused ({@link assertStillValid}) even before `term` aborts (after a
 * freeze, the process's continuations run before its timers). A leadership
 * without a lease passes `'none'`, said on purpose (logged once); a `lead`
 * called without either is refused with a `FencingRequiredError`, and the
 * controller's `start` rejects with it.
 */
export interface Leadership {
  /** This replica's name (the lease holder identity), for logs and metrics. */
  readonly identity: string;
  /**
   * Takes part until `signal` aborts; calls `lead(term)` at the start of
   * every term led, one term at a time. Resolves after `signal` aborted and
   * the last term's `lead` settled (and the lease was handed back).
   */
  run(signal: AbortSignal, lead: (term: AbortSignal, fencing: Fencing) => Promise<void>): Promise<void>;
}
