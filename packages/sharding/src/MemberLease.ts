import { errorMessage, type Logger, type TimerHandle } from '@protean/core';
import { deadlineSignal } from '@protean/core/internal';
import { LeaseRequestError, LeaseValidity, type Lease } from '@protean/leader-election';
import { formatMicroTime } from '@protean/leader-election/internal';
import type { HashRange } from './HashRange.js';
import { withHolds } from './rangeClaims.js';
import { SHARD_GROUP_LABEL, type ResolvedShardMembershipOptions } from './ShardMembershipOptions.js';

/** What happens around {@link MemberLease}'s writes. */
export interface MemberLeaseHooks {
  /** The lease now says it holds `holds` (after a renewal, or `[]` after the release). */
  readonly written: (holds: HashRange[]) => void;
  /** The renew deadline passed with no renewal: stop acting on the ranges at once. */
  readonly expired: () => void;
}

/**
 * One shard member's own Lease: joined (created, or taken over when it
 * exists), renewed with the ranges it holds, and released with no holder.
 * Its {@link validity} ends `renewDeadlineMs` after the last successful
 * renewal was sent; with the deadline armed, a timer tells `expired` at
 * that instant even while a renewal hangs.
 */
export class MemberLease {
  private own: Lease | undefined;
  private deadlineTimer: TimerHandle | undefined;
  private armed = false;
  readonly validity: LeaseValidity;

  constructor(
    private readonly settings: ResolvedShardMembershipOptions,
    readonly name: string,
    private readonly log: Logger,
    private readonly hooks: MemberLeaseHooks,
  ) {
    this.validity = new LeaseValidity(
      settings.clock,
      settings.renewDeadlineMs,
      `shard ranges of member ${settings.identity} (lease ${settings.namespace}/${name})`,
    );
  }

  /** From now on every renewal arms a timer for the renew deadline (under `ShardMembership.run`). */
  armDeadlines(): void {
    this.armed = true;
  }

  /** No more deadline timers (stopping). */
  disarm(): void {
    this.armed = false;
    this.clearDeadline();
  }

  /** Writes the lease with `holds`; true when the write succeeded. */
  async renew(signal: AbortSignal, holds: HashRange[], retried = false): Promise<boolean> {
    const { clock, client, namespace, identity } = this.settings;
    const sentMs = clock.now();
    const nowIso = formatMicroTime(this.settings.wallClock());
    const spec = { holderIdentity: identity, leaseDurationSeconds: this.settings.leaseDurationMs / 1000, renewTime: nowIso };
    const deadline = deadlineSignal(clock, this.settings.renewDeadlineMs, 'renewing the member lease', signal);
    try {
      if (this.own === undefined) {
        const existing = await client.get(namespace, this.name, deadline.signal);
        const metadata = { name: this.name, namespace, labels: { [SHARD_GROUP_LABEL]: this.settings.group } };
        this.own =
          existing === undefined
            ? await client.create(
                withHolds({ metadata, spec: { ...spec, acquireTime: nowIso, leaseTransitions: 0 } }, holds),
                deadline.signal,
              )
            : await client.update(
                withHolds({ ...existing, metadata: { ...existing.metadata, ...metadata }, spec: { ...existing.spec, ...spec } }, holds),
                deadline.signal,
              );
        this.log.info({ lease: this.name }, 'joined the shard group');
      } else {
        this.own = await client.update(withHolds({ ...this.own, spec: { ...this.own.spec, ...spec } }, holds), deadline.signal);
      }
      this.validity.renewed(sentMs);
      // Under run() a timer enforces the renew deadline even while a request hangs; stepped by hand, the next step does.
      if (this.armed) this.armDeadline();
      this.hooks.written(holds);
      return true;
    } catch (err) {
      const hadLease = this.own !== undefined;
      this.own = undefined; // read it again (a conflict, or it was deleted)
      // Removed while this replica looked dead to another: create it again at once.
      if (hadLease && !retried && err instanceof LeaseRequestError && err.status === 404) {
        deadline.dispose();
        return this.renew(signal, holds, true);
      }
      this.log.warn({ err: errorMessage(err) }, 'renewing the member lease failed');
      return false;
    } finally {
      deadline.dispose();
    }
  }

  /** Writes the lease with no holder and no holds, so the others drop it at once. Call it only once nothing is reconciled. */
  async release(): Promise<void> {
    const { client, namespace, identity } = this.settings;
    const signal = new AbortController().signal;
    // Twice at most: the lease we wrote last may be stale (a renewal cut short by the stop may have landed).
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        const lease = attempt === 0 && this.own !== undefined ? this.own : await client.get(namespace, this.name, signal);
        if (lease === undefined || (lease.spec?.holderIdentity ?? '') !== identity) return;
        const spec = { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: formatMicroTime(this.settings.wallClock()) };
        this.own = await client.update(withHolds({ ...lease, spec }, []), signal);
        this.validity.end();
        this.clearDeadline();
        this.hooks.written([]);
        this.log.info({ lease: this.name }, 'released the member lease');
        return;
      } catch (err) {
        if (attempt === 1) this.log.warn({ err: errorMessage(err) }, 'releasing the member lease failed; it expires instead');
      }
    }
  }

  /** Arms a timer for the end of validity (a later renewal re-arms it; an overdue one fires at once). */
  private armDeadline(): void {
    this.clearDeadline();
    this.deadlineTimer = this.settings.clock.setTimeout(() => {
      this.deadlineTimer = undefined;
      if (!this.validity.isValid()) this.hooks.expired();
      else if (this.armed) this.armDeadline();
    }, this.validity.remainingMs());
  }

  private clearDeadline(): void {
    if (this.deadlineTimer !== undefined) this.settings.clock.clearTimeout(this.deadlineTimer);
    this.deadlineTimer = undefined;
  }
}
