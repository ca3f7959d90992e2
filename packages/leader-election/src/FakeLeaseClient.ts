import type { Lease } from './Lease.js';
import type { LeaseClient, LeaseWatchEvent, LeaseWatchSelector } from './LeaseClient.js';
import { LeaseRequestError, type LeaseVerb } from './LeaseRequestError.js';

/** One call a {@link FakeLeaseClient} answered (or failed). */
export interface FakeLeaseCall {
  readonly verb: LeaseVerb;
  /** `namespace/name`. */
  readonly lease: string;
  readonly ok: boolean;
}

/**
 * A {@link LeaseClient} that keeps leases in memory with the API server's
 * optimistic concurrency (a create of an existing lease and an update with
 * a stale `resourceVersion` are 409s), for tests of leader election without
 * HTTP. Several electors may share one, as replicas share a cluster.
 *
 * Faults: {@link failing} makes every call fail (an unreachable server);
 * {@link hanging} makes calls wait until their signal aborts (a stalled
 * one); {@link write} changes a lease as another client would;
 * {@link breakWatches} ends every open watch with an error and
 * {@link watchFailing} refuses new ones (a watch that cannot be kept
 * open, so its callers fall back to polling).
 *
 * Watches deliver their events in a microtask after the write, in order,
 * as a server delivers them shortly after the write commits.
 */
export class FakeLeaseClient implements LeaseClient {
  readonly calls: FakeLeaseCall[] = [];
  /** While true, every call rejects with a 503 `LeaseRequestError`. */
  failing = false;
  /** While true, every call waits until its signal aborts, then rejects. */
  hanging = false;
  /** While true, `watch` rejects at once (the calls still work). */
  watchFailing = false;
  private readonly leases = new Map<string, Lease>();
  private readonly watchers = new Set<FakeWatcher>();
  private rv = 0;

  async get(namespace: string, name: string, signal: AbortSignal): Promise<Lease | undefined> {
    const key = `${namespace}/${name}`;
    await this.gate('get', key, signal);
    const lease = this.leases.get(key);
    return lease === undefined ? undefined : copy(lease);
  }

  async create(lease: Lease, signal: AbortSignal): Promise<Lease> {
    const key = keyOf(lease);
    await this.gate('create', key, signal);
    if (this.leases.has(key))
      throw this.fail('create', key, 409, 'AlreadyExists', `leases.coordination.k8s.io "${lease.metadata.name}" already exists`);
    return this.store(key, lease, 'create');
  }

  async update(lease: Lease, signal: AbortSignal): Promise<Lease> {
    const key = keyOf(lease);
    await this.gate('update', key, signal);
    const current = this.leases.get(key);
    if (current === undefined)
      throw this.fail('update', key, 404, 'NotFound', `leases.coordination.k8s.io "${lease.metadata.name}" not found`);
    if (lease.metadata.resourceVersion !== current.metadata.resourceVersion) {
      throw this.fail(
        'update',
        key,
        409,
        'Conflict',
        'the object has been modified; please apply your changes to the latest version and try again',
      );
    }
    return this.store(key, lease, 'update');
  }

  /** The stored lease (a copy), as `kubectl get` would show it. */
  read(namespace: string, name: string): Lease | undefined {
    const lease = this.leases.get(`${namespace}/${name}`);
    return lease === undefined ? undefined : copy(lease);
  }

  /** Stores `lease` unconditionally, as another client's write (bumps the resourceVersion). */
  write(lease: Lease): Lease {
    return this.store(keyOf(lease), lease);
  }

  async watch(
    namespace: string,
    selector: LeaseWatchSelector,
    onEvent: (event: LeaseWatchEvent) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const key = `${namespace}/${selector.name ?? '*'}`;
    if (this.watchFailing) throw this.fail('watch', key, 503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
    await this.gate('watch', key, signal);
    this.calls.push({ verb: 'watch', lease: key, ok: true });
    return new Promise<void>((resolve, reject) => {
      const watcher: FakeWatcher = {
        matches: (lease) => (lease.metadata.namespace ?? '') === namespace && matchesSelector(lease, selector),
        deliver: (event) => {
          try {
            onEvent(event);
          } catch {
            // a throwing callback is the caller's bug; the watch goes on
          }
        },
        end: (err) => {
          this.watchers.delete(watcher);
          signal.removeEventListener('abort', onAbort);
          if (err === undefined) resolve();
          else reject(err);
        },
      };
      const onAbort = (): void => watcher.end(undefined);
      signal.addEventListener('abort', onAbort, { once: true });
      this.watchers.add(watcher);
      const initial = [...this.leases.values()].filter((l) => watcher.matches(l)).map(copy);
      queueMicrotask(() => {
        if (this.watchers.has(watcher)) for (const lease of initial) watcher.deliver({ type: 'ADDED', lease });
      });
    });
  }

  /** Ends every open watch with an error, as a server restart or a broken connection would. */
  breakWatches(): void {
    for (const w of [...this.watchers]) w.end(this.fail('watch', '*', undefined, 'NetworkError', 'the watch connection broke'));
  }

  /** Open watches now. */
  watchCount(): number {
    return this.watchers.size;
  }

  /** The calls of one verb that succeeded. */
  succeeded(verb: LeaseVerb): number {
    return this.calls.filter((c) => c.verb === verb && c.ok).length;
  }

  private store(key: string, lease: Lease, verb?: LeaseVerb): Lease {
    const stored = copy(lease);
    stored.apiVersion = 'coordination.k8s.io/v1';
    stored.kind = 'Lease';
    stored.metadata.resourceVersion = String(++this.rv);
    const existed = this.leases.has(key);
    this.leases.set(key, stored);
    if (verb !== undefined) this.calls.push({ verb, lease: key, ok: true });
    this.notify(existed ? 'MODIFIED' : 'ADDED', stored);
    return copy(stored);
  }

  /** Tells the open watches that match `lease` about a change (a subclass calls it for deletes). */
  protected notify(type: LeaseWatchEvent['type'], lease: Lease): void {
    const event = { type, lease: copy(lease) };
    for (const w of this.watchers) if (w.matches(event.lease)) queueMicrotask(() => this.watchers.has(w) && w.deliver(event));
  }

  private async gate(verb: LeaseVerb, key: string, signal: AbortSignal): Promise<void> {
    if (this.hanging) {
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
    if (signal.aborted) throw this.fail(verb, key, undefined, 'Aborted', 'aborted');
    if (this.failing) throw this.fail(verb, key, 503, 'ServiceUnavailable', 'the server is currently unable to handle the request');
    if (verb === 'get') this.calls.push({ verb, lease: key, ok: true });
  }

  private fail(verb: LeaseVerb, key: string, status: number | undefined, reason: string, message: string): LeaseRequestError {
    this.calls.push({ verb, lease: key, ok: false });
    const fields: { status?: number; reason: string } = { reason };
    if (status !== undefined) fields.status = status;
    return new LeaseRequestError(verb, key, `${status ?? ''} ${reason}: ${message}`.trim(), fields);
  }
}

interface FakeWatcher {
  matches(lease: Lease): boolean;
  deliver(event: LeaseWatchEvent): void;
  end(err: Error | undefined): void;
}

function matchesSelector(lease: Lease, selector: LeaseWatchSelector): boolean {
  if (selector.name !== undefined && lease.metadata.name !== selector.name) return false;
  if (selector.labelSelector === undefined || selector.labelSelector === '') return true;
  const labels = (lease.metadata['labels'] ?? {}) as Record<string, string>;
  return selector.labelSelector.split(',').every((term) => {
    const [k, v] = term.split('=');
    return k !== undefined && labels[k.trim()] === v?.trim();
  });
}

function keyOf(lease: Lease): string {
  return `${lease.metadata.namespace ?? ''}/${lease.metadata.name}`;
}

function copy(lease: Lease): Lease {
  return JSON.parse(JSON.stringify(lease)) as Lease;
}
