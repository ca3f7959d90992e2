/**
 * Whether the lease this process acts under (a leader term, a shard
 * member's ranges) may still be acted on. Implemented by
 * `LeaseValidity` in `@protean/leader-election` (used by `LeaderElector`
 * and `ShardMembership`): valid until the start of the last successful
 * renewal plus the renew deadline, on the monotonic clock. The worker pool
 * checks it before it starts a pass, the shard gate before it admits an
 * item, and `@protean/client` right before it sends a write made with a
 * pass's `ctx.signal` (see {@link assertStillValid}).
 *
 * Easy to get wrong: `isValid()` must read the clock when called, not a
 * flag a timer sets: after a freeze (`SIGSTOP`, a VM pause, a long GC) the
 * process's own continuations run before its overdue timers.
 */
export interface Validity {
  /** True while the lease may be acted on; synchronous, read from the monotonic clock now. */
  isValid(): boolean;
  /** Names the lease in errors, e.g. `leadership of lease ctl/webapp`. */
  readonly description: string;
  /**
   * Resolves when the lease is valid again (at once if it is now), or when
   * `signal` aborts: a pass refused past the deadline waits on it and runs
   * when the lease is renewed, instead of being forgotten.
   */
  whenValid?(signal: AbortSignal): Promise<void>;
}

/**
 * What fences the passes of a leadership or a shard gate: the lease's
 * {@link Validity}, or `'none'`, said explicitly, to run without a fence
 * (logged once at start). Leaving it out is refused with a
 * `FencingRequiredError`.
 */
export type Fencing = Validity | 'none';
