import type { Fencing, Leadership } from '../contracts/index.js';

/** How one term handed to {@link FakeLeadership} ended. */
export interface FakeTerm {
  /** `pending` while `lead`'s promise has not settled. */
  outcome: 'pending' | 'resolved' | 'rejected';
  error?: unknown;
}

/**
 * A {@link Leadership} a test elects and deposes by hand, to drive a
 * DynamicController between standby and leading without a lease:
 * `elect()` starts a term (the controller's workers start), `depose()`
 * aborts it and resolves once the controller's `lead` did (its handlers
 * returned). When the controller's signal aborts, `run` ends the current
 * term the same way, then resolves; `released` tells whether the last term
 * ended cleanly (a lease would have been handed back).
 *
 * Easy to get wrong: `elect()` throws until the controller called `run`
 * (await {@link whenRunning} after `start`).
 */
export class FakeLeadership implements Leadership {
  readonly identity: string;
  /** Every term, in order. */
  readonly terms: FakeTerm[] = [];
  /** True once `run` ended after a term whose `lead` resolved (or with no term at all). */
  released = false;
  private lead: ((term: AbortSignal, fencing: Fencing) => Promise<void>) | undefined;
  private current: { abort: AbortController; done: Promise<void> } | undefined;
  private readonly running: Promise<void>;
  private markRunning!: () => void;

  constructor(identity = 'fake-replica') {
    this.identity = identity;
    this.running = new Promise<void>((resolve) => (this.markRunning = resolve));
  }

  async run(signal: AbortSignal, lead: (term: AbortSignal, fencing: Fencing) => Promise<void>): Promise<void> {
    this.lead = lead;
    this.markRunning();
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    try {
      await this.depose(signal.reason);
      this.released = true;
    } catch {
      // A term whose handlers could not be drained keeps its (fake) lease.
    }
  }

  /** Resolves once the controller called `run`. */
  whenRunning(): Promise<void> {
    return this.running;
  }

  /** True while a term is open (elected and not yet deposed). */
  isLeading(): boolean {
    return this.current !== undefined && !this.current.abort.signal.aborted;
  }

  /**
   * Starts a term fenced by `fencing` (a lease's validity; default `'none'`:
   * a fake has no lease); returns the promise of the controller's `lead` for it.
   */
  elect(fencing: Fencing = 'none'): Promise<void> {
    const lead = this.lead;
    if (lead === undefined) throw new Error('FakeLeadership.elect: the controller has not called run() yet');
    if (this.isLeading()) throw new Error('FakeLeadership.elect: a term is already open; depose() it first');
    const abort = new AbortController();
    const term: FakeTerm = { outcome: 'pending' };
    this.terms.push(term);
    const done = lead(abort.signal, fencing).then(
      () => {
        term.outcome = 'resolved';
      },
      (err: unknown) => {
        term.outcome = 'rejected';
        term.error = err;
        throw err;
      },
    );
    done.catch(() => undefined);
    this.current = { abort, done };
    return done;
  }

  /**
   * Ends the current term (its signal aborts with `reason`) and settles as
   * the controller's `lead` does; resolves at once when no term is open.
   */
  depose(reason: unknown = new Error('leadership lost')): Promise<void> {
    const current = this.current;
    if (current === undefined) return Promise.resolve();
    if (!current.abort.signal.aborted) current.abort.abort(reason);
    return current.done;
  }
}
