import { errorMessage, sleepOrWake, type Leadership, type Logger, type Validity } from '@protean/core';
import { deadlineSignal, Waker } from '@protean/core/internal';
import { keepLeaseWatch } from './keepLeaseWatch.js';
import type { Lease } from './Lease.js';
import { LeaseValidity } from './LeaseValidity.js';
import { heldLease, holderOf, newLease, releasedLease, type LeaseWrite } from './leaseRecords.js';
import { ObservedLease } from './ObservedLease.js';
import { resolveLeaderElectorOptions, type LeaderElectorOptions, type ResolvedLeaderElectorOptions } from './LeaderElectorOptions.js';

/** How one try to acquire or renew ended. */
type Attempt =
  | { readonly kind: 'held'; readonly sentAt: number }
  | { readonly kind: 'taken'; readonly holder: string }
  | { readonly kind: 'failed'; readonly err: unknown };

/** How a term ended. */
type TermEnd = { readonly kind: 'lost'; readonly reason: string } | { readonly kind: 'finished' };

/**
 * Leader election on one `coordination.k8s.io/v1` Lease, with client-go's
 * semantics: a candidate takes the lease when nobody holds it, when it
 * holds it already, or when the holder has not renewed it for
 * `leaseDurationMs` (measured on this replica's clock from when it saw the
 * record change, so clocks need not agree); the leader renews every
 * `retryPeriodMs`; candidates retry every `retryPeriodMs` plus jitter. All
 * writes are guarded by the lease's `resourceVersion`, so two candidates
 * never both win.
 *
 * Safety: a leader that could not renew for `renewDeadlineMs` (counted from
 * when its last successful renewal was sent) steps down: its term's signal
 * aborts, so the DynamicController stops taking items and aborts its
 * handlers, `leaseDurationMs - renewDeadlineMs` before any other replica can
 * take the lease. A leader that sees another holder in the lease steps down
 * at once. On a graceful stop (the `run` signal aborts) it keeps renewing
 * until its work has drained, then releases the lease (no holder, one
 * second) so a successor starts at once.
 *
 * It is the DynamicController's {@link Leadership}: bind it to
 * `TOKENS.leadership` (see `leaderElectionModule`) or pass it as
 * `leadership` to `DynamicController.create`. Used alone, `run(signal, lead)`
 * calls `lead(term)` for every term and expects it to stop when `term`
 * aborts.
 *
 * Easy to get wrong: handlers that ignore `ctx.signal` keep running after a
 * step-down; when they outlive the lease another replica may reconcile at
 * the same time (it is logged at error level). And if `lead`'s promise
 * settles while its term is still open, the elector takes that as the end
 * of the work: it releases the lease and `run` returns.
 */
export class LeaderElector implements Leadership {
  readonly identity: string;
  private readonly settings: ResolvedLeaderElectorOptions;
  private readonly log: Logger;
  private readonly observed: ObservedLease;
  private leading = false;
  private running = false;
  /** Until when (clock ms) the current term may be acted on: its last successful write's start plus the renew deadline. */
  private readonly validity: LeaseValidity;
  private watching = false;
  /** Ends the candidate's current wait early (a watched change); a wake while nobody waits is dropped. */
  private readonly waker: Waker;

  /**
   * Checks `options` (a `LeaderElectionConfigError` naming the first
   * bad one, before any request) unless they were checked where they
   * entered: the options `leaderElectionModule` builds the elector from.
   */
  constructor(options: LeaderElectorOptions) {
    this.settings = resolveLeaderElectorOptions(options);
    this.identity = this.settings.identity;
    this.validity = new LeaseValidity(this.settings.clock, this.settings.renewDeadlineMs, `leadership of lease ${this.leaseKey}`);
    this.waker = new Waker(this.settings.clock, false);
    this.log = this.settings.logger.child({ component: 'leader-election', lease: this.leaseKey, identity: this.identity });
    this.observed = new ObservedLease(this.identity, this.settings.leaseDurationMs, this.log);
  }

  /** `namespace/name` of the lease. */
  get leaseKey(): string {
    return `${this.settings.namespace}/${this.settings.leaseName}`;
  }

  /** The options in force, defaults filled in. */
  get options(): ResolvedLeaderElectorOptions {
    return this.settings;
  }

  /**
   * True from acquiring the lease until the term ends (lost, or after a
   * stop drained and released), and only while the term's validity lasts:
   * read from the clock, so a leader woken from a freeze past its renew
   * deadline says false before its timer has ended the term.
   */
  isLeader(): boolean {
    return this.leading && this.validity.isValid();
  }

  /** The holder named by the lease as last read or written (`''` when released), `undefined` before the first read. */
  observedLeader(): string | undefined {
    return this.observed.holder();
  }

  /**
   * Takes part in the election until `signal` aborts: waits to acquire the
   * lease, calls `lead(term)`, renews until the term ends, and after a lost
   * term goes back to waiting (its informers stay warm meanwhile). Resolves
   * after `signal` aborted and the last term's `lead` settled and the lease
   * was released; rejects with `lead`'s error when it rejected (then the
   * lease is left to expire, since handlers may still run).
   */
  async run(signal: AbortSignal, lead: (term: AbortSignal, validity: Validity) => Promise<void>): Promise<void> {
    if (this.running) throw new Error(`LeaderElector.run: already running for lease ${this.leaseKey}`);
    this.running = true;
    const watchStop = new AbortController();
    try {
      this.log.info(
        {
          leaseDurationMs: this.settings.leaseDurationMs,
          renewDeadlineMs: this.settings.renewDeadlineMs,
          retryPeriodMs: this.settings.retryPeriodMs,
        },
        'waiting to acquire the lease',
      );
      void this.watchLease(watchStop.signal);
      while (await this.acquire(signal)) {
        const end = await this.leadTerm(signal, lead);
        if (end.kind === 'finished' || signal.aborted) return;
        this.log.info('standing by to acquire the lease again');
      }
    } finally {
      watchStop.abort();
      this.running = false;
      this.leading = false;
    }
  }

  /** True while a watch of the lease is open (the candidate then waits for its events instead of polling). */
  isWatching(): boolean {
    return this.watching;
  }

  /**
   * Keeps a watch of the lease (`fieldSelector=metadata.name=<lease>`) open
   * while running, when the client can watch: a candidate sees each
   * renewal when it happens (so the expiry it computes is not late by a
   * poll) and a release at once. A watch that fails is opened again after
   * a retry period; meanwhile candidates poll every retry period.
   */
  private async watchLease(stop: AbortSignal): Promise<void> {
    const { client, namespace, leaseName, clock, retryPeriodMs, leaseDurationMs } = this.settings;
    const watch = client.watch?.bind(client);
    if (watch === undefined) return;
    await keepLeaseWatch(stop, {
      clock,
      retryPeriodMs,
      leaseDurationMs,
      log: this.log,
      failedMessage: 'watching the lease failed; polling it until the watch is back',
      open: (signal) => watch(namespace, { name: leaseName }, (event) => this.onWatchEvent(event.type, event.lease), signal),
      onWatching: (watching) => (this.watching = watching),
      onFailure: () => this.waker.wake(),
    });
  }

  /** A watched change: a candidate records it (when it saw the record change) and re-plans its wait. */
  private onWatchEvent(type: 'ADDED' | 'MODIFIED' | 'DELETED', lease: Lease): void {
    // The leader renews from the lease it wrote last; events of its own writes may arrive late.
    if (this.leading) return;
    if (type === 'DELETED') this.observed.forget();
    else this.observed.record(lease, this.settings.clock.now());
    this.waker.wake();
  }

  /** Tries until the lease is ours (true) or `signal` aborts (false). */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    let lastFailure = '';
    while (!signal.aborted) {
      const attempt = await this.attempt(this.settings.renewDeadlineMs, signal);
      if (attempt.kind === 'held') {
        this.validity.renewed(attempt.sentAt);
        return true;
      }
      if (attempt.kind === 'failed' && !signal.aborted) {
        // One warning per distinct failure, not one every two seconds.
        const message = errorMessage(attempt.err);
        if (message !== lastFailure) this.log.warn({ err: message }, 'could not read or take the lease; retrying');
        lastFailure = message;
      }
      const retryAt = this.settings.clock.now() + this.settings.retryPeriodMs * (1 + this.settings.random() * this.settings.jitter);
      if (attempt.kind !== 'taken') {
        await sleepOrWake(this.settings.clock, retryAt - this.settings.clock.now(), signal).done;
        continue;
      }
      // Waiting for another holder's lease: try again the moment it would expire (on this replica's clock) or is
      // released. While the watch is open its events move the expiry and wake this wait, so no poll is needed; without
      // it, poll every jittered retry period.
      for (;;) {
        const now = this.settings.clock.now();
        if (this.observed.isFree(now)) break;
        const until = this.watching ? this.observed.expiresAt() : Math.min(retryAt, this.observed.expiresAt());
        if (until <= now) break;
        const woken = await this.waker.wait(until - now, signal);
        if (signal.aborted || (!woken && !this.watching) || (!woken && this.settings.clock.now() >= this.observed.expiresAt())) break;
      }
    }
    return false;
  }

  private async leadTerm(signal: AbortSignal, lead: (term: AbortSignal, validity: Validity) => Promise<void>): Promise<TermEnd> {
    this.leading = true;
    this.log.info({ leaseTransitions: this.observed.lease?.spec?.leaseTransitions }, 'acquired the lease; leading');
    const term = new AbortController();
    let outcome: { ok: true } | { ok: false; err: unknown } | undefined;
    let work: Promise<void>;
    try {
      work = Promise.resolve(lead(term.signal, this.validity));
    } catch (err) {
      work = Promise.reject(err);
    }
    const settled = work.then(
      () => void (outcome = { ok: true }),
      (err: unknown) => void (outcome = { ok: false, err }),
    );
    let lost: string | undefined;
    let nextRenewAt = this.settings.clock.now() + this.settings.retryPeriodMs;
    // Renew until the lease is lost, or until the work has ended (after a stop, or on its own).
    while (outcome === undefined) {
      if (signal.aborted && !term.signal.aborted) {
        this.log.info('stopping: waiting for the work to drain before releasing the lease');
        term.abort(signal.reason);
      }
      const deadline = this.validity.validUntilMs();
      const nap = sleepOrWake(
        this.settings.clock,
        Math.min(nextRenewAt, deadline) - this.settings.clock.now(),
        term.signal.aborted ? undefined : signal,
      );
      void settled.then(nap.wake);
      await nap.done;
      if (outcome !== undefined || (signal.aborted && !term.signal.aborted) || this.settings.clock.now() < Math.min(nextRenewAt, deadline))
        continue;
      // Checked right before sending: a renewal past the deadline is never sent (after a freeze, say).
      const left = this.validity.remainingMs();
      if (left <= 0) {
        lost = `could not renew the lease for renewDeadlineMs=${this.settings.renewDeadlineMs}`;
        break;
      }
      const attempt = await this.attempt(left, undefined);
      nextRenewAt = this.settings.clock.now() + this.settings.retryPeriodMs;
      if (attempt.kind === 'held') this.validity.renewed(attempt.sentAt);
      else if (attempt.kind === 'taken') {
        lost = `the lease is now held by ${attempt.holder}`;
        break;
      } else
        this.log.warn(
          { err: errorMessage(attempt.err), msLeft: Math.round(left) },
          'renewing the lease failed; retrying until the renew deadline',
        );
    }
    this.leading = false;
    if (lost !== undefined) {
      term.abort(new Error(`leadership of lease ${this.leaseKey} lost: ${lost}`));
      const expiresAt = (this.validity.renewedAtMs() ?? this.settings.clock.now()) + this.settings.leaseDurationMs;
      this.validity.end();
      this.log.warn({ reason: lost, msToDrain: Math.round(expiresAt - this.settings.clock.now()) }, 'lost the lease; stepping down');
      await settled;
      const overMs = this.settings.clock.now() - expiresAt;
      if (overMs > 0)
        this.log.error({ overMs: Math.round(overMs) }, 'the work outlived the lease: another replica may have reconciled at the same time');
      else this.log.info('stepped down: the work of the term has stopped');
      if (outcome?.ok === false) throw outcome.err;
      return { kind: 'lost', reason: lost };
    }
    if (!term.signal.aborted) {
      this.log.info('the work ended on its own; releasing the lease');
      term.abort(new Error('the work of the term ended on its own'));
    }
    if (outcome?.ok === false) {
      this.log.warn({ err: errorMessage(outcome.err) }, 'not releasing the lease: the work did not drain; it expires on its own');
      throw outcome.err;
    }
    await this.release();
    this.validity.end();
    return { kind: 'finished' };
  }

  /**
   * One try (client-go's tryAcquireOrRenew): the leader first renews the
   * lease it wrote last without reading it; otherwise (or when that fails)
   * read the lease, create it when missing, leave it when another holder's
   * record is still valid, and take or renew it with a guarded update.
   */
  private async attempt(budgetMs: number, signal: AbortSignal | undefined): Promise<Attempt> {
    const { clock, client, namespace, leaseName } = this.settings;
    const deadline = deadlineSignal(clock, budgetMs, `a lease request of ${this.leaseKey}`, signal);
    try {
      const ours = this.leading && this.observed.isOurs() ? this.observed.lease : undefined;
      if (ours !== undefined) {
        const sentAt = clock.now();
        try {
          const written = await client.update(heldLease(ours, this.write()), deadline.signal);
          this.observed.record(written, sentAt);
          return { kind: 'held', sentAt };
        } catch (err) {
          if (deadline.signal.aborted) return { kind: 'failed', err };
          this.log.debug({ err: errorMessage(err) }, 'renewing from the cached lease failed; reading it');
        }
      }
      const current = await client.get(namespace, leaseName, deadline.signal);
      const readAt = clock.now();
      if (current === undefined) {
        const sentAt = clock.now();
        const created = await client.create(newLease(namespace, leaseName, this.write()), deadline.signal);
        this.observed.record(created, sentAt);
        return { kind: 'held', sentAt };
      }
      this.observed.record(current, readAt);
      const holder = holderOf(current);
      if (holder !== '' && holder !== this.identity && !this.observed.isExpired(readAt)) return { kind: 'taken', holder };
      const sentAt = clock.now();
      const written = await client.update(heldLease(current, this.write()), deadline.signal);
      this.observed.record(written, sentAt);
      return { kind: 'held', sentAt };
    } catch (err) {
      return { kind: 'failed', err };
    } finally {
      deadline.dispose();
    }
  }

  /** Hands the lease back if it is still ours and could still be valid; failures are logged (it then expires). */
  private async release(): Promise<void> {
    const observed = this.observed.lease;
    if (observed === undefined || !this.observed.isOurs()) return;
    const budgetMs = Math.min(
      this.settings.renewDeadlineMs,
      (this.validity.renewedAtMs() ?? 0) + this.settings.leaseDurationMs - this.settings.clock.now(),
    );
    if (budgetMs <= 0) return;
    const deadline = deadlineSignal(this.settings.clock, budgetMs, `releasing lease ${this.leaseKey}`);
    try {
      const written = await this.settings.client.update(releasedLease(observed, this.settings.wallClock()), deadline.signal);
      this.observed.record(written, this.settings.clock.now());
      this.log.info('released the lease');
    } catch (err) {
      this.log.warn({ err: errorMessage(err) }, 'releasing the lease failed; it expires on its own');
    } finally {
      deadline.dispose();
    }
  }

  /** This replica's record, as written when taking or renewing the lease. */
  private write(): LeaseWrite {
    return { identity: this.identity, leaseDurationSeconds: this.settings.leaseDurationMs / 1000, nowMs: this.settings.wallClock() };
  }
}
