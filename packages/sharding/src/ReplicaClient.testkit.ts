import { LeaseRequestError, type Lease, type LeaseWatchEvent, type LeaseWatchSelector } from '@protean/leader-election';
import type { FakeMemberLeaseClient, MemberLeaseClient } from './MemberLeaseClient.js';

// A replica's lease connection in the shard simulations (ShardCluster.testkit.ts): severed, hanging or frozen.

/** One replica's connection to the shared fake: a killed or partitioned replica makes no call, and its watches end. */
export class ReplicaClient implements MemberLeaseClient {
  dead = false;
  /** While true, calls wait until their signal aborts (a stalled connection). */
  hanging = false;
  private cut = new AbortController();
  /** Set while the process is frozen: requests and answers wait for the thaw, watch events are buffered. */
  private frozen: { readonly thawed: Promise<void>; readonly thaw: () => void } | undefined;
  private buffered: (() => void)[] = [];
  /** Set to freeze the process right after the server carried out its next lease update, before the answer. */
  freezeAfterNextUpdate: (() => void) | undefined;
  constructor(private readonly inner: FakeMemberLeaseClient) {}
  /** SIGSTOP: nothing reaches or leaves the process until {@link thaw}. */
  freeze(): void {
    let thaw!: () => void;
    const thawed = new Promise<void>((resolve) => (thaw = resolve));
    this.frozen = { thawed, thaw };
  }
  /** SIGCONT: answers and buffered watch events are delivered. */
  thaw(): void {
    const frozen = this.frozen;
    this.frozen = undefined;
    for (const deliver of this.buffered.splice(0)) deliver();
    frozen?.thaw();
  }
  /** Cuts the replica off: calls fail, open watches break. */
  sever(): void {
    this.dead = true;
    this.cut.abort();
    this.cut = new AbortController();
  }
  heal(): void {
    this.dead = false;
  }
  get(ns: string, name: string, signal: AbortSignal): Promise<Lease | undefined> {
    return this.guard('get', () => this.inner.get(ns, name, signal), signal);
  }
  create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.guard('create', () => this.inner.create(lease, signal), signal);
  }
  update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    return this.guard(
      'update',
      async () => {
        const written = await this.inner.update(lease, signal);
        const freeze = this.freezeAfterNextUpdate;
        this.freezeAfterNextUpdate = undefined;
        freeze?.();
        return written;
      },
      signal,
    );
  }
  list(ns: string, selector: string, signal: AbortSignal): Promise<Lease[]> {
    return this.guard('get', () => this.inner.list(ns, selector, signal), signal);
  }
  delete(ns: string, name: string, rv: string, signal: AbortSignal): Promise<boolean> {
    return this.guard('update', () => this.inner.delete(ns, name, rv, signal), signal);
  }
  watch(ns: string, selector: LeaseWatchSelector, onEvent: (e: LeaseWatchEvent) => void, signal: AbortSignal): Promise<void> {
    const cut = this.cut.signal;
    return this.guard('watch', async () => {
      const deliver = (e: LeaseWatchEvent): void => {
        if (this.frozen !== undefined) this.buffered.push(() => onEvent(e));
        else onEvent(e);
      };
      await this.inner.watch(ns, selector, deliver, AbortSignal.any([signal, cut]));
      if (cut.aborted) throw new Error('the watch connection broke');
    });
  }
  private async guard<T>(verb: 'get' | 'create' | 'update' | 'watch', call: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    await this.whileFrozen();
    if (this.hanging && signal !== undefined) {
      await new Promise<void>((resolve) =>
        signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      throw new LeaseRequestError(verb, 'ns/lease', 'aborted', { reason: 'Aborted' });
    }
    if (this.dead) throw new LeaseRequestError(verb, 'ns/lease', 'request failed: connect ECONNREFUSED', { reason: 'NetworkError' });
    const result = await call();
    await this.whileFrozen();
    // An answer that arrives after the cut is lost with the connection.
    if (this.dead) throw new LeaseRequestError(verb, 'ns/lease', 'request failed: socket hang up', { reason: 'NetworkError' });
    return result;
  }
  private async whileFrozen(): Promise<void> {
    while (this.frozen !== undefined) await this.frozen.thawed;
  }
}
